// Clusters for a proxier's real-kernel checks: Services from serviceArb, each with 0 to 2
// EndpointSlices of the proxier's family that belong to it (its namespace, the service-name
// label, one slice port per service port), and some endpoints on the proxier's node, so that
// Local traffic policies have local endpoints. Every proxy backend's tests pair it with their
// own proxier settings.
import { fc } from '@fast-check/vitest';
import type { EndpointSlice, Service } from '@kubesvc/api-types';

export interface ProxierCluster {
  readonly services: readonly Service[];
  readonly slices: readonly EndpointSlice[];
}

function slicesFor(service: Service, sliceArb: fc.Arbitrary<EndpointSlice>, family: 4 | 6, nodeName: string): fc.Arbitrary<EndpointSlice[]> {
  const addressType = family === 4 ? 'IPv4' : 'IPv6';
  const namespace = service.metadata.namespace ?? 'default';
  const name = service.metadata.name ?? 'svc';
  const ports = service.spec?.ports ?? [];
  const one = fc
    .tuple(
      sliceArb.filter((s) => s.addressType === addressType),
      fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
      fc.array(fc.integer({ min: 1, max: 65535 }), { minLength: ports.length, maxLength: ports.length }),
    )
    .map(([slice, local, targetPorts]): EndpointSlice => ({
      ...slice,
      metadata: { namespace, name: `${name}-x`, labels: { 'kubernetes.io/service-name': name } },
      endpoints: (slice.endpoints ?? []).map((e, i) => (local[i] === true ? { ...e, nodeName } : e)),
      ports: ports.map((p, i) => ({ name: p.name ?? '', port: targetPorts[i] ?? 80, protocol: p.protocol ?? 'TCP' })),
    }));
  return fc.array(one, { maxLength: 2 }).map((slices) => slices.map((s, i) => ({ ...s, metadata: { ...s.metadata, name: `${name}-${i}` } })));
}

/** 1 to 5 Services with distinct names and their slices of `family`; endpoints on `nodeName` are local. */
export function proxierClusterArb(
  serviceArb: fc.Arbitrary<Service>,
  sliceArb: fc.Arbitrary<EndpointSlice>,
  family: 4 | 6,
  nodeName: string,
): fc.Arbitrary<ProxierCluster> {
  return fc
    .uniqueArray(serviceArb, {
      minLength: 1,
      maxLength: 5,
      selector: (s) => `${s.metadata.namespace ?? 'default'}/${s.metadata.name ?? ''}`,
    })
    .chain((services) => fc.tuple(...services.map((s) => slicesFor(s, sliceArb, family, nodeName))).map((slices) => ({ services, slices: slices.flat() })));
}
