// "One rule broken" mutants: a valid object with exactly one thing wrong, and the field
// errors upstream's validation reports for it, in upstream's text. The expected text is
// written out here from upstream's messages, not computed by the code under test.
// upstream: pkg/apis/core/validation/validation.go (v1.32/v1.33), apimachinery
//           pkg/util/validation/validation.go and field/errors.go
import { fc } from '@fast-check/vitest';
import type { EndpointSlice, Endpoints, KubeObject, Namespace, Pod, Service, ServicePort } from '@kubesvc/api-types';
import {
  DNS1035_LABEL_MSG as DNS1035,
  DNS1123_LABEL_MSG as DNS1123_LABEL,
  DNS1123_SUBDOMAIN_MSG as DNS1123_SUBDOMAIN,
  LINK_LOCAL_MSG,
  LINK_LOCAL_MULTICAST_MSG,
  LOOPBACK_MSG,
  PORT_RANGE_MSG,
} from '../upstream-messages.js';
import { endpointSliceArb, endpointsArb, namespaceArb, podArb, serviceArb, serviceIPv4Arb } from './objects.js';

export interface Mutant<T> {
  /** The rule that is broken, for test names and failure reports. */
  readonly rule: string;
  readonly object: T;
  /** For an update: the stored object the mutant replaces. */
  readonly old?: T;
  /** The rendered field errors, in upstream's order. */
  readonly expected: readonly string[];
}

const quote = (s: string): string => JSON.stringify(s);
/** The detail of a protocol's Unsupported value error (sets.List order). */
const SUPPORTED_PROTOCOLS = 'supported values: "SCTP", "TCP", "UDP"';

/** Special addresses with the ValidateNonSpecialIP message each one gets. */
const specialIPArb: fc.Arbitrary<readonly [string, string]> = fc.oneof(
  fc.constantFrom('0.0.0.0', '::').map((ip) => [ip, `may not be unspecified (${ip})`] as const),
  fc
    .oneof(
      fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `127.${a}.${b}.${c}`),
      fc.constant('::1'),
    )
    .map((ip) => [ip, LOOPBACK_MSG] as const),
  fc
    .oneof(
      fc.tuple(fc.nat(255), fc.nat(255)).map(([a, b]) => `169.254.${a}.${b}`),
      fc.integer({ min: 1, max: 0xffff }).map((n) => `fe80::${n.toString(16)}`),
    )
    .map((ip) => [ip, LINK_LOCAL_MSG] as const),
  fc
    .oneof(
      fc.nat(255).map((a) => `224.0.0.${a}`),
      fc.integer({ min: 1, max: 0xffff }).map((n) => `ff02::${n.toString(16)}`),
    )
    .map((ip) => [ip, LINK_LOCAL_MULTICAST_MSG] as const),
);

const withPorts = (s: Service): s is Service & { spec: { ports: ServicePort[] } } => (s.spec?.ports?.length ?? 0) > 0;

function setPort(service: Service, index: number, change: (p: ServicePort) => ServicePort): Service {
  const ports = (service.spec?.ports ?? []).map((p, i) => (i === index ? change(p) : p));
  return { ...service, spec: { ...service.spec, ports } };
}

const portIndexOf = (service: Service) => fc.nat({ max: Math.max(0, (service.spec?.ports?.length ?? 1) - 1) });

