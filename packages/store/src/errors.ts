// Store failures. The store is shell code, so its failures are thrown (rejected promises),
// as typed errors a caller can tell apart by `_tag`; the API layer turns ErrCompacted into
// 410 Gone. The messages are etcd's (server/etcdserver/api/v3rpc/rpctypes/error.go).

export class ErrCompacted extends Error {
  readonly _tag = 'ErrCompacted' as const;
  constructor(
    readonly requestedRevision: number,
    readonly compactRevision: number,
  ) {
    super('etcdserver: mvcc: required revision has been compacted');
    this.name = 'ErrCompacted';
  }
}

export class ErrFutureRevision extends Error {
  readonly _tag = 'ErrFutureRevision' as const;
  constructor(readonly requestedRevision: number) {
    super('etcdserver: mvcc: required revision is a future revision');
    this.name = 'ErrFutureRevision';
  }
}

export class ErrLeaseNotFound extends Error {
  readonly _tag = 'ErrLeaseNotFound' as const;
  constructor(readonly leaseId: string) {
    super('etcdserver: requested lease not found');
    this.name = 'ErrLeaseNotFound';
  }
}

export class ErrStoreClosed extends Error {
  readonly _tag = 'ErrStoreClosed' as const;
  constructor() {
    super('store is closed');
    this.name = 'ErrStoreClosed';
  }
}

/** A txn branch wrote one key twice (etcd refuses the whole request). */
export class ErrDuplicateKey extends Error {
  readonly _tag = 'ErrDuplicateKey' as const;
  constructor(readonly key: string) {
    super('etcdserver: duplicate key given in txn request');
    this.name = 'ErrDuplicateKey';
  }
}

export type StoreError = ErrCompacted | ErrFutureRevision | ErrLeaseNotFound | ErrStoreClosed | ErrDuplicateKey;
