// The EndpointsAdapter: every write of the kubernetes Endpoints is mirrored into an
// EndpointSlice of the same name, because the EndpointSlice mirroring controller is told to
// skip this object. upstream: pkg/controlplane/reconcilers/endpointsadapter.go (v1.21–v1.26,
// before the dual-stack rewrite), setSkipMirrorTrue and endpointSliceFromEndpoints.
import { isIPv6, LABEL_SERVICE_NAME, repackSubsets } from '@kubesvc/api-types';
import type { DiscoveryEndpoint, DiscoveryEndpointPort, EndpointAddress, EndpointPort, EndpointSlice, EndpointSubset, Endpoints } from '@kubesvc/api-types';
import { SKIP_MIRROR_LABEL } from './constants.js';
import { semanticEqual } from '@kubesvc/api-types';
import type { EndpointWrite, ObservedEndpoints, ReconcileOutcome, ReconcileRequest } from './types.js';

/** The namespace of the apiserver's own service. upstream: metav1.NamespaceDefault */
export const SERVICE_NAMESPACE = 'default';

function allIPv6(addresses: readonly EndpointAddress[]): boolean {
  return addresses.length > 0 && addresses.every((a) => isIPv6(a.ip));
}

function discoveryEndpoints(addresses: readonly EndpointAddress[], ipv6: boolean, ready: boolean): DiscoveryEndpoint[] {
  // An address of the other family has no place in a single-family slice: it is dropped.
  return addresses
    .filter((a) => isIPv6(a.ip) === ipv6)
    .map((a) => ({
      addresses: [a.ip],
      conditions: { ready },
      ...(a.targetRef === undefined ? {} : { targetRef: a.targetRef }),
      ...(a.nodeName === undefined ? {} : { nodeName: a.nodeName }),
    }));
}

function discoveryPort(p: EndpointPort): DiscoveryEndpointPort {
  // Upstream takes pointers to the Endpoints port's fields, so an unset name is "", and the
  // Endpoints it mirrors came back from the apiserver, whose defaulting made an unset protocol TCP.
  return { port: p.port, name: p.name ?? '', protocol: p.protocol ?? 'TCP' };
}

/**
 * The EndpointSlice that mirrors `endpoints`: same name and namespace, labelled
 * `kubernetes.io/service-name: <name>`, addressType IPv6 only if every address (ready or not)
 * is IPv6, one endpoint per address (ready ones first, `conditions.ready` true), the ports of
 * the first subset. Go leaves empty lists nil, so they print as null.
 */
export function endpointSliceFor(endpoints: Endpoints): EndpointSlice {
  const name = endpoints.metadata.name ?? '';
  const subset = endpoints.subsets?.[0];
  const ready = subset?.addresses ?? [];
  const notReady = subset?.notReadyAddresses ?? [];
  const ipv6 = allIPv6([...ready, ...notReady]);
  const eps = [...discoveryEndpoints(ready, ipv6, true), ...discoveryEndpoints(notReady, ipv6, false)];
  const ports = (subset?.ports ?? []).map(discoveryPort);
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name,
      ...(endpoints.metadata.namespace === undefined ? {} : { namespace: endpoints.metadata.namespace }),
      labels: { [LABEL_SERVICE_NAME]: name },
    },
    addressType: ipv6 ? 'IPv6' : 'IPv4',
    endpoints: eps.length > 0 ? eps : null,
    ports: ports.length > 0 ? ports : null,
  };
}

/**
 * upstream: EnsureEndpointSliceFromEndpoints. Create the slice when missing; delete and create
 * it when its addressType changed (addressType is immutable); update it when its endpoints,
 * ports or labels differ; otherwise nothing. The slice is rebuilt from scratch, so its update
 * and delete carry no resourceVersion (EndpointSlice allows unconditional updates).
 */
