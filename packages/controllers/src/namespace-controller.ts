// The namespace controller: a namespace whose deletion has begun (Terminating, with a
// deletionTimestamp) has its contents deleted and is then removed. The deletion itself is the
// registry's finalizeNamespace (every namespaced resource, Services giving back their IPs and
// ports, then the namespace with a compare-and-swap), asked for with one action.
// upstream: pkg/controller/namespace/namespace_controller.go (enqueueNamespace on add and
//           update, syncNamespaceFromKey), pkg/controller/namespace/deletion/
//           namespaced_resources_deleter.go (Delete: content, then the finalizer, then the object)
import type { Namespace } from '@kubesvc/api-types';
import type { CacheChange, CacheView, KeyedController, ReconcileAction } from './contract.js';

export const NAMESPACE_CONTROLLER_NAME = 'namespace';

function terminating(ns: Namespace | undefined): boolean {
  return ns !== undefined && (ns.metadata.deletionTimestamp !== undefined || ns.status?.phase === 'Terminating');
}

export const namespaceController: KeyedController = {
  name: NAMESPACE_CONTROLLER_NAME,
  watches: ['namespaces'],
  keysFor(change: CacheChange): readonly string[] {
    // upstream enqueues on add and update only; a deleted namespace has nothing left to do.
    if (change.type === 'DELETED') return [];
    const ns = change.object as Namespace;
    return terminating(ns) ? [ns.metadata.name ?? ''] : [];
  },
  reconcile(key: string, cache: CacheView): readonly ReconcileAction[] {
    const ns = cache.get<Namespace>('namespaces', '', key);
    return terminating(ns) ? [{ kind: 'finalize-namespace', name: key }] : [];
  },
};
