// Upstream's per-feature packet-flow tests (proxier_test.go: TestNoEndpointsReject,
// TestClusterIPGeneral, TestLoadBalancer, TestNodePorts, TestExternalTrafficPolicyLocal and
// TestExternalTrafficPolicyCluster): the builder writes the transaction for upstream's
// Services and EndpointSlices, the transaction reader reads its text back, the table model
// applies it, and each of upstream's packets gives exactly upstream's output and masquerade
// flag. Upstream's tracer runs every packet through the prerouting chains, so a packet from a
// node address enters here as one routed from the node (entry `node`).
import { describe, expect, test } from 'vitest';
import { generateNftablesRules } from '../generate/generate.js';
import { fakeNftablesConfig } from '../generate/upstream.fixtures.js';
import { applyTransaction } from '../model/apply.js';
import { parsePriority } from '../model/print.js';
import type { NftOperation, NftTable } from '../model/types.js';
import { parseTransaction } from '../read/parse-transaction.js';
import { tracePacket } from './trace-packet.js';
import { FEATURE_TESTS, TEST_NODE_IPS, type FeatureTest, type PacketFlowTest, upstreamOutput } from './upstream.fixtures.js';

function tableOf(ft: FeatureTest): NftTable {
  const rules = generateNftablesRules(ft.services, ft.slices, fakeNftablesConfig(ft.config));
  const tx = parseTransaction(rules.text);
  if (!tx.ok) throw new Error(tx.error.message);
  // The text is the transaction, except that knftables writes a priority as its number.
  expect(tx.value).toEqual({ ...rules.transaction, operations: rules.transaction.operations.map(numericPriorities) });
  const applied = applyTransaction(undefined, tx.value);
  if (!applied.ok) throw new Error(applied.error.message);
  if (applied.value === undefined) throw new Error('no table');
  return applied.value;
}

function numericPriorities(op: NftOperation): NftOperation {
  if (op.object.kind !== 'chain' || op.object.chain.priority === undefined) return op;
  const n = parsePriority(op.object.chain.priority);
  return n === undefined ? op : { ...op, object: { kind: 'chain', chain: { ...op.object.chain, priority: String(n) } } };
}

function entryOf(source: string): 'node' | 'pod' | 'outside' {
  if (TEST_NODE_IPS.includes(source)) return 'node';
  return source.startsWith('10.') || source.startsWith('fd00:10:') ? 'pod' : 'outside';
}

function run(table: NftTable, tc: PacketFlowTest): void {
  const protocol = tc.protocol === 'UDP' ? 'udp' : tc.protocol === 'SCTP' ? 'sctp' : 'tcp';
  const r = tracePacket(table, { source: tc.sourceIP, destination: tc.destIP, protocol, destinationPort: tc.destPort, entry: entryOf(tc.sourceIP) }, { localAddresses: TEST_NODE_IPS });
  if (!r.ok) throw new Error(r.error.message);
  expect(upstreamOutput(r.value)).toBe(tc.output);
  expect(r.value.outcomes.every((o) => o.markedForMasquerade === tc.masq)).toBe(true);
}

for (const ft of FEATURE_TESTS) {
  describe(ft.name, () => {
    const table = tableOf(ft);
    for (const tc of ft.packets) test(tc.name, () => run(table, tc));
  });
}
