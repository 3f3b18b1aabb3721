// Arbitraries for the v1 objects of @kubesvc/api-types: objects that upstream's validation
// accepts, built valid by construction and already defaulted, as the apiserver stores them.
// "One rule broken" mutants of them are in mutants.ts.
import { fc } from '@fast-check/vitest';
import {
  defaultEndpointSlice,
  defaultEndpoints,
  defaultNamespace,
  defaultPod,
  defaultService,
  encodeRangeAllocationBytes,
  IP_ADDRESS_LABEL_FAMILY,
  IP_ADDRESS_LABEL_MANAGED_BY,
  IP_ALLOCATOR_CONTROLLER_NAME,
  PROTOCOLS,
  SERVICE_CIDR_API_VERSION,
  SERVICE_CIDR_CONDITION_READY,
  type EndpointSlice,
  type Endpoints,
  type Event,
  type IPAddress,
  type KubeObject,
  type Namespace,
  type ObjectMeta,
  type Pod,
  type RangeAllocation,
  type Service,
  type ServicePort,
  type ServiceCIDR,
  type ServiceSpec,
  type Status,
} from '@kubesvc/api-types';
import { dns1035LabelArb, dns1123LabelArb, dns1123SubdomainArb, ianaSvcNameArb, labelsArb } from './names.js';
import { canonicalCIDRText, canonicalIPText, cidrArb, ipArb } from './net.js';

const optional = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined });

/** Drops undefined fields, so that generated objects look like decoded ones. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

const timestampArb = fc
  .date({ min: new Date('2015-07-21T00:00:00Z'), max: new Date('2035-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z'));

const uidArb = fc.uuid({ version: 4 });

export function objectMetaArb(options: { name?: fc.Arbitrary<string>; namespaced?: boolean } = {}): fc.Arbitrary<ObjectMeta> {
  return fc
    .record({
      name: options.name ?? dns1123SubdomainArb(),
      namespace: options.namespaced === false ? fc.constant(undefined) : dns1123LabelArb(20),
      uid: optional(uidArb),
      resourceVersion: optional(fc.nat({ max: 10_000_000 }).map(String)),
      creationTimestamp: optional(timestampArb),
      labels: optional(labelsArb()),
      annotations: optional(labelsArb(2)),
    })
    .map(compact);
}

/** An IPv4 address in 10.96.0.0/12 (a typical service CIDR), never its network or broadcast address. */
export const serviceIPv4Arb = fc.integer({ min: 1, max: (1 << 20) - 2 }).map((n) => `10.${96 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`);
/** An IPv6 address in fd00:10:96::/112. */
export const serviceIPv6Arb = fc.integer({ min: 1, max: 0xffff }).map((n) => `fd00:10:96::${n.toString(16)}`);
/** A pod IP, 10.244.0.0/16 or fd00:10:244::/64, never special. */
export const podIPv4Arb = fc.integer({ min: 1, max: 0xfffe }).map((n) => `10.244.${n >> 8}.${n & 255}`);
export const podIPv6Arb = fc.integer({ min: 1, max: 0xffff }).map((n) => `fd00:10:244::${n.toString(16)}`);
/** A public address for externalIPs and load-balancer ingress (documentation ranges). */
export const publicIPArb = fc.oneof(
  fc.integer({ min: 1, max: 254 }).map((n) => `203.0.113.${n}`),
  fc.integer({ min: 1, max: 0xffff }).map((n) => `2001:db8::${n.toString(16)}`),
);
const sourceRangeArb = fc.oneof(
  fc.integer({ min: 0, max: 255 }).map((n) => `198.51.${n}.0/24`),
  fc.constant('0.0.0.0/0'),
  fc.integer({ min: 1, max: 0xffff }).map((n) => `2001:db8:${n.toString(16)}::/48`),
);

const PROTOCOL = fc.constantFrom(...PROTOCOLS);
type ValidServiceType = 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'ExternalName';

