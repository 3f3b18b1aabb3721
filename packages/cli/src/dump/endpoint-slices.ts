// The EndpointSlices kube-proxy would see for a dump. kube-proxy reads EndpointSlices only; a
// dump taken with `kubectl get svc,endpoints` has Endpoints instead. For a Service that has no
// EndpointSlice in the dump, its Endpoints are turned into slices the way the EndpointSlice
// mirroring controller does, so that both kinds of dump give the same rules. Pure.
// upstream: pkg/controller/endpointslicemirroring/utils.go (newEndpointSlice,
//   addressToEndpoint: ready addresses are ready, notReadyAddresses are not),
//   reconciler.go (one slice per subset and address type)
import { parseIP, type EndpointSlice, type Endpoints } from '@kubesvc/api-types';
import type { Dump } from './load-dump.js';

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

type Address = NonNullable<NonNullable<Endpoints['subsets']>[number]['addresses']>[number];

function addressType(ip: string): 'IPv4' | 'IPv6' | undefined {
  const parsed = parseIP(ip);
  if (!parsed.ok) return undefined;
  return ip.includes(':') ? 'IPv6' : 'IPv4';
}

type SliceEndpoint = NonNullable<EndpointSlice['endpoints']>[number];

function endpointOf(address: Address, ready: boolean): SliceEndpoint {
  return {
    addresses: [address.ip],
    conditions: { ready },
    ...(address.hostname !== undefined ? { hostname: address.hostname } : {}),
    ...(address.nodeName !== undefined ? { nodeName: address.nodeName } : {}),
    ...(address.targetRef !== undefined ? { targetRef: address.targetRef } : {}),
  };
}

/** The slices mirrored from one Endpoints object. */
export function mirrorEndpoints(endpoints: Endpoints): EndpointSlice[] {
  const namespace = endpoints.metadata.namespace ?? 'default';
  const name = endpoints.metadata.name ?? '';
  const out: EndpointSlice[] = [];
  (endpoints.subsets ?? []).forEach((subset, s) => {
    for (const family of ['IPv4', 'IPv6'] as const) {
      const pick = (list: readonly Address[] | undefined, ready: boolean) =>
        (list ?? []).filter((a) => addressType(a.ip) === family).map((a) => endpointOf(a, ready));
      const list = [...pick(subset.addresses, true), ...pick(subset.notReadyAddresses, false)];
      if (list.length === 0) continue;
      out.push({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { namespace, name: `${name}-mirrored-${s}-${family.toLowerCase()}`, labels: { [SERVICE_NAME_LABEL]: name } },
        addressType: family,
        endpoints: list,
        ports: (subset.ports ?? []).map((p) => ({
          ...(p.name !== undefined ? { name: p.name } : {}),
          port: p.port,
          protocol: p.protocol ?? 'TCP',
        })),
      });
    }
  });
  return out;
}

/** The dump's EndpointSlices, and mirrored slices for the Services that have Endpoints but no slice. */
export function endpointSlicesForProxy(dump: Pick<Dump, 'endpointSlices' | 'endpoints'>): EndpointSlice[] {
  const withSlices = new Set<string>();
  for (const slice of dump.endpointSlices) {
    const service = slice.metadata.labels?.[SERVICE_NAME_LABEL];
    if (service !== undefined) withSlices.add(`${slice.metadata.namespace ?? 'default'}/${service}`);
  }
  const mirrored = dump.endpoints
    .filter((e) => !withSlices.has(`${e.metadata.namespace ?? 'default'}/${e.metadata.name ?? ''}`))
    .flatMap(mirrorEndpoints);
  return mirrored.length === 0 ? [...dump.endpointSlices] : [...dump.endpointSlices, ...mirrored];
}
