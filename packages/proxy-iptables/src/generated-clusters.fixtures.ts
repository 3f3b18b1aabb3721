// Generated clusters for the rule properties (generate-rules.prop.test.ts and the sync suites):
// services of every type and traffic policy with their slices, and proxier configs.
// Test-only: excluded from the library build.
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { fc } from '@fast-check/vitest';
import { type ProxierConfig } from './proxier-config.js';
import { validConfig } from './proxier-config.fixtures.js';

export const NODE = 'node-a';

interface PortSpec {
  readonly name: string;
  readonly protocol: 'TCP' | 'UDP' | 'SCTP';
  readonly port: number;
}

interface EndpointSpec {
  readonly ip: number;
  readonly local: boolean;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
}

interface ServiceSpecGen {
  readonly type: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  readonly ports: readonly PortSpec[];
  readonly endpoints: readonly EndpointSpec[];
  readonly etpLocal: boolean;
  readonly itpLocal: boolean;
  readonly affinity: number | undefined;
  readonly externalIP: boolean;
  readonly sourceRange: boolean;
}

const portsArb = fc.uniqueArray(
  fc.record(
    {
      name: fc.constantFrom('', 'http', 'https', 'dns', 'p80'),
      protocol: fc.constantFrom<'TCP' | 'UDP' | 'SCTP'>('TCP', 'UDP', 'SCTP'),
      port: fc.integer({ min: 1, max: 65535 }),
    },
    { noNullPrototype: true },
  ),
  { minLength: 1, maxLength: 3, selector: (p) => p.name },
  // Validation refuses two ports with the same port number and protocol (Duplicate value).
).filter((ports) => new Set(ports.map((p) => `${p.protocol}/${p.port}`)).size === ports.length);

const endpointArb = fc.record(
  { ip: fc.integer({ min: 1, max: 250 }), local: fc.boolean(), ready: fc.boolean(), serving: fc.boolean(), terminating: fc.boolean() },
  { noNullPrototype: true },
);

const serviceGenArb: fc.Arbitrary<ServiceSpecGen> = fc.record(
  {
    type: fc.constantFrom<'ClusterIP' | 'NodePort' | 'LoadBalancer'>('ClusterIP', 'NodePort', 'LoadBalancer'),
    ports: portsArb,
    endpoints: fc.uniqueArray(endpointArb, { maxLength: 5, selector: (e) => e.ip }),
    etpLocal: fc.boolean(),
    itpLocal: fc.boolean(),
    affinity: fc.option(fc.integer({ min: 1, max: 86400 }), { nil: undefined }),
    externalIP: fc.boolean(),
    sourceRange: fc.boolean(),
  },
  { noNullPrototype: true },
);

export interface Cluster {
  readonly services: Service[];
  readonly slices: EndpointSlice[];
  readonly specs: readonly (ServiceSpecGen & { readonly namespace: string; readonly name: string; readonly clusterIP: string })[];
}

export const clusterArb: fc.Arbitrary<Cluster> = fc
  .uniqueArray(fc.tuple(fc.constantFrom('default', 'kube-system', 'shop'), fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/), serviceGenArb), {
    maxLength: 6,
    selector: ([ns, name]) => `${ns}/${name}`,
  })
  .map((entries) => {
    const specs = entries.map(([namespace, name, gen], i) => ({ ...gen, namespace, name, clusterIP: `172.30.${i}.${i + 1}` }));
    const services = specs.map(
      (s, i): Service => ({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { namespace: s.namespace, name: s.name },
        spec: {
          type: s.type,
          clusterIP: s.clusterIP,
          ports: s.ports.map((p, j) => ({ ...p, ...(s.type === 'ClusterIP' ? {} : { nodePort: 30000 + i * 4 + j }) })),
          ...(s.etpLocal && s.type !== 'ClusterIP' ? { externalTrafficPolicy: 'Local' as const } : {}),
          ...(s.etpLocal && s.type === 'LoadBalancer' ? { healthCheckNodePort: 32000 + i } : {}),
          ...(s.itpLocal ? { internalTrafficPolicy: 'Local' as const } : {}),
          ...(s.affinity === undefined
            ? {}
            : { sessionAffinity: 'ClientIP' as const, sessionAffinityConfig: { clientIP: { timeoutSeconds: s.affinity } } }),
          ...(s.externalIP ? { externalIPs: [`192.168.99.${i + 1}`] } : {}),
          ...(s.sourceRange && s.type === 'LoadBalancer' ? { loadBalancerSourceRanges: ['203.0.113.0/25'] } : {}),
        },
        status: s.type === 'LoadBalancer' ? { loadBalancer: { ingress: [{ ip: `1.2.3.${i + 1}` }] } } : {},
      }),
    );
    const slices = specs.map(
      (s): EndpointSlice => ({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { namespace: s.namespace, name: `${s.name}-abc`, labels: { 'kubernetes.io/service-name': s.name } },
        addressType: 'IPv4',
        endpoints: s.endpoints.map((e) => ({
          addresses: [`10.180.0.${e.ip}`],
          conditions: { ready: e.ready, serving: e.serving, terminating: e.terminating },
          nodeName: e.local ? NODE : 'node-b',
        })),
        ports: s.ports.map((p) => ({ name: p.name, port: p.port + 1000, protocol: p.protocol })),
      }),
    );
    return { services, slices, specs };
  });

export const configArb: fc.Arbitrary<ProxierConfig> = fc
  .record(
    {
      detector: fc.boolean(),
      masqueradeAll: fc.boolean(),
      nfacct: fc.boolean(),
      localhost: fc.boolean(),
      randomFully: fc.boolean(),
      threshold: fc.constantFrom(1000, 3),
    },
    { noNullPrototype: true },
  )
  .map((c) =>
    validConfig({
      nodeName: NODE,
      nodeIPs: ['127.0.0.1', '192.168.0.2'],
      localDetector: c.detector ? { kind: 'cidr', cidr: '10.0.0.0/8' } : { kind: 'none' },
      masqueradeAll: c.masqueradeAll,
      nfacctCounters: c.nfacct,
      localhostNodePorts: c.localhost,
      randomFully: c.randomFully,
      largeClusterThreshold: c.threshold,
    }),
  );
