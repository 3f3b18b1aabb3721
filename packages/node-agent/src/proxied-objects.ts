// Which objects kube-proxy acts on, and its informer events as proxy-iptables' ProxyChange.
// upstream: cmd/kube-proxy/app/server.go (the informers' label selector
//           `!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless`),
//           pkg/proxy/config/config.go (the Service and EndpointSlice handlers)
import type { EndpointSlice, KubeObject, Service } from '@kubesvc/api-types';
import type { ProxyChange } from '@kubesvc/proxy-iptables';
import type { CacheChange, CacheView } from '@kubesvc/controllers';

/** A Service or slice with this label belongs to another proxy. */
export const LABEL_SERVICE_PROXY_NAME = 'service.kubernetes.io/service-proxy-name';
/** The EndpointSlice controller sets it on the slices of headless Services. */
export const LABEL_HEADLESS = 'service.kubernetes.io/headless';

function labels(object: KubeObject): Readonly<Record<string, string>> {
  return (object as { metadata?: { labels?: Record<string, string> } }).metadata?.labels ?? {};
}

/** Whether kube-proxy's informers deliver the object at all. */
export function isProxied(object: KubeObject, resource: 'services' | 'endpointslices'): boolean {
  const l = labels(object);
  if (LABEL_SERVICE_PROXY_NAME in l) return false;
  return resource === 'services' || !(LABEL_HEADLESS in l);
}

/** The Services and EndpointSlices kube-proxy sees in the cache, in key order. */
export function proxiedObjects(cache: CacheView): { readonly services: Service[]; readonly endpointSlices: EndpointSlice[] } {
  return {
    services: cache.list<Service>('services').filter((s) => isProxied(s, 'services')),
    endpointSlices: cache.list<EndpointSlice>('endpointslices').filter((s) => isProxied(s, 'endpointslices')),
  };
}

/**
 * The handler calls one informer change makes. An object whose label moves it in or out of
 * kube-proxy's selector arrives as an add or a delete, as a filtered watch reports it.
 */
export function proxyChanges(change: CacheChange): readonly ProxyChange[] {
  if (change.resource !== 'services' && change.resource !== 'endpointslices') return [];
  const resource = change.resource;
  const now = change.type !== 'DELETED' && isProxied(change.object, resource);
  const before = change.old !== undefined && isProxied(change.old, resource);
  const kind = now ? (change.type === 'MODIFIED' && before ? 'Update' : 'Add') : before || change.type === 'DELETED' ? 'Delete' : undefined;
  if (kind === undefined) return [];
  const object = kind === 'Delete' ? (change.old ?? change.object) : change.object;
  if (resource === 'services') return [{ kind: `Service${kind}`, service: object as Service }];
  return [{ kind: `EndpointSlice${kind}`, endpointSlice: object as EndpointSlice }];
}
