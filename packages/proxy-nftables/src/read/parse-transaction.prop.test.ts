// INV-NFT-READ-ROUNDTRIP: the transaction reader reads back exactly what the builder wrote.
// For generated clusters in both families (the testkit's proxierClusterArb, random proxier
// settings), parseTransaction of the printed transaction is the transaction itself, except that
// knftables writes a base chain's priority as its number (`dstnat-10` is written `-110`).
import { fc, test } from '@fast-check/vitest';
import { endpointSliceArb, proxierClusterArb, serviceArb } from '@kubesvc/testkit';
import { expect } from 'vitest';
import { nftablesProxierConfig } from '../config.js';
import { generateNftablesRules } from '../generate/generate.js';
import { parsePriority } from '../model/print.js';
import type { NftOperation } from '../model/types.js';
import { parseTransaction } from './parse-transaction.js';

function numericPriority(op: NftOperation): NftOperation {
  if (op.object.kind !== 'chain' || op.object.chain.priority === undefined) return op;
  const n = parsePriority(op.object.chain.priority);
  return n === undefined ? op : { ...op, object: { kind: 'chain', chain: { ...op.object.chain, priority: String(n) } } };
}

const clusterArb = fc.constantFrom(4 as const, 6 as const).chain((family) =>
  fc.tuple(fc.constant(family), proxierClusterArb(serviceArb(), endpointSliceArb(), family, 'test-node'), fc.boolean(), fc.boolean()),
);

test.prop([clusterArb], { numRuns: 60 })(
  'INV-NFT-READ-ROUNDTRIP: parseTransaction reads a generated cluster\'s printed transaction back as the transaction',
  ([family, cluster, detector, masqueradeAll]) => {
    const config = nftablesProxierConfig({
      nodeName: 'test-node',
      nodeIPs: family === 4 ? ['127.0.0.1', '192.168.0.2'] : ['::1', '2001:db8::2'],
      family,
      localDetector: detector ? { kind: 'cidr', cidr: family === 4 ? '10.244.0.0/16' : 'fd00:10:244::/64' } : { kind: 'none' },
      masqueradeAll,
      serviceCIDRs: family === 4 ? ['10.96.0.0/12', '172.30.0.0/16'] : ['fd00:10:96::/108'],
    });
    if (!config.ok) throw new Error(config.error.message);
    const rules = generateNftablesRules(cluster.services, cluster.slices, config.value);
    const read = parseTransaction(rules.text);
    if (!read.ok) throw new Error(`${read.error.message}\n${rules.text}`);
    expect(read.value).toEqual({ ...rules.transaction, operations: rules.transaction.operations.map(numericPriority) });
  },
);
