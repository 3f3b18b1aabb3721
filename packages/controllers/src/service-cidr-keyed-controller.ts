// The ServiceCIDR controller (service-cidr-controller.ts) as a KeyedController the runtime's
// controller runner hosts beside the others: its view is the informer's ServiceCIDRs and
// IPAddresses, and each of its writes becomes a ReconcileAction on the ServiceCIDR as the
// cache holds it.
// - add-finalizer, remove-finalizer: an update of the whole object with the finalizer merged in
//   or taken out, over the cached resourceVersion (upstream sends a strategic merge patch of
//   metadata.finalizers with no precondition; here a Conflict requeues the key with backoff and
//   the next reconcile reads the newer object: the same end state).
// - update-status: a /status update carrying the condition in place of the one of its type,
//   without a resourceVersion (upstream's forced server-side apply needs none either). The
//   Warning upstream records when that write fails has no ReconcileAction: the runner logs the
//   failure and requeues instead (docs/deviations.md).
// - requeue-after: as it is.
// Only the first write of a reconcile goes out (the finalizer, say): it changes the object, the
// change queues the key again, and the next reconcile makes the next write (the status), over
// the object as it is then.
// upstream (v1.33): pkg/controller/servicecidrs/servicecidrs_controller.go,
//           cmd/kube-controller-manager/app/networking.go (startServiceCIDRsController)
import type { IPAddress, KubeObject, ServiceCIDR } from '@kubesvc/api-types';
import type { CacheChange, CacheView, KeyedController, ReconcileAction } from './contract.js';
import { applyServiceCIDRAction, serviceCIDRController, type ServiceCIDRChange, type ServiceCIDRView } from './service-cidr-controller.js';

/**
 * The view; the IPAddresses are listed only when read: only a ServiceCIDR being deleted looks at
 * them (canDeleteServiceCIDR), and a list of every IPAddress on each IPAddress change made the
 * controller's work grow with the square of the Services.
 */
function viewOf(cache: CacheView): ServiceCIDRView {
  let ipAddresses: readonly IPAddress[] | undefined;
  return {
    serviceCIDRs: cache.list<ServiceCIDR>('servicecidrs'),
    get ipAddresses() {
      ipAddresses ??= cache.list<IPAddress>('ipaddresses');
      return ipAddresses;
    },
  };
}

function changeOf(change: CacheChange): ServiceCIDRChange | undefined {
  if (change.resource === 'servicecidrs') {
    return { resource: 'servicecidrs', type: change.type, object: change.object as ServiceCIDR, ...(change.old === undefined ? {} : { old: change.old as ServiceCIDR }) };
  }
  if (change.resource === 'ipaddresses') {
    return { resource: 'ipaddresses', type: change.type, object: change.object as IPAddress, ...(change.old === undefined ? {} : { old: change.old as IPAddress }) };
  }
  return undefined;
}

function reconcile(key: string, cache: CacheView, now: number): readonly ReconcileAction[] {
  const cached = cache.get<ServiceCIDR>('servicecidrs', '', key);
  const out: ReconcileAction[] = [];
  for (const action of serviceCIDRController.reconcile(key, viewOf(cache), now)) {
    if (action.kind === 'requeue-after') {
      out.push(action);
      continue;
    }
    if (cached === undefined) break;
    // Each write is made over the cached resourceVersion, so only the first goes out: the
    // change it makes queues the key again, and the next reconcile asks for the rest.
    const next = applyServiceCIDRAction(cached, action);
    if (action.kind === 'update-status') {
      // Unconditional, as upstream's forced apply: another writer's status (the apiserver's
      // default ServiceCIDR controller) is no reason to fail.
      const { resourceVersion: _rv, ...metadata } = next.metadata;
      out.push({ kind: 'update', resource: 'servicecidrs', namespace: '', object: { ...next, metadata } as KubeObject, subresource: 'status' });
    } else {
      out.push({ kind: 'update', resource: 'servicecidrs', namespace: '', object: next as KubeObject });
    }
    break;
  }
  return out;
}

/** The ServiceCIDR controller on the keyed-controller contract; it watches servicecidrs and ipaddresses. */
export function serviceCIDRKeyedController(): KeyedController {
  return {
    name: serviceCIDRController.name,
    watches: serviceCIDRController.watches,
    keysFor(change, cache) {
      const c = changeOf(change);
      return c === undefined ? [] : serviceCIDRController.keysFor(c, viewOf(cache));
    },
    reconcile,
  };
}
