// The shapes of kube-proxy's own proxier benchmark, shared by the proxy suites: N services
// `ns/svc<i>`, one port p80 80 → 8080, one EndpointSlice of M ready endpoints on other nodes.
import type { EndpointSlice, Service } from '@kubesvc/api-types';

export interface Shape {
  readonly services: number;
  readonly endpoints: number;
}

export const SHAPES: readonly Shape[] = [
  { services: 1000, endpoints: 10 },
  { services: 5000, endpoints: 10 },
  { services: 10000, endpoints: 10 },
  { services: 1000, endpoints: 100 },
];

const CLUSTER_IP_BASE = ((172 << 24) | (30 << 16)) >>> 0;
export const ENDPOINT_BASE = ((10 << 24) | (128 << 16)) >>> 0;
export const EXTRA_ENDPOINT = '10.255.255.1';

export function ipv4(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

export function service(i: number, port: number): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'ns', name: `svc${i}` },
    spec: { type: 'ClusterIP', clusterIP: ipv4(CLUSTER_IP_BASE + i + 1), ports: [{ name: 'p80', port, targetPort: 8080, protocol: 'TCP' }] },
  };
}

export function slice(i: number, m: number, extra: boolean): EndpointSlice {
  const addresses = Array.from({ length: m }, (_, j) => ({ ip: ipv4(ENDPOINT_BASE + i * m + j + 1), node: `node-${j % 50}` }));
  if (extra) addresses.push({ ip: EXTRA_ENDPOINT, node: `node-${m % 50}` });
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'ns', name: `svc${i}-0`, labels: { 'kubernetes.io/service-name': `svc${i}` } },
    addressType: 'IPv4',
    endpoints: addresses.map((a) => ({ addresses: [a.ip], conditions: { ready: true }, nodeName: a.node })),
    ports: [{ name: 'p80', port: 8080, protocol: 'TCP' }],
  };
}

export interface Cluster {
  services: Service[];
  slices: EndpointSlice[];
}

export function cluster(shape: Shape): Cluster {
  const services: Service[] = [];
  const slices: EndpointSlice[] = [];
  for (let i = 0; i < shape.services; i++) {
    services.push(service(i, 80));
    slices.push(slice(i, shape.endpoints, false));
  }
  return { services, slices };
}

export const EMPTY: Cluster = { services: [], slices: [] };

export function label(shape: Shape): string {
  return `${shape.services}x${shape.endpoints}`;
}