function portsArb(type: ValidServiceType, min: number): fc.Arbitrary<ServicePort[]> {
  const external = type === 'NodePort' || type === 'LoadBalancer';
  const one = fc.record({
    port: fc.integer({ min: 1, max: 65535 }),
    protocol: PROTOCOL,
    targetPort: fc.oneof(fc.integer({ min: 1, max: 65535 }), ianaSvcNameArb()),
    nodePort: external ? optional(fc.integer({ min: 30000, max: 32767 })) : fc.constant(undefined),
    appProtocol: optional(fc.constantFrom('http', 'https', 'kubernetes.io/h2c', 'example.com/custom')),
  }, { noNullPrototype: true });
  return fc
    .uniqueArray(one, {
      minLength: min,
      maxLength: 4,
      // Upstream refuses a repeated (port, protocol) and a repeated (nodePort, protocol).
      selector: (p) => `${p.port}/${p.protocol}`,
    })
    .chain((ports) =>
      fc
        .tuple(fc.uniqueArray(dns1123LabelArb(15), { minLength: ports.length, maxLength: ports.length }), fc.boolean())
        // A lone port may go unnamed; with several, upstream requires every name.
        .map(([names, named]) => ports.map((p, i): ServicePort => compact({ ...p, ...(ports.length > 1 || named ? { name: names[i] ?? `p${i}` } : {}) }))),
    )
    .map((ports) => {
      const seen = new Set<string>();
      return ports.map((p) => {
        if (p.nodePort === undefined) return p;
        const key = `${p.nodePort}/${p.protocol}`;
        if (seen.has(key)) {
          const { nodePort: _dropped, ...rest } = p;
          return rest;
        }
        seen.add(key);
        return p;
      });
    });
}

function clusterIPFields(type: ValidServiceType): fc.Arbitrary<Partial<ServiceSpec>> {
  const allocated = fc.oneof(serviceIPv4Arb.map((ip) => [ip, 'IPv4'] as const), serviceIPv6Arb.map((ip) => [ip, 'IPv6'] as const));
  const options: fc.Arbitrary<Partial<ServiceSpec>>[] = [
    // Not yet allocated: the registry fills these in.
    fc.constant({}),
    allocated.map(([ip, family]) => ({ clusterIP: ip, clusterIPs: [ip], ipFamilies: [family], ipFamilyPolicy: 'SingleStack' })),
  ];
  if (type === 'ClusterIP') {
    options.push(fc.constant({ clusterIP: 'None', clusterIPs: ['None'] }));
  }
  return fc.oneof(...options);
}

/** A Service that validates clean, defaulted as the apiserver stores it. */
export function serviceArb(): fc.Arbitrary<Service> {
  return fc
    .constantFrom<ValidServiceType>('ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName')
    .chain((type) =>
      fc
        .record({
          metadata: objectMetaArb({ name: dns1035LabelArb() }),
          ip: type === 'ExternalName' ? fc.constant({}) : clusterIPFields(type),
          ports: portsArb(type, type === 'ExternalName' ? 0 : 1),
          selector: optional(labelsArb()),
          affinity: fc.oneof(
            fc.constant({}),
            fc.integer({ min: 1, max: 86400 }).map((t) => ({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: t } } })),
          ),
          externalIPs: type === 'ExternalName' ? fc.constant(undefined) : optional(fc.uniqueArray(publicIPArb, { minLength: 1, maxLength: 2 })),
          externalName: type === 'ExternalName' ? dns1123SubdomainArb() : fc.constant(undefined),
          local: fc.boolean(),
          healthCheckNodePort: fc.integer({ min: 30000, max: 32767 }),
          publishNotReadyAddresses: optional(fc.boolean()),
          sourceRanges: type === 'LoadBalancer' ? optional(fc.uniqueArray(sourceRangeArb, { minLength: 1, maxLength: 3 })) : fc.constant(undefined),
          ingress: type === 'LoadBalancer' ? optional(fc.uniqueArray(publicIPArb, { minLength: 1, maxLength: 2 })) : fc.constant(undefined),
        })
        .map((g): Service => {
          const spec: ServiceSpec = compact({
            type,
            ...g.ip,
            ...(g.ports.length > 0 ? { ports: g.ports } : {}),
            selector: g.selector,
            ...g.affinity,
            externalIPs: g.externalIPs,
            externalName: g.externalName,
            publishNotReadyAddresses: g.publishNotReadyAddresses,
            loadBalancerSourceRanges: g.sourceRanges,
          });
          const accessible = type === 'NodePort' || type === 'LoadBalancer' || (type === 'ClusterIP' && g.externalIPs !== undefined);
          if (accessible && g.local) spec.externalTrafficPolicy = 'Local';
          // The allocator gives a LoadBalancer with Local traffic a health-check port
          // before validation runs, and validation requires one.
          if (type === 'LoadBalancer' && g.local) spec.healthCheckNodePort = g.healthCheckNodePort;
          if (type !== 'ExternalName' && g.local) spec.internalTrafficPolicy = 'Local';
          const service: Service = { apiVersion: 'v1', kind: 'Service', metadata: g.metadata, spec };
          if (g.ingress) service.status = { loadBalancer: { ingress: g.ingress.map((ip) => ({ ip })) } };
          return defaultService(service);
        }),
    );
}

