// Pods and Services for the controllers' tests, in the shapes the apiserver stores them.
import type { Node, Pod, Service } from '@kubesvc/api-types';

export const NOW = Date.UTC(2025, 0, 2, 3, 4, 5);

export interface PodOptions {
  readonly ip?: string | readonly string[];
  readonly ready?: boolean;
  readonly phase?: string;
  readonly labels?: Record<string, string>;
  readonly node?: string;
  readonly hostname?: string;
  readonly subdomain?: string;
  readonly ports?: readonly { name: string; containerPort: number; protocol?: string }[];
  readonly deleting?: boolean;
  readonly namespace?: string;
  /** The Ready condition's lastTransitionTime (the trigger time the endpoint controllers read). */
  readonly readySince?: string;
}

export function pod(name: string, o: PodOptions = {}): Pod {
  const ips = o.ip === undefined ? [] : typeof o.ip === 'string' ? [o.ip] : o.ip;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      labels: o.labels ?? { app: 'web' },
      ...(o.deleting ? { deletionTimestamp: '2025-01-02T03:04:00Z' } : {}),
    },
    spec: {
      nodeName: o.node ?? 'node-a',
      ...(o.hostname ? { hostname: o.hostname } : {}),
      ...(o.subdomain ? { subdomain: o.subdomain } : {}),
      containers: [{ name: 'app', image: 'nginx', ...(o.ports ? { ports: o.ports } : {}) }],
    },
    status: {
      phase: o.phase ?? 'Running',
      ...(ips[0] !== undefined ? { podIP: ips[0], podIPs: ips.map((ip) => ({ ip })) } : {}),
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', ...(o.readySince === undefined ? {} : { lastTransitionTime: o.readySince }) }],
    },
  } as Pod;
}

export function service(name: string, spec: NonNullable<Service['spec']>, labels?: Record<string, string>): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
    spec: { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ipFamilies: ['IPv4'], ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }], ...spec },
  };
}

export function node(name: string, zone?: string): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(zone ? { 'topology.kubernetes.io/zone': zone } : {}) } },
    spec: {},
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}
