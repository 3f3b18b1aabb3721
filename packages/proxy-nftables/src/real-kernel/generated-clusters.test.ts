// The real kernel loads every generated ruleset (INV-NFT-LOADS): for 100 generated clusters
// per family (200 in all) (the testkit's proxierClusterArb with random nftables proxier settings), the
// first sync's transaction goes to `nft -f` in a throwaway network namespace, which must
// accept it, and so must a second, identical first sync on top of it (what a restarted
// kube-proxy writes over the table it left). The table the kernel then holds has the chains,
// the rule count of each, and the element count of each set and map that applyTransaction
// gives for the same two transactions. Needs root (src/node/real-nft.fixtures.ts says what to install otherwise).
// @needs-root: loads generated rulesets with the real nft in throwaway network namespaces (real-nft.fixtures.ts); testkit root-only.ts refuses a run without root that selects it.
import { fc } from '@fast-check/vitest';
import { endpointSliceArb, proxierClusterArb, serviceArb } from '@kubesvc/testkit';
import { describe, expect, test } from 'vitest';
import { nftablesProxierConfig, type NftablesProxierConfig } from '../config.js';
import { generateNftablesRules } from '../generate/generate.js';
import { applyTransaction } from '../model/apply.js';
import type { NftTable } from '../model/types.js';
import { runNft } from '../node/real-nft.fixtures.js';

const CLUSTERS_PER_FAMILY = 100;
const NODE_NAME = 'test-node';

function configArb(family: 4 | 6): fc.Arbitrary<NftablesProxierConfig> {
  return fc
    .record({ detector: fc.boolean(), masqueradeAll: fc.boolean(), nodePortAddresses: fc.boolean(), serviceCIDRs: fc.boolean() })
    .map((o) => {
      const config = nftablesProxierConfig({
        nodeName: NODE_NAME,
        nodeIPs: family === 4 ? ['127.0.0.1', '192.168.0.2'] : ['::1', '2001:db8::2'],
        family,
        localDetector: o.detector ? { kind: 'cidr', cidr: family === 4 ? '10.244.0.0/16' : 'fd00:10:244::/64' } : { kind: 'none' },
        masqueradeAll: o.masqueradeAll,
        ...(o.nodePortAddresses ? { nodePortAddresses: [family === 4 ? '192.168.0.0/24' : '2001:db8::/64'] } : {}),
        ...(o.serviceCIDRs ? { serviceCIDRs: family === 4 ? ['10.96.0.0/12', '172.30.0.0/16'] : ['fd00:10:96::/108'] } : {}),
      });
      if (!config.ok) throw new Error(config.error.message);
      return config.value;
    });
}

interface Shape {
  readonly chains: Record<string, number>;
  readonly sets: Record<string, number>;
}

function modelShape(table: NftTable | undefined): Shape {
  const chains: Record<string, number> = {};
  const sets: Record<string, number> = {};
  for (const [name, chain] of table?.chains ?? []) chains[name] = chain.rules.length;
  for (const [name, set] of table?.sets ?? []) sets[name] = set.elements.size;
  return { chains, sets };
}

type JsonObject = Record<string, unknown>;

function kernelShape(json: string): Shape {
  const chains: Record<string, number> = {};
  const sets: Record<string, number> = {};
  const items = (JSON.parse(json) as { nftables: JsonObject[] }).nftables;
  for (const item of items) if ('chain' in item) chains[(item['chain'] as JsonObject)['name'] as string] = 0;
  for (const item of items) {
    if ('rule' in item) {
      const chain = (item['rule'] as JsonObject)['chain'] as string;
      chains[chain] = (chains[chain] ?? 0) + 1;
    }
    for (const kind of ['set', 'map']) {
      if (kind in item) {
        const set = item[kind] as JsonObject;
        sets[set['name'] as string] = ((set['elem'] as unknown[] | undefined) ?? []).length;
      }
    }
  }
  return { chains, sets };
}

describe('INV-NFT-LOADS: the real kernel loads every generated ruleset, and holds what the model says', () => {
  for (const family of [4, 6] as const) {
    const all = fc.sample(fc.tuple(proxierClusterArb(serviceArb(), endpointSliceArb(), family, NODE_NAME), configArb(family)), {
      seed: 35_100 + family,
      numRuns: CLUSTERS_PER_FAMILY,
    });
    // In batches of 50, one namespace each, so that a batch stays well inside a test's time on a loaded machine.
    test.each([0, 1])(`IPv${family} clusters, batch %i of 2 (50 clusters)`, (batch) => {
      const clusters = all.slice(batch * 50, batch * 50 + 50);
      const texts = clusters.map(([cluster, config]) => generateNftablesRules(cluster.services, cluster.slices, config));
      // One namespace for all: each cluster starts from an empty ruleset and is loaded twice.
      const run = runNft(texts.flatMap((rules) => [{ script: rules.text, reset: true }, { script: rules.text, list: true }]));
      texts.forEach((rules, i) => {
        for (const k of [0, 1]) {
          const step = run.steps[2 * i + k];
          expect(step?.stderr, `cluster ${i}, load ${k + 1}: nft -f refused\n${rules.text}`).toBe('');
          expect(step?.status).toBe(0);
        }
        const once = applyTransaction(undefined, rules.transaction);
        const twice = once.ok ? applyTransaction(once.value, rules.transaction) : once;
        if (!twice.ok) throw new Error(`cluster ${i}: the model refused what the kernel took: ${twice.error.message}`);
        expect(kernelShape(run.steps[2 * i + 1]?.json ?? '{"nftables":[]}'), `cluster ${i}\n${rules.text}`).toEqual(modelShape(twice.value));
      });
    });
    test(`the IPv${family} corpus is not trivial: endpoints, load balancing, affinity, node ports, rejects, every protocol`, () => {
      const corpus = all.map(([cluster, config]) => generateNftablesRules(cluster.services, cluster.slices, config).text).join('');
      for (const shape of ['dnat to', 'numgen random mod', 'update @affinity-', 'service-nodeports', 'no-endpoint-services', 'meta l4proto udp', 'meta l4proto sctp']) {
        expect(corpus).toContain(shape);
      }
    });
  }
});