const endpointAddressArb = (ipArb: fc.Arbitrary<string>) =>
  fc
    .record({
      ip: ipArb,
      hostname: optional(dns1123LabelArb(20)),
      nodeName: optional(dns1123SubdomainArb()),
    })
    .map(compact);

/** Endpoints that validate clean: each subset has an address and a port, names where needed. */
export function endpointsArb(): fc.Arbitrary<Endpoints> {
  const subset = fc.constantFrom(podIPv4Arb, podIPv6Arb).chain((ipArb) =>
    fc
      .record({
        addresses: fc.uniqueArray(endpointAddressArb(ipArb), { maxLength: 3, selector: (a) => a.ip }),
        notReadyAddresses: fc.uniqueArray(endpointAddressArb(ipArb), { maxLength: 2, selector: (a) => a.ip }),
        ports: fc.uniqueArray(fc.record({ port: fc.integer({ min: 1, max: 65535 }), protocol: PROTOCOL }, { noNullPrototype: true }), { minLength: 1, maxLength: 3 }),
        names: fc.uniqueArray(dns1123LabelArb(15), { minLength: 3, maxLength: 3 }),
      })
      .filter((s) => s.addresses.length + s.notReadyAddresses.length > 0)
      .map((s) =>
        compact({
          addresses: s.addresses.length > 0 ? s.addresses : undefined,
          notReadyAddresses: s.notReadyAddresses.length > 0 ? s.notReadyAddresses : undefined,
          ports: s.ports.map((p, i) => (s.ports.length > 1 ? { name: s.names[i] ?? `p${i}`, ...p } : p)),
        }),
      ),
  );
  return fc
    .record({ metadata: objectMetaArb({ name: dns1035LabelArb() }), subsets: fc.array(subset, { maxLength: 2 }) })
    .map(({ metadata, subsets }) =>
      defaultEndpoints({ apiVersion: 'v1', kind: 'Endpoints', metadata, ...(subsets.length > 0 ? { subsets } : {}) }),
    );
}

/** An EndpointSlice that validates clean. */
export function endpointSliceArb(): fc.Arbitrary<EndpointSlice> {
  return fc.constantFrom('IPv4' as const, 'IPv6' as const).chain((addressType) =>
    fc
      .record({
        metadata: objectMetaArb(),
        service: dns1035LabelArb(),
        endpoints: fc.array(
          fc
            .record({
              addresses: (addressType === 'IPv4' ? podIPv4Arb : podIPv6Arb).map((ip) => [ip]),
              conditions: fc.record({ ready: fc.boolean(), serving: fc.boolean(), terminating: fc.boolean() }, { requiredKeys: [], noNullPrototype: true }),
              hostname: optional(dns1123LabelArb(20)),
              nodeName: optional(dns1123SubdomainArb()),
              zone: optional(fc.constantFrom('zone-a', 'zone-b', 'us-east-1c')),
            })
            .map(compact),
          { maxLength: 4 },
        ),
        ports: fc.uniqueArray(
          fc.record({ name: dns1123LabelArb(15), port: fc.integer({ min: 1, max: 65535 }), protocol: PROTOCOL }, { noNullPrototype: true }),
          { maxLength: 3, selector: (p) => p.name },
        ),
      })
      .map(({ metadata, service, endpoints, ports }) =>
        defaultEndpointSlice({
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: { ...metadata, labels: { ...metadata.labels, 'kubernetes.io/service-name': service } },
          addressType,
          endpoints,
          ports,
        }),
      ),
  );
}

