// INV-NFT-TRACE-LISTING: the tracer gives the same outcomes over the table the model makes of
// a generated cluster's transaction and over the table read back from what the real kernel
// lists after `nft -f` of the same transaction (priorities by name, elements in the kernel's
// order, rules in nft's words): the same kinds, DNAT destinations, delivery, masquerading,
// chains, matched rules (by chain and position) and exact probabilities, for packets to every
// address and port the maps hold, from a pod, from outside and from the node. Needs root
// (src/node/real-nft.fixtures.ts says what to install otherwise).
// @needs-root: loads tables with the real nft in a throwaway network namespace (real-nft.fixtures.ts); testkit root-only.ts refuses a run without root that selects it.
import { fc } from '@fast-check/vitest';
import { endpointSliceArb, proxierClusterArb, serviceArb } from '@kubesvc/testkit';
import { formatRational, type Packet } from '@kubesvc/proxy';
import { describe, expect, test } from 'vitest';
import { nftablesProxierConfig, type NftablesProxierConfig } from '../config.js';
import { generateNftablesRules } from '../generate/generate.js';
import { applyTransaction } from '../model/apply.js';
import type { NftTable } from '../model/types.js';
import { runNft } from '../node/real-nft.fixtures.js';
import { parseListRuleset } from '../read/parse-list-ruleset.js';
import { tracePacket } from './trace-packet.js';
import type { Trace } from './trace-types.js';

const CLUSTERS_PER_FAMILY = 25;
const NODE_NAME = 'test-node';

function configArb(family: 4 | 6): fc.Arbitrary<NftablesProxierConfig> {
  return fc.record({ detector: fc.boolean(), nodePortAddresses: fc.boolean(), serviceCIDRs: fc.boolean() }).map((o) => {
    const config = nftablesProxierConfig({
      nodeName: NODE_NAME,
      nodeIPs: family === 4 ? ['127.0.0.1', '192.168.0.2'] : ['::1', '2001:db8::2'],
      family,
      localDetector: o.detector ? { kind: 'cidr', cidr: family === 4 ? '10.244.0.0/16' : 'fd00:10:244::/64' } : { kind: 'none' },
      ...(o.nodePortAddresses ? { nodePortAddresses: [family === 4 ? '192.168.0.0/24' : '2001:db8::/64'] } : {}),
      ...(o.serviceCIDRs ? { serviceCIDRs: family === 4 ? ['10.96.0.0/12', '172.30.0.0/16'] : ['fd00:10:96::/108'] } : {}),
    });
    if (!config.ok) throw new Error(config.error.message);
    return config.value;
  });
}

/** Packets to every address . protocol . port and node port the table's maps hold. */
function probes(table: NftTable, family: 4 | 6): Packet[] {
  const node = family === 4 ? '192.168.0.2' : '2001:db8::2';
  const sources: [string, Packet['entry']][] = family === 4 ? [['10.244.1.5', 'pod'], ['203.0.113.7', 'outside'], [node, 'node']] : [['fd00:10:244::5', 'pod'], ['2001:db8:ff::7', 'outside'], [node, 'node']];
  const out: Packet[] = [];
  for (const [name, set] of table.sets) {
    for (const element of set.elements.values()) {
      const key = element.key;
      const [a, b, c] = key;
      const target = key.length === 3 ? { destination: a ?? node, protocol: b, port: Number(c) } : key.length === 2 && name.includes('nodeport') ? { destination: node, protocol: a, port: Number(b) } : undefined;
      if (target === undefined || (target.protocol !== 'tcp' && target.protocol !== 'udp' && target.protocol !== 'sctp')) continue;
      for (const [source, entry] of sources) out.push({ source, destination: target.destination, protocol: target.protocol, destinationPort: target.port, entry });
    }
  }
  return out;
}

function summary(trace: Trace): unknown[] {
  return trace.outcomes.map((o) => ({
    kind: o.kind,
    dnat: o.dnat,
    delivery: o.delivery,
    masq: [o.markedForMasquerade, o.masqueraded],
    chains: o.chains,
    matched: o.matched.map((m) => `${m.chain}#${m.index}`),
    probability: [formatRational(o.probability.written), formatRational(o.probability.kernel)],
  }));
}

describe('INV-NFT-TRACE-LISTING: the table read from the kernel traces as the model table does', () => {
  for (const family of [4, 6] as const) {
    test(`INV-NFT-TRACE-LISTING: ${CLUSTERS_PER_FAMILY} IPv${family} clusters, every mapped address from a pod, outside and the node`, () => {
      const clusters = fc.sample(fc.tuple(proxierClusterArb(serviceArb(), endpointSliceArb(), family, NODE_NAME), configArb(family)), {
        seed: 35_300 + family,
        numRuns: CLUSTERS_PER_FAMILY,
      });
      let traced = 0;
      const kinds = new Set<string>();
      clusters.forEach(([cluster, config], i) => {
        const rules = generateNftablesRules(cluster.services, cluster.slices, config);
        const model = applyTransaction(undefined, rules.transaction);
        if (!model.ok || model.value === undefined) throw new Error(`cluster ${i}: no model table`);
        const run = runNft([{ script: rules.text }]);
        expect(run.steps[0]?.status, run.steps[0]?.stderr).toBe(0);
        const listed = parseListRuleset(run.listing, { family: family === 4 ? 'ip' : 'ip6' });
        if (!listed.ok) throw new Error(`cluster ${i}: ${listed.error.message}\n${run.listing}`);
        const localAddresses = family === 4 ? ['192.168.0.2'] : ['2001:db8::2'];
        for (const packet of probes(model.value, family)) {
          const a = tracePacket(model.value, packet, { localAddresses });
          const b = tracePacket(listed.value, packet, { localAddresses });
          if (!a.ok) throw new Error(`cluster ${i}: ${a.error.message}`);
          if (!b.ok) throw new Error(`cluster ${i}: ${b.error.message}`);
          expect(summary(b.value), `cluster ${i}, ${JSON.stringify(packet)}`).toEqual(summary(a.value));
          traced++;
          for (const o of a.value.outcomes) kinds.add(o.kind);
        }
      });
      // Not trivial: many packets over the clusters, DNATed, rejected and dropped.
      expect(traced).toBeGreaterThan(100);
      expect([...kinds].sort()).toEqual(expect.arrayContaining(['dnat', 'drop', 'reject']));
    });
  }
});