/** Service mutants, each breaking one rule of ValidateService / ValidateServiceUpdate. */
export function serviceMutantArb(): fc.Arbitrary<Mutant<Service>> {
  const services = serviceArb();
  const mutants: fc.Arbitrary<Mutant<Service> | undefined>[] = [
    // Port numbers: 1..65535.
    fc.tuple(services.filter(withPorts), fc.oneof(fc.constant(0), fc.integer({ min: 65536, max: 2147483647 }), fc.integer({ min: -2147483648, max: -1 }))).chain(([s, port]) =>
      portIndexOf(s).map((i) => ({
        rule: 'port out of range',
        object: setPort(s, i, (p) => ({ ...p, port })),
        expected: [`spec.ports[${i}].port: Invalid value: ${port}: ${PORT_RANGE_MSG}`],
      })),
    ),
    // Protocols: TCP, UDP, SCTP, case-sensitive.
    fc.tuple(services.filter(withPorts), fc.constantFrom('HTTP', 'tcp', 'ICMP', 'QUIC')).chain(([s, protocol]) =>
      portIndexOf(s).map((i) => ({
        rule: 'unsupported protocol',
        object: setPort(s, i, (p) => ({ ...p, protocol })),
        expected: [`spec.ports[${i}].protocol: Unsupported value: ${quote(protocol)}: ${SUPPORTED_PROTOCOLS}`],
      })),
    ),
    // With more than one port, every port needs a name.
    services.filter((s) => (s.spec?.ports?.length ?? 0) > 1).chain((s) =>
      portIndexOf(s).map((i) => ({
        rule: 'unnamed port among several',
        object: setPort(s, i, ({ name: _name, ...p }) => p),
        expected: [`spec.ports[${i}].name: Required value`],
      })),
    ),
    // Port names are unique.
    services.filter((s) => (s.spec?.ports?.length ?? 0) > 1).chain((s) =>
      fc.integer({ min: 1, max: (s.spec?.ports?.length ?? 2) - 1 }).map((j) => {
        const name = s.spec?.ports?.[0]?.name ?? '';
        return {
          rule: 'duplicate port name',
          object: setPort(s, j, (p) => ({ ...p, name })),
          expected: [`spec.ports[${j}].name: Duplicate value: ${quote(name)}`],
        };
      }),
    ),
    // ClientIP affinity timeout: 0 < t <= 86400.
    fc.tuple(services, fc.oneof(fc.integer({ min: -2147483648, max: 0 }), fc.integer({ min: 86401, max: 2147483647 }))).map(([s, t]) => ({
      rule: 'ClientIP timeout out of range',
      object: { ...s, spec: { ...s.spec, sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: t } } } },
      expected: [`spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: ${t}: must be greater than 0 and less than 86400`],
    })),
    // No affinity config under None.
    fc.tuple(services, fc.integer({ min: 1, max: 86400 })).map(([s, t]) => ({
      rule: 'affinity config with None',
      object: { ...s, spec: { ...s.spec, sessionAffinity: 'None', sessionAffinityConfig: { clientIP: { timeoutSeconds: t } } } },
      expected: ['spec.sessionAffinityConfig: Forbidden: must not be set when session affinity is None'],
    })),
    // NodePorts only where the type has them.
    fc.tuple(services.filter((s) => s.spec?.type === 'ClusterIP' && withPorts(s)), fc.integer({ min: 30000, max: 32767 })).chain(([s, nodePort]) =>
      portIndexOf(s).map((i) => ({
        rule: 'nodePort on a ClusterIP Service',
        object: setPort(s, i, (p) => ({ ...p, nodePort })),
        expected: [`spec.ports[${i}].nodePort: Forbidden: may not be used when \`type\` is 'ClusterIP'`],
      })),
    ),
    // External IPs may not be special addresses (checked on Services that are already
    // externally accessible, so that the traffic policy stays valid).
    fc.tuple(services.filter((s) => s.spec?.type === 'NodePort' || s.spec?.type === 'LoadBalancer'), specialIPArb).map(([s, [ip, message]]) => ({
      rule: 'special external IP',
      object: { ...s, spec: { ...s.spec, externalIPs: [ip] } },
      expected: [`spec.externalIPs[0]: Invalid value: ${quote(ip)}: ${message}`],
    })),
    // Service names are DNS-1035 labels: an upper-case letter or a leading digit breaks it.
    fc.tuple(services, fc.constantFrom('upper', 'digit')).map(([s, how]) => {
      const name = s.metadata.name ?? 'a';
      const bad = how === 'upper' ? name.charAt(0).toUpperCase() + name.slice(1) : ('1' + name).slice(0, 63);
      return {
        rule: 'Service name not a DNS-1035 label',
        object: { ...s, metadata: { ...s.metadata, name: bad } },
        expected: [`metadata.name: Invalid value: ${quote(bad)}: ${DNS1035}`],
      };
    }),
    // Unknown types.
    fc.tuple(services.filter((s) => s.spec?.type === 'ClusterIP' && s.spec.externalIPs === undefined), fc.constantFrom('Foo', 'clusterip', 'Headless')).map(([s, type]) => ({
      rule: 'unsupported type',
      object: { ...s, spec: { ...s.spec, type } },
      expected: [`spec.type: Unsupported value: ${quote(type)}: supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`],
    })),
    // ExternalName needs a DNS-1123 subdomain.
    fc.tuple(services.filter((s) => s.spec?.type === 'ExternalName'), fc.constantFrom('', 'Bad_Name', 'db..example.com', '-db.example.com')).map(([s, externalName]) => ({
      rule: 'bad externalName',
      object: { ...s, spec: { ...s.spec, externalName } },
      expected:
        externalName === ''
          ? ['spec.externalName: Required value']
          : [`spec.externalName: Invalid value: ${quote(externalName)}: ${DNS1123_SUBDOMAIN}`],
    })),
    // loadBalancerSourceRanges belong to LoadBalancer Services.
    services.filter((s) => s.spec?.type === 'ClusterIP' || s.spec?.type === 'NodePort').map((s) => ({
      rule: 'source ranges without a load balancer',
      object: { ...s, spec: { ...s.spec, loadBalancerSourceRanges: ['203.0.113.0/24'] } },
      expected: ["spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'"],
    })),
    // A headless Service cannot be a NodePort Service.
    services.filter((s) => s.spec?.clusterIP === 'None').map((s) => ({
      rule: 'headless NodePort',
      object: { ...s, spec: { ...s.spec, type: 'NodePort', externalTrafficPolicy: 'Cluster' } },
      expected: [`spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`],
    })),
    // On update, an allocated ClusterIP never changes.
    fc
      .tuple(services.filter((s) => s.spec?.type !== 'ExternalName' && /^10\./.test(s.spec?.clusterIP ?? '')), serviceIPv4Arb)
      .map(([stored, ip]) => [{ ...stored, metadata: { ...stored.metadata, resourceVersion: stored.metadata.resourceVersion ?? '1' } }, ip] as const)
      .map(([old, ip]) =>
        ip === old.spec?.clusterIP
          ? undefined
          : {
              rule: 'clusterIP changed on update',
              old,
              object: { ...old, spec: { ...old.spec, clusterIP: ip, clusterIPs: [ip] } },
              expected: [`spec.clusterIPs[0]: Invalid value: []string{${quote(ip)}}: may not change once set`],
            },
      ),
  ];
  return fc.oneof(...mutants).filter((m): m is Mutant<Service> => m !== undefined);
}