export function podArb(): fc.Arbitrary<Pod> {
  return fc
    .record({
      metadata: objectMetaArb(),
      spec: fc
        .record(
          {
            hostname: dns1123LabelArb(20),
            subdomain: dns1123LabelArb(20),
            nodeName: dns1123SubdomainArb(),
            enableServiceLinks: fc.boolean(),
            dnsPolicy: fc.constantFrom('ClusterFirst', 'ClusterFirstWithHostNet', 'Default'),
          },
          { requiredKeys: [], noNullPrototype: true },
        ),
      ip: podIPv4Arb,
      phase: fc.constantFrom('Pending', 'Running', 'Succeeded', 'Failed'),
      ready: fc.boolean(),
    })
    .map(({ metadata, spec, ip, phase, ready }) =>
      defaultPod({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata,
        spec,
        status: { phase, podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
      }),
    );
}

export function namespaceArb(): fc.Arbitrary<Namespace> {
  return objectMetaArb({ name: dns1123LabelArb(), namespaced: false }).map((metadata) =>
    defaultNamespace({ apiVersion: 'v1', kind: 'Namespace', metadata }),
  );
}

export function eventArb(): fc.Arbitrary<Event> {
  return fc
    .record({
      metadata: objectMetaArb(),
      name: dns1035LabelArb(),
      reason: fc.constantFrom('ClusterIPNotAllocated', 'ClusterIPOutOfRange', 'PortNotAllocated', 'ServiceCIDRFull'),
      message: fc.string({ maxLength: 60 }),
      count: fc.integer({ min: 1, max: 1000 }),
      at: timestampArb,
    })
    .map(({ metadata, name, reason, message, count, at }) => ({
      apiVersion: 'v1' as const,
      kind: 'Event' as const,
      metadata,
      involvedObject: { apiVersion: 'v1', kind: 'Service', name, namespace: metadata.namespace ?? 'default' },
      reason,
      message,
      source: { component: 'ipallocator-repair-controller' },
      count,
      firstTimestamp: at,
      lastTimestamp: at,
      type: 'Warning',
    }));
}

export function rangeAllocationArb(): fc.Arbitrary<RangeAllocation> {
  return fc
    .record({ range: fc.constantFrom('10.96.0.0/12', '10.0.0.0/24', 'fd00:10:96::/112', '30000-32767'), data: fc.uint8Array({ maxLength: 64 }), rv: fc.nat().map(String) })
    .map(({ range, data, rv }) => ({
      apiVersion: 'v1' as const,
      kind: 'RangeAllocation' as const,
      metadata: { resourceVersion: rv },
      range,
      data: encodeRangeAllocationBytes(data),
    }));
}

export function statusArb(): fc.Arbitrary<Status> {
  return fc
    .record({ name: dns1035LabelArb(), message: fc.string({ maxLength: 80 }), field: fc.constantFrom('spec.ports[0].port', 'metadata.name', 'spec.clusterIP') })
    .map(({ name, message, field }) => ({
      apiVersion: 'v1' as const,
      kind: 'Status' as const,
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Invalid',
      details: { name, kind: 'services', causes: [{ reason: 'FieldValueInvalid', message, field }] },
      code: 422,
    }));
}

/**
 * A ServiceCIDR: one block, or one of each family in either order, each written as Go prints
 * it (networking.k8s.io/v1 validation wants the canonical spelling), sometimes with the Ready
 * condition its controller sets.
 */
export function serviceCIDRArb(): fc.Arbitrary<ServiceCIDR> {
  const v4 = cidrArb({ family: 4 }).map(canonicalCIDRText);
  const v6 = cidrArb({ family: 6 }).map(canonicalCIDRText);
  const cidrs = fc.oneof(
    fc.oneof(v4, v6).map((c) => [c]),
    fc.tuple(v4, v6, fc.boolean()).map(([a, b, v6First]) => (v6First ? [b, a] : [a, b])),
  );
  const ready = fc
    .record({ status: fc.constantFrom('True', 'False'), at: timestampArb })
    .map(({ status, at }) => ({ type: SERVICE_CIDR_CONDITION_READY, status, lastTransitionTime: at, reason: '', message: '' }));
  return fc
    .record({ metadata: objectMetaArb({ namespaced: false }), cidrs, ready: optional(ready) })
    .map(({ metadata, cidrs, ready }) =>
      compact({
        apiVersion: SERVICE_CIDR_API_VERSION,
        kind: 'ServiceCIDR' as const,
        metadata,
        spec: { cidrs },
        status: ready === undefined ? undefined : { conditions: [ready] },
      }),
    );
}

/** An IPAddress as the allocator writes one: named by the address in Go's spelling, held by a Service. */
export function ipAddressArb(): fc.Arbitrary<IPAddress> {
  return fc
    .record({ ip: ipArb, meta: objectMetaArb({ namespaced: false }), namespace: dns1123LabelArb(20), service: dns1035LabelArb() })
    .map(({ ip, meta, namespace, service }) => ({
      apiVersion: SERVICE_CIDR_API_VERSION,
      kind: 'IPAddress' as const,
      metadata: {
        ...meta,
        name: canonicalIPText(ip),
        labels: { [IP_ADDRESS_LABEL_FAMILY]: ip.family === 4 ? 'IPv4' : 'IPv6', [IP_ADDRESS_LABEL_MANAGED_BY]: IP_ALLOCATOR_CONTROLLER_NAME },
      },
      spec: { parentRef: { resource: 'services', namespace, name: service } },
    }));
}

/** Any of the modelled kinds, valid. */
export function kubeObjectArb(): fc.Arbitrary<KubeObject> {
  return fc.oneof(
    serviceArb(),
    endpointsArb(),
    endpointSliceArb(),
    podArb(),
    namespaceArb(),
    eventArb(),
    rangeAllocationArb(),
    statusArb(),
    serviceCIDRArb(),
    ipAddressArb(),
  );
}
