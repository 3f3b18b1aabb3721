// Test-only (excluded from the library build): clusters for the rule generator, built from
// the testkit's Service and EndpointSlice arbitraries (passed in, so that this file needs
// no testkit import). Each Service gets 0 to 2 EndpointSlices of the proxier's family that
// belong to it (namespace, service-name label, one slice port per service port), and some
// endpoints sit on the proxier's node, so that Local policies have local endpoints.

import { fc } from '@fast-check/vitest';
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import type { ProxierConfig } from '../proxier-config.js';
import { validConfig } from '../proxier-config.fixtures.js';

export const NODE_NAME = 'test-node';

export interface Cluster {
  readonly services: readonly Service[];
  readonly slices: readonly EndpointSlice[];
  readonly config: ProxierConfig;
}

function slicesFor(
  service: Service,
  sliceArb: fc.Arbitrary<EndpointSlice>,
  family: 4 | 6,
): fc.Arbitrary<EndpointSlice[]> {
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
      endpoints: (slice.endpoints ?? []).map((e, i) => (local[i] === true ? { ...e, nodeName: NODE_NAME } : e)),
      ports: ports.map((p, i) => ({ name: p.name ?? '', port: targetPorts[i] ?? 80, protocol: p.protocol ?? 'TCP' })),
    }));
  return fc.array(one, { maxLength: 2 }).map((slices) => slices.map((s, i) => ({ ...s, metadata: { ...s.metadata, name: `${name}-${i}` } })));
}

function configArb(family: 4 | 6): fc.Arbitrary<ProxierConfig> {
  return fc
    .record({
      detector: fc.boolean(),
      masqueradeAll: fc.boolean(),
      randomFully: fc.boolean(),
      localhostNodePorts: fc.boolean(),
      conntrackTCPLiberal: fc.boolean(),
      old: fc.boolean(),
    })
    .map((o) =>
      validConfig({
        nodeName: NODE_NAME,
        nodeIPs: family === 4 ? ['127.0.0.1', '192.168.0.2'] : ['::1', '2001:db8::2'],
        family,
        localDetector: o.detector ? { kind: 'cidr', cidr: family === 4 ? '10.244.0.0/16' : 'fd00:10:244::/64' } : { kind: 'none' },
        masqueradeAll: o.masqueradeAll,
        randomFully: o.randomFully,
        localhostNodePorts: o.localhostNodePorts,
        conntrackTCPLiberal: o.conntrackTCPLiberal,
        probabilityFormat: o.old ? 'old' : 'modern',
        // The real kernel refuses -m nfacct for a counter nobody created.
        nfacctCounters: false,
      }),
    );
}

export function clusterArb(
  serviceArb: fc.Arbitrary<Service>,
  sliceArb: fc.Arbitrary<EndpointSlice>,
  family: 4 | 6,
): fc.Arbitrary<Cluster> {
  return fc
    .tuple(
      fc.uniqueArray(serviceArb, {
        minLength: 1,
        maxLength: 5,
        selector: (s) => `${s.metadata.namespace ?? 'default'}/${s.metadata.name ?? ''}`,
      }),
      configArb(family),
    )
    .chain(([services, config]) =>
      fc.tuple(...services.map((s) => slicesFor(s, sliceArb, family))).map((slices) => ({ services, slices: slices.flat(), config })),
    );
}