export function endpointSliceWrites(endpoints: Endpoints, current: EndpointSlice | undefined): EndpointWrite[] {
  const desired = endpointSliceFor(endpoints);
  if (current === undefined) return [{ kind: 'create-endpointslice', endpointSlice: desired }];
  if (current.addressType !== desired.addressType) {
    return [
      { kind: 'delete-endpointslice', namespace: desired.metadata.namespace ?? SERVICE_NAMESPACE, name: desired.metadata.name ?? '', resourceVersion: undefined },
      { kind: 'create-endpointslice', endpointSlice: desired },
    ];
  }
  if (
    semanticEqual(current.endpoints, desired.endpoints) &&
    semanticEqual(current.ports, desired.ports) &&
    semanticEqual(current.metadata.labels, desired.metadata.labels)
  ) {
    return [];
  }
  return [{ kind: 'update-endpointslice', endpointSlice: desired, resourceVersion: undefined }];
}

/** upstream: setSkipMirrorTrue, without mutating. */
export function withSkipMirror(e: Endpoints): { readonly endpoints: Endpoints; readonly changed: boolean } {
  if (e.metadata.labels?.[SKIP_MIRROR_LABEL] === 'true') return { endpoints: e, changed: false };
  return { endpoints: { ...e, metadata: { ...e.metadata, labels: { ...e.metadata.labels, [SKIP_MIRROR_LABEL]: 'true' } } }, changed: true };
}

/** The object upstream starts from when Get says NotFound: default/<serviceName>, nothing else. */
export function newServiceEndpoints(serviceName: string): Endpoints {
  return { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: serviceName, namespace: SERVICE_NAMESPACE } };
}

/**
 * What Get(default, serviceName) would return: the observed objects count only when they are
 * default/<serviceName> (a caller that hands over another object gets NotFound semantics).
 */
export function observedFor(req: Pick<ReconcileRequest, 'serviceName' | 'observed'>): ObservedEndpoints {
  const ours = (m: { name?: string | undefined; namespace?: string | undefined }): boolean =>
    m.name === req.serviceName && (m.namespace ?? SERVICE_NAMESPACE) === SERVICE_NAMESPACE;
  const { endpoints, endpointSlice } = req.observed;
  return {
    endpoints: endpoints !== undefined && ours(endpoints.metadata) ? endpoints : undefined,
    endpointSlice: endpointSlice !== undefined && ours(endpointSlice.metadata) ? endpointSlice : undefined,
  };
}

/** upstream: EndpointsAdapter.Create / Update: write the Endpoints, then ensure its slice. */
export function writeEndpoints(
  action: 'create' | 'update',
  endpoints: Endpoints,
  current: ObservedEndpoints,
): ReconcileOutcome {
  const first: EndpointWrite =
    action === 'create'
      ? { kind: 'create-endpoints', endpoints }
      : { kind: 'update-endpoints', endpoints, resourceVersion: current.endpoints?.metadata.resourceVersion };
  return { action, writes: [first, ...endpointSliceWrites(endpoints, current.endpointSlice)] };
}

/** upstream: the reconcilers' no-change path, which still ensures the slice. */
export function ensureSliceOnly(endpoints: Endpoints, current: ObservedEndpoints): ReconcileOutcome {
  return { action: 'none', writes: endpointSliceWrites(endpoints, current.endpointSlice) };
}

/**
 * Go's `port != sub.Ports[i]` on corev1.EndpointPort: name, port and protocol by value, and
 * AppProtocol, a *string, by pointer, so two ports that both set it never compare equal.
 */
export function endpointPortEqual(a: EndpointPort, b: EndpointPort): boolean {
  return (
    (a.name ?? '') === (b.name ?? '') &&
    a.port === b.port &&
    (a.protocol ?? '') === (b.protocol ?? '') &&
    a.appProtocol === undefined &&
    b.appProtocol === undefined
  );
}

export function endpointPortsEqual(actual: readonly EndpointPort[] | undefined, wanted: readonly EndpointPort[]): boolean {
  const have = actual ?? [];
  return have.length === wanted.length && wanted.every((p, i) => {
    const h = have[i];
    return h !== undefined && endpointPortEqual(p, h);
  });
}

/**
 * upstream's RepackSubsets (api-types) over the subsets that have ports. The reconcilers only
 * repack the kubernetes Endpoints, whose subset always has the apiserver's ports; one without
 * them is a wrong format, so its addresses are dropped here and the callers write a fresh
 * subset (docs/deviations.md).
 */
export function repackPortedSubsets(subsets: readonly EndpointSubset[]): EndpointSubset[] {
  return repackSubsets(subsets.filter((s) => (s.ports ?? []).length > 0));
}
