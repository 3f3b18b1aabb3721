// INV-NFT-PARTIAL-LOADS: the real kernel takes every transaction of a proxier's life, and
// ends holding what the model holds. A run is three generated clusters of one family (the
// testkit's proxierClusterArb) and random settings: a first (full) sync of the first, a
// partial sync of the second within the stale chains' grace period, and a partial sync of
// the third after it, whose stale chains go first in a transaction of their own. Each
// transaction goes to `nft -f` in a throwaway network namespace, in order, as kube-proxy
// runs them; none may be refused, and the ruleset the kernel lists at the end has the chains
// (with the rule count of each) and the sets and maps (with their element counts) of the
// table syncNftables' state holds. Needs root (src/node/real-nft.fixtures.ts says what to
// install otherwise).
// @needs-root: loads transactions with the real nft in a throwaway network namespace (real-nft.fixtures.ts); testkit root-only.ts refuses a run without root that selects it.
import { fc } from '@fast-check/vitest';
import { endpointSliceArb, proxierClusterArb, serviceArb, type ProxierCluster } from '@kubesvc/testkit';
import { describe, expect, test } from 'vitest';
import { nftablesProxierConfig, type NftablesProxierConfig } from '../config.js';
import { printTransaction } from '../model/print.js';
import type { NftTable, NftTransaction } from '../model/types.js';
import { runNft, type NftStep } from '../node/real-nft.fixtures.js';
import { INITIAL_NFTABLES_SYNC_STATE, STALE_CHAIN_GRACE_MS, syncNftables } from './sync.js';

const RUNS_PER_FAMILY = 60;
const NODE_NAME = 'test-node';

function configFor(family: 4 | 6, detector: boolean, masqueradeAll: boolean, nodePorts: boolean): NftablesProxierConfig {
  const config = nftablesProxierConfig({
    nodeName: NODE_NAME,
    nodeIPs: family === 4 ? ['127.0.0.1', '192.168.0.2'] : ['::1', '2001:db8::2'],
    family,
    localDetector: detector ? { kind: 'cidr', cidr: family === 4 ? '10.244.0.0/16' : 'fd00:10:244::/64' } : { kind: 'none' },
    masqueradeAll,
    nodePortAddresses: nodePorts ? [family === 4 ? '192.168.0.0/24' : '2001:db8::/64'] : [],
    serviceCIDRs: family === 4 ? ['10.96.0.0/12'] : ['fd00:10:96::/108'],
  });
  if (!config.ok) throw new Error(config.error.message);
  return config.value;
}

/** Chain name to rule count, and set or map name to element count. */
type Counts = Record<string, number>;

function modelCounts(table: NftTable | undefined): Counts {
  const counts: Counts = {};
  for (const [name, chain] of table?.chains ?? []) counts[`chain ${name}`] = chain.rules.length;
  for (const [name, set] of table?.sets ?? []) counts[`${set.kind} ${name}`] = set.elements.size;
  return counts;
}

/** The same counts from `nft -j list ruleset`. */
function kernelCounts(json: string): Counts {
  const counts: Counts = {};
  for (const item of (JSON.parse(json) as { nftables: Record<string, { name?: string; chain?: string; elem?: unknown[] }>[] }).nftables) {
    const chain = item['chain'];
    if (chain?.name !== undefined) counts[`chain ${chain.name}`] ??= 0;
    const rule = item['rule'];
    if (rule?.chain !== undefined) counts[`chain ${rule.chain}`] = (counts[`chain ${rule.chain}`] ?? 0) + 1;
    for (const kind of ['set', 'map'] as const) {
      const set = item[kind];
      if (set?.name !== undefined) counts[`${kind} ${set.name}`] = (set.elem ?? []).length;
    }
  }
  return counts;
}

function text(transaction: NftTransaction): string {
  const printed = printTransaction(transaction);
  if (!printed.ok) throw new Error(printed.error.message);
  return printed.value;
}

interface Run {
  readonly steps: NftStep[];
  readonly table: NftTable | undefined;
  readonly partial: boolean;
  readonly staleDeleted: boolean;
}

function lifetime(config: NftablesProxierConfig, clusters: readonly ProxierCluster[]): Run {
  const steps: NftStep[] = [];
  let state = INITIAL_NFTABLES_SYNC_STATE;
  let partial = false;
  let staleDeleted = false;
  const times = [0, 10, 10 + 2 * STALE_CHAIN_GRACE_MS];
  clusters.forEach((cluster, i) => {
    const result = syncNftables(state, cluster.services, cluster.slices, config, { now: times[i] ?? 0 });
    if (!result.ok) throw new Error(result.error.message);
    if (result.value.staleDeletion !== undefined) {
      steps.push({ script: text(result.value.staleDeletion) });
      staleDeleted = true;
    }
    steps.push({ script: text(result.value.transaction), ...(i === 0 ? { reset: true } : {}) });
    partial ||= !result.value.full;
    state = result.value.state;
  });
  steps[steps.length - 1] = { ...(steps[steps.length - 1] as NftStep), list: true };
  return { steps, table: state.table, partial, staleDeleted };
}

describe('INV-NFT-PARTIAL-LOADS: the real kernel takes every sync of a proxier, and holds what the model holds', () => {
  for (const family of [4, 6] as const) {
    const clusterArb = proxierClusterArb(serviceArb(), endpointSliceArb(), family, NODE_NAME);
    const samples = fc.sample(fc.tuple(fc.boolean(), fc.boolean(), fc.boolean(), fc.array(clusterArb, { minLength: 3, maxLength: 3 })), {
      seed: 35_200 + family,
      numRuns: RUNS_PER_FAMILY,
    });
    const runs = samples.map(([detector, masqueradeAll, nodePorts, clusters]) => lifetime(configFor(family, detector, masqueradeAll, nodePorts), clusters));
    // In two batches, one namespace each, so that a batch stays well inside a test's time on a loaded machine.
    test.each([0, 1])(`IPv${family} lifetimes of three syncs, batch %i of 2 (${RUNS_PER_FAMILY / 2} lifetimes)`, (batch) => {
      const mine = runs.slice((batch * RUNS_PER_FAMILY) / 2, ((batch + 1) * RUNS_PER_FAMILY) / 2);
      const all = runNft(mine.flatMap((run) => run.steps));
      let at = 0;
      mine.forEach((run, i) => {
        for (const step of run.steps) {
          const result = all.steps[at++];
          expect(result?.stderr, `run ${i}: nft -f refused\n${step.script}`).toBe('');
          expect(result?.status).toBe(0);
        }
        expect(kernelCounts(all.steps[at - 1]?.json ?? '{"nftables":[]}'), `run ${i}`).toEqual(modelCounts(run.table));
      });
    });
    test(`the IPv${family} lifetimes are not trivial: partial syncs, and stale chains deleted after their grace period`, () => {
      expect(runs.every((run) => run.partial)).toBe(true);
      expect(runs.some((run) => run.staleDeleted)).toBe(true);
    });
  }
});
