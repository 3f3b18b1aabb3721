// INV-NFT-REFS: what a sync writes refers only to what exists. The kernel refuses a rule that
// jumps to a missing chain or looks up a missing set, and a verdict map element that points
// at a missing chain (the table model does not check references, so this does). A run is a
// generated cluster (the testkit's proxierClusterArb) and proxier settings; the first sync's
// transaction is applied to an empty table, and every `jump`/`goto` target, every `@set`
// and every verdict of every map element must name a chain or set of the table. Every
// service chain must also be reached from a map element or another chain: an orphan would
// be a chain the proxier flushes as stale on its next sync.
// upstream: pkg/proxy/nftables/proxier.go (syncProxyRules: ensureChain before any rule or
// element that names a chain).
import { fc, test } from '@fast-check/vitest';
import { endpointSliceArb, proxierClusterArb, serviceArb } from '@kubesvc/testkit';
import { expect } from 'vitest';
import { nftablesProxierConfig } from '../config.js';
import { applyTransaction } from '../model/apply.js';
import { isServiceChainName } from './chain-names.js';
import { generateNftablesRules } from './generate.js';

const NODE_NAME = 'test-node';

const runArb = fc.constantFrom<4 | 6>(4, 6).chain((family) =>
  fc.record({
    family: fc.constant(family),
    detector: fc.boolean(),
    masqueradeAll: fc.boolean(),
    nodePorts: fc.boolean(),
    cluster: proxierClusterArb(serviceArb(), endpointSliceArb(), family, NODE_NAME),
  }),
);

const CHAIN_REFERENCE = /\b(?:jump|goto) (\S+)/g;
const SET_REFERENCE = /@([^\s,}]+)/g;

test.prop([runArb], { numRuns: 150 })(
  'INV-NFT-REFS: every chain and set a first sync names exists, and every service chain is reached',
  ({ family, detector, masqueradeAll, nodePorts, cluster }) => {
    const config = nftablesProxierConfig({
      nodeName: NODE_NAME,
      nodeIPs: family === 4 ? ['127.0.0.1', '192.168.0.2'] : ['::1', '2001:db8::2'],
      family,
      localDetector: detector ? { kind: 'cidr', cidr: family === 4 ? '10.244.0.0/16' : 'fd00:10:244::/64' } : { kind: 'none' },
      masqueradeAll,
      nodePortAddresses: nodePorts ? [family === 4 ? '192.168.0.0/24' : '2001:db8::/64'] : [],
    });
    if (!config.ok) throw new Error(config.error.message);
    const applied = applyTransaction(undefined, generateNftablesRules(cluster.services, cluster.slices, config.value).transaction);
    if (!applied.ok || applied.value === undefined) throw new Error('the sync did not apply');
    const table = applied.value;

    const referenced = new Set<string>();
    const missing: string[] = [];
    const chainsIn = (text: string, where: string): void => {
      for (const [, chain] of text.matchAll(CHAIN_REFERENCE)) {
        if (chain === undefined) continue;
        referenced.add(chain);
        if (!table.chains.has(chain)) missing.push(`${where}: chain ${chain}`);
      }
    };
    for (const [name, chain] of table.chains) {
      for (const rule of chain.rules) {
        chainsIn(rule.rule, name);
        for (const [, set] of rule.rule.matchAll(SET_REFERENCE)) {
          if (set !== undefined && !table.sets.has(set)) missing.push(`${name}: set ${set}`);
        }
      }
    }
    for (const [name, set] of table.sets) {
      for (const element of set.elements.values()) chainsIn((element.value ?? []).join(' '), name);
    }
    expect(missing).toEqual([]);
    expect([...table.chains.keys()].filter((chain) => isServiceChainName(chain) && !referenced.has(chain))).toEqual([]);
  },
);
