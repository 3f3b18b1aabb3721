// Rules every backend applies to a txn the same way, as etcd applies them.
import { ErrDuplicateKey } from './errors.js';
import { compareKeys } from './key-order.js';
import type { Compare, KeyValue, TxnOp } from './types.js';

function ordered(op: Compare['op'], c: number): boolean {
  switch (op) {
    case '=':
      return c === 0;
    case '!=':
      return c !== 0;
    case '<':
      return c < 0;
    case '>':
      return c > 0;
  }
}

/**
 * Whether `compare` holds for the key's current value (`kv` absent: the key does not exist).
 * upstream: etcd server/etcdserver/txn/txn.go applyCompare: a missing key compares as a
 * KeyValue of zeros (createRevision, modRevision and version 0), except that a comparison on
 * its value always fails, whatever the operator ("nil == empty string in grpc; no way to
 * represent missing value").
 */
export function compareHolds(compare: Compare, kv: KeyValue | undefined): boolean {
  if (compare.target === 'value') {
    if (kv === undefined) return false;
    return ordered(compare.op, compareKeys(kv.value, compare.value));
  }
  const actual = kv === undefined ? 0 : kv[compare.target];
  return ordered(compare.op, actual - compare.value);
}

/**
 * A txn branch may not write one key twice. upstream: etcd server/etcdserver/api/v3rpc/key.go
 * checkTxnReqsPermission/checkIntervals, rpctypes.ErrGRPCDuplicateKey.
 */
export function checkDuplicateWrites(ops: readonly TxnOp[]): void {
  const written = new Set<string>();
  for (const op of ops) {
    if (op.kind === 'get') continue;
    if (written.has(op.key)) throw new ErrDuplicateKey(op.key);
    written.add(op.key);
  }
}
