// Upstream's packet-flow tests (helpers_test.go TestTracePacketV4 / TestTracePacketV6) run on
// upstream's rulesets as nft really loaded them (read back from `nft list ruleset`): each
// packet's outputs and masquerade flag are exactly what upstream expects, and the outcomes'
// exact probabilities add up to 1.
import { readFileSync } from 'node:fs';
import { addRational, RATIONAL_ONE, RATIONAL_ZERO, rationalEquals, type Packet, type PacketEntry } from '@kubesvc/proxy';
import { describe, expect, test } from 'vitest';
import type { NftTable } from '../model/types.js';
import { parseListRuleset } from '../read/parse-list-ruleset.js';
import { tracePacket } from './trace-packet.js';
import { TEST_NODE_IPS, TRACE_PACKET_V4, TRACE_PACKET_V6, type PacketFlowTest, upstreamOutput } from './upstream.fixtures.js';

const listing = (name: string): string => readFileSync(new URL(`../read/fixtures/${name}`, import.meta.url), 'utf8');

function table(name: string): NftTable {
  const r = parseListRuleset(listing(name));
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
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

function runPacketFlowTests(rules: NftTable, cases: readonly PacketFlowTest[]): void {
  for (const tc of cases) {
    test(tc.name, () => {
      const r = tracePacket(rules, packetOf(tc), { localAddresses: TEST_NODE_IPS });
      if (!r.ok) throw new Error(r.error.message);
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

describe('TestTracePacketV4 (upstream helpers_test.go) on what nft listed', () => {
  runPacketFlowTests(table('trace-packet.v4.list'), TRACE_PACKET_V4);
});

describe('TestTracePacketV6 (upstream helpers_test.go) on what nft listed', () => {
  runPacketFlowTests(table('trace-packet.v6.list'), TRACE_PACKET_V6);
});
