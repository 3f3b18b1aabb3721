// Rules every backend applies to reads, txns and leases the same way, as etcd applies them.
import { ErrCompacted, ErrDuplicateKey, ErrFutureRevision, ErrLeaseNotFound } from './errors.js';
import { compareKeys } from './key-order.js';
import type { Compare, KeyValue, LeaseId, PutValue, TxnOp } from './types.js';

const utf8 = new TextDecoder();

/** A put's value as the text it stands for (PutValue: bytes are its UTF-8). */
export function putValueText(value: PutValue): string {
  return typeof value === 'string' ? value : utf8.decode(value);
}

/**
 * The revision a read is served at: the current one (`revision` absent or <= 0), or a checked
 * historic one. etcd serves a read at exactly the compacted revision, since compaction keeps
 * that state. upstream: etcd server/storage/mvcc/kvstore_txn.go rangeKeys.
 */
export function readRevision(revision: number | undefined, current: number, compacted: number): number {
  if (revision === undefined || revision <= 0) return current;
  if (revision > current) throw new ErrFutureRevision(revision);
  if (revision < compacted) throw new ErrCompacted(revision, compacted);
  return revision;
}

/**
 * A compaction must name a revision that exists and is above the last compaction.
 * upstream: etcd server/storage/mvcc/kvstore.go updateCompactRev (ErrFutureRev, ErrCompacted).
 */
export function checkCompact(revision: number, current: number, compacted: number): void {
  if (revision > current) throw new ErrFutureRevision(revision);
  if (revision <= compacted) throw new ErrCompacted(revision, compacted);
}

/** A lease TTL must be a whole number of seconds, at least 1. */
export function checkTtl(ttlSeconds: number): void {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) throw new RangeError(`lease TTL must be a whole number of seconds >= 1, got ${ttlSeconds}`);
}

/**
 * The branch a txn runs, checked before anything is written: no key written twice, and every
 * lease a put names exists (etcd refuses the whole txn otherwise).
 */
export function txnBranch(
  compares: readonly Compare[],
  current: (key: string) => KeyValue | undefined,
  onSuccess: readonly TxnOp[],
  onFailure: readonly TxnOp[],
  leaseExists: (id: LeaseId) => boolean,
): { readonly succeeded: boolean; readonly ops: readonly TxnOp[] } {
  const succeeded = compares.every((c) => compareHolds(c, current(c.key)));
  const ops = succeeded ? onSuccess : onFailure;
  checkDuplicateWrites(ops);
  for (const op of ops) {
    if (op.kind === 'put' && op.lease !== undefined && !leaseExists(op.lease)) throw new ErrLeaseNotFound(op.lease);
  }
  return { succeeded, ops };
}

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
