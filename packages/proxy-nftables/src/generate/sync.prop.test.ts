// INV-NFT-PARTIAL: a partial sync leaves the ruleset a first full sync of the same cluster
// makes, but for the chains it flushed and has not deleted yet. A run is two generated
// clusters (the testkit's proxierClusterArb: Services with the slices that belong to them,
// some endpoints on the proxier's node) and proxier settings; the first is synced in full, the
// second partially on top, and the table is compared with generateNftablesRules' for the
// second applied to an empty table. A third sync with nothing changed writes nothing but the stale chains'
// flushes (upstream flushes a stale chain at every sync until it deletes it).
// upstream: pkg/proxy/nftables/proxier.go (syncProxyRules: a partial sync rewrites the chains
// of changed services only; TestSyncProxyRulesRepeated checks the same on hand-written steps).
import { fc, test } from '@fast-check/vitest';
import { endpointSliceArb, proxierClusterArb, serviceArb } from '@kubesvc/testkit';
import { expect } from 'vitest';
import { nftablesProxierConfig, type NftablesProxierConfig } from '../config.js';
import { applyTransaction } from '../model/apply.js';
import { dumpTransaction } from '../model/dump.js';
import { printTransaction } from '../model/print.js';
import type { NftTable } from '../model/types.js';
import { generateNftablesRules } from './generate.js';
import { INITIAL_NFTABLES_SYNC_STATE, syncNftables } from './sync.js';
import { sortNFTablesTransaction } from './upstream.fixtures.js';

const NODE_NAME = 'test-node';

function configArb(family: 4 | 6): fc.Arbitrary<NftablesProxierConfig> {
  return fc
    .record({ detector: fc.boolean(), masqueradeAll: fc.boolean(), nodePorts: fc.boolean(), serviceCIDRs: fc.boolean() })
    .map((o) => {
      const result = nftablesProxierConfig({
        nodeName: NODE_NAME,
        nodeIPs: family === 4 ? ['127.0.0.1', '192.168.0.2'] : ['::1', '2001:db8::2'],
        family,
        localDetector: o.detector ? { kind: 'cidr', cidr: family === 4 ? '10.244.0.0/16' : 'fd00:10:244::/64' } : { kind: 'none' },
        masqueradeAll: o.masqueradeAll,
        nodePortAddresses: o.nodePorts ? [family === 4 ? '192.168.0.0/24' : '2001:db8::/64'] : [],
        serviceCIDRs: o.serviceCIDRs ? ['10.96.0.0/12', 'fd00:10:96::/112'] : [],
      });
      if (!result.ok) throw new Error(result.error.message);
      return result.value;
    });
}

const runArb = fc.constantFrom<4 | 6>(4, 6).chain((family) =>
  fc.record({
    config: configArb(family),
    before: proxierClusterArb(serviceArb(), endpointSliceArb(), family, NODE_NAME),
    after: proxierClusterArb(serviceArb(), endpointSliceArb(), family, NODE_NAME),
  }),
);

/** The table as upstream's tests compare it, without the chains named in `leaveOut`. */
function dumped(table: NftTable | undefined, leaveOut: ReadonlySet<string> = new Set()): string {
  if (table === undefined) return '';
  const printed = printTransaction(dumpTransaction(table));
  if (!printed.ok) throw new Error(printed.error.message);
  const lines = printed.value.split('\n').filter((line) => !leaveOut.has(line.split(' ')[4] ?? '') || !line.startsWith('add chain '));
  return sortNFTablesTransaction(lines.join('\n'));
}

test.prop([runArb], { numRuns: 150 })(
  'INV-NFT-PARTIAL: a partial sync after any cluster leaves what a first full sync of the new cluster makes, but for the stale chains',
  ({ config, before, after }) => {
    const first = syncNftables(INITIAL_NFTABLES_SYNC_STATE, before.services, before.slices, config, { now: 0 });
    if (!first.ok) throw new Error(first.error.message);
    const second = syncNftables(first.value.state, after.services, after.slices, config, { now: 10 });
    if (!second.ok) throw new Error(second.error.message);
    expect(second.value.full).toBe(false);

    const fresh = applyTransaction(undefined, generateNftablesRules(after.services, after.slices, config).transaction);
    if (!fresh.ok) throw new Error(fresh.error.message);
    const stale = new Set(second.value.state.staleChains.keys());
    for (const chain of stale) expect(second.value.state.table?.chains.get(chain)?.rules).toEqual([]);
    expect(dumped(second.value.state.table, stale)).toBe(dumped(fresh.value));

    // Within the grace period a sync writes nothing but the stale chains' flushes again.
    const third = syncNftables(second.value.state, after.services, after.slices, config, { now: 20 });
    if (!third.ok) throw new Error(third.error.message);
    expect(third.value.staleDeletion).toBeUndefined();
    expect(new Set(third.value.transaction.operations.map((op) => `${op.verb} ${op.object.kind === 'chain' ? op.object.chain.name : op.object.kind}`))).toEqual(
      new Set([...stale].map((chain) => `flush ${chain}`)),
    );
  },
);
