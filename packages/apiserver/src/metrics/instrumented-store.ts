// The store with each call timed into etcd_request_duration_seconds, as kube-apiserver's etcd3
// storage times each of its etcd calls. The operation is named as upstream names it: `get` for
// a read of one key (or a txn of reads only), `list` for a prefix, `create` for a write guarded
// by the key's absence, `delete`, and `update` for any other write; the group and resource are
// those whose key prefix the (first written) key falls under. On a SQLite store the histogram
// times the SQLite calls: the metric keeps its name, as the store keeps etcd's model.
// upstream (v1.33): staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go (Create, Get,
//           GetList, GuaranteedUpdate, conditionalDelete: metrics.RecordEtcdRequest around each
//           client call), staging/src/k8s.io/apiserver/pkg/storage/etcd3/metrics/metrics.go
import type { Compare, Store, TxnOp } from '@kubesvc/store';
import { RESOURCES, RESOURCE_NAMES, SECONDARY_SERVICE_IPS_KEY, SERVICE_IPS_KEY, SERVICE_NODE_PORTS_KEY } from '../registry/resources.js';
import type { ApiServerMetrics, StoreOperation } from './apiserver-metrics.js';

/** The group and resource a stored key belongs to. */
export function groupResourceOfKey(key: string): { readonly group: string; readonly resource: string } {
  for (const name of RESOURCE_NAMES) {
    const info = RESOURCES[name];
    if (key.startsWith(info.prefix)) return { group: info.group, resource: info.resource };
  }
  // The allocators' RangeAllocation objects, under the resources their storage is made for.
  // upstream: pkg/registry/core/service/allocator/storage/storage.go, pkg/controlplane/instance.go
  if (key === SERVICE_IPS_KEY || key === SECONDARY_SERVICE_IPS_KEY) return { group: '', resource: 'serviceipallocations' };
  if (key === SERVICE_NODE_PORTS_KEY) return { group: '', resource: 'servicenodeportallocations' };
  // Anything else: the path segment after /registry/.
  const rest = key.startsWith('/registry/') ? key.slice('/registry/'.length) : key;
  return { group: '', resource: rest.split('/')[0] ?? '' };
}

/** The operation a txn is reported as, and the key it is reported for. */
export function txnOperation(compares: readonly Compare[], onSuccess: readonly TxnOp[]): { readonly operation: StoreOperation; readonly key: string } {
  const write = onSuccess.find((op) => op.kind !== 'get');
  if (write === undefined) return { operation: 'get', key: onSuccess[0]?.key ?? compares[0]?.key ?? '' };
  if (write.kind === 'delete') return { operation: 'delete', key: write.key };
  const guardedByAbsence = compares.some((c) => c.key === write.key && (c.target === 'createRevision' || c.target === 'modRevision' || c.target === 'version') && c.op === '=' && c.value === 0);
  return { operation: guardedByAbsence ? 'create' : 'update', key: write.key };
}

/** `store` with get, range and txn timed into `metrics`; the other calls pass through untimed. */
export function instrumentStore(store: Store, metrics: Pick<ApiServerMetrics, 'now' | 'observeStore'>): Store {
  const timed = async <T>(operation: StoreOperation, key: string, call: () => Promise<T>): Promise<T> => {
    const start = metrics.now();
    try {
      return await call();
    } finally {
      const { group, resource } = groupResourceOfKey(key);
      metrics.observeStore(operation, group, resource, Math.max(0, metrics.now() - start));
    }
  };
  return {
    backend: store.backend,
    get: (key, options) => timed('get', key, () => store.get(key, options)),
    range: (prefix, options) => timed('list', prefix, () => store.range(prefix, options)),
    txn: (compares, onSuccess, onFailure) => {
      const { operation, key } = txnOperation(compares, onSuccess);
      return timed(operation, key, () => store.txn(compares, onSuccess, onFailure));
    },
    watch: (prefix, options) => store.watch(prefix, options),
    grant: (ttlSeconds) => store.grant(ttlSeconds),
    keepAlive: (id) => store.keepAlive(id),
    revoke: (id) => store.revoke(id),
    compact: (revision) => store.compact(revision),
    revision: () => store.revision(),
    close: () => store.close(),
  };
}