function setSubset(e: Endpoints, i: number, change: (s: NonNullable<Endpoints['subsets']>[number]) => NonNullable<Endpoints['subsets']>[number]): Endpoints {
  return { ...e, subsets: (e.subsets ?? []).map((s, k) => (k === i ? change(s) : s)) };
}

const withSubsets = (e: Endpoints): boolean => (e.subsets?.length ?? 0) > 0;

/** Endpoints mutants, each breaking one rule of ValidateEndpoints. */
export function endpointsMutantArb(): fc.Arbitrary<Mutant<Endpoints>> {
  const endpoints = endpointsArb().filter(withSubsets);
  const subsetIndex = (e: Endpoints) => fc.nat({ max: (e.subsets?.length ?? 1) - 1 });
  return fc.oneof(
    // Endpoint IPs may not be special.
    fc.tuple(endpoints, specialIPArb).chain(([e, [ip, message]]) =>
      subsetIndex(e).map((i) => {
        const field = e.subsets?.[i]?.addresses ? 'addresses' : 'notReadyAddresses';
        return {
          rule: 'special endpoint IP',
          object: setSubset(e, i, (s) => ({ ...s, [field]: (s[field] ?? []).map((a, j) => (j === 0 ? { ...a, ip } : a)) })),
          expected: [`subsets[${i}].${field}[0].ip: Invalid value: ${quote(ip)}: ${message}`],
        };
      }),
    ),
    // Endpoint ports: 1..65535.
    fc.tuple(endpoints, fc.oneof(fc.constant(0), fc.integer({ min: 65536, max: 2147483647 }))).chain(([e, port]) =>
      subsetIndex(e).map((i) => ({
        rule: 'endpoint port out of range',
        object: setSubset(e, i, (s) => ({ ...s, ports: (s.ports ?? []).map((p, k) => (k === 0 ? { ...p, port } : p)) })),
        expected: [`subsets[${i}].ports[0].port: Invalid value: ${port}: ${PORT_RANGE_MSG}`],
      })),
    ),
    // Endpoint protocols.
    fc.tuple(endpoints, fc.constantFrom('HTTP', 'udp')).chain(([e, protocol]) =>
      subsetIndex(e).map((i) => ({
        rule: 'unsupported endpoint protocol',
        object: setSubset(e, i, (s) => ({ ...s, ports: (s.ports ?? []).map((p, k) => (k === 0 ? { ...p, protocol } : p)) })),
        expected: [`subsets[${i}].ports[0].protocol: Unsupported value: ${quote(protocol)}: ${SUPPORTED_PROTOCOLS}`],
      })),
    ),
    // A subset needs addresses.
    endpoints.chain((e) =>
      subsetIndex(e).map((i) => ({
        rule: 'subset without addresses',
        object: setSubset(e, i, ({ addresses: _a, notReadyAddresses: _n, ...s }) => s),
        expected: [`subsets[${i}]: Required value: must specify \`addresses\` or \`notReadyAddresses\``],
      })),
    ),
  );
}

