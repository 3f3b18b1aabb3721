// Upstream's packet-flow tests (helpers_test.go TestTracePacketV4 / TestTracePacketV6) run on
// upstream's rulesets read both ways: the transaction text through parseTransaction and the
// table model's apply, and what nft really loaded, read back from `nft list ruleset`. Each
// packet's outputs and masquerade flag are exactly what upstream expects, the outcomes' exact
// probabilities add up to 1, and both readers' tables give the same outcomes (the same
// chains and rules, by chain and position) although nft lists some rules in other words.
import { readFileSync } from 'node:fs';
import { addRational, formatRational, RATIONAL_ONE, RATIONAL_ZERO, rationalEquals, type Packet, type PacketEntry } from '@kubesvc/proxy';
import { describe, expect, test } from 'vitest';
import { applyTransaction } from '../model/apply.js';
import type { NftTable } from '../model/types.js';
import { parseTransaction } from '../read/parse-transaction.js';
import { parseListRuleset } from '../read/parse-list-ruleset.js';
import { tracePacket } from './trace-packet.js';
import type { Trace } from './trace-types.js';
import { TEST_NODE_IPS, TRACE_PACKET_V4, TRACE_PACKET_V6, type PacketFlowTest, upstreamOutput } from './upstream.fixtures.js';

const fixture = (name: string): string => readFileSync(new URL(`../read/fixtures/${name}`, import.meta.url), 'utf8');

/** The table nft listed for fixture `base`. */
function listed(base: string): NftTable {
  const r = parseListRuleset(fixture(`${base}.list`));
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** The table the model makes of fixture `base`'s transaction. */
function applied(base: string): NftTable {
  const tx = parseTransaction(fixture(`${base}.nft`));
  if (!tx.ok) throw new Error(tx.error.message);
  const t = applyTransaction(undefined, tx.value);
  if (!t.ok) throw new Error(t.error.message);
  if (t.value === undefined) throw new Error('no table');
  return t.value;
}

/** What two readers' tables must agree on: everything but the rules' words. */
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

/**
 * Upstream's tracer sends every packet through the prerouting chains (it skips the output
 * chains as redundant), so a packet from a node address enters as one routed from the node.
 */
function entryOf(source: string): PacketEntry {
  if (TEST_NODE_IPS.includes(source)) return 'node';
  return source.startsWith('10.') || source.startsWith('fd00:10:') ? 'pod' : 'outside';
}

function packetOf(tc: PacketFlowTest): Packet {
  const protocol = tc.protocol === 'UDP' ? 'udp' : tc.protocol === 'SCTP' ? 'sctp' : 'tcp';
  return { source: tc.sourceIP, destination: tc.destIP, protocol, destinationPort: tc.destPort, entry: entryOf(tc.sourceIP) };
}

function runPacketFlowTests(base: string, cases: readonly PacketFlowTest[]): void {
  const fromText = applied(base);
  const fromListing = listed(base);
  for (const tc of cases) {
    test(tc.name, () => {
      const r = tracePacket(fromText, packetOf(tc), { localAddresses: TEST_NODE_IPS });
      if (!r.ok) throw new Error(r.error.message);
      const l = tracePacket(fromListing, packetOf(tc), { localAddresses: TEST_NODE_IPS });
      if (!l.ok) throw new Error(l.error.message);
      expect(summary(l.value)).toEqual(summary(r.value));
      expect(upstreamOutput(r.value)).toBe(tc.output);
      const masq = r.value.outcomes.map((o) => o.markedForMasquerade);
      expect(masq.every((m) => m === tc.masq)).toBe(true);
      const total = r.value.outcomes.reduce((sum, o) => addRational(sum, o.probability.written), RATIONAL_ZERO);
      expect(rationalEquals(total, RATIONAL_ONE)).toBe(true);
      const kernel = r.value.outcomes.reduce((sum, o) => addRational(sum, o.probability.kernel), RATIONAL_ZERO);
      expect(rationalEquals(kernel, RATIONAL_ONE)).toBe(true);
    });
  }
}

describe('TestTracePacketV4 (upstream helpers_test.go)', () => {
  runPacketFlowTests('trace-packet.v4', TRACE_PACKET_V4);
});

describe('TestTracePacketV6 (upstream helpers_test.go)', () => {
  runPacketFlowTests('trace-packet.v6', TRACE_PACKET_V6);
});

// TestTracePacketV4's rules are based on TestOverallNFTablesRules; its packets give the same
// outputs on TestOverallNFTablesRules' own expected ruleset, in v1.33's layout.
describe("TestTracePacketV4's packets on TestOverallNFTablesRules' v1.33 ruleset", () => {
  runPacketFlowTests('overall-rules.v4', TRACE_PACKET_V4);
});