/** A string that breaks the DNS-1123 label rule with one regex failure and nothing else. */
const badLabelArb = fc.constantFrom('Bad', 'under_score', '-lead', 'trail-', 'sp ace');

/** Mutants of the other kinds: Namespace, EndpointSlice and Pod, one rule each. */
export function otherMutantArb(): fc.Arbitrary<Mutant<Namespace> | Mutant<EndpointSlice> | Mutant<Pod>> {
  return fc.oneof(
    // Namespace names are DNS-1123 labels.
    fc.tuple(namespaceArb(), badLabelArb).map(([ns, name]): Mutant<Namespace> => ({
      rule: 'Namespace name not a DNS-1123 label',
      object: { ...ns, metadata: { ...ns.metadata, name, labels: { ...ns.metadata.labels, 'kubernetes.io/metadata.name': 'x' } } },
      expected: [`metadata.name: Invalid value: ${quote(name)}: ${DNS1123_LABEL}`],
    })),
    // A slice endpoint's hostname is a DNS-1123 label.
    fc
      .tuple(endpointSliceArb().filter((s) => (s.endpoints?.length ?? 0) > 0), badLabelArb)
      .chain(([slice, hostname]) =>
        fc.nat({ max: (slice.endpoints?.length ?? 1) - 1 }).map((i): Mutant<EndpointSlice> => ({
          rule: 'EndpointSlice hostname not a DNS-1123 label',
          object: { ...slice, endpoints: (slice.endpoints ?? []).map((e, k) => (k === i ? { ...e, hostname } : e)) },
          expected: [`endpoints[${i}].hostname: Invalid value: ${quote(hostname)}: ${DNS1123_LABEL}`],
        })),
      ),
    // A slice's addressType never changes.
    endpointSliceArb().map((stored): Mutant<EndpointSlice> => {
      const old = { ...stored, endpoints: [] };
      const addressType = stored.addressType === 'IPv4' ? 'IPv6' : 'IPv4';
      return {
        rule: 'EndpointSlice addressType changed on update',
        old,
        object: { ...old, addressType },
        expected: [`addressType: Invalid value: ${quote(addressType)}: field is immutable`],
      };
    }),
    // A pod's hostname is a DNS-1123 label.
    fc.tuple(podArb(), badLabelArb).map(([pod, hostname]): Mutant<Pod> => ({
      rule: 'Pod hostname not a DNS-1123 label',
      object: { ...pod, spec: { ...pod.spec, hostname } },
      expected: [`spec.hostname: Invalid value: ${quote(hostname)}: ${DNS1123_LABEL}`],
    })),
  );
}

/** Every mutant above, of any kind. */
export function kubeObjectMutantArb(): fc.Arbitrary<Mutant<KubeObject>> {
  return fc.oneof<fc.Arbitrary<Mutant<KubeObject>>[]>(serviceMutantArb(), endpointsMutantArb(), otherMutantArb());
}
