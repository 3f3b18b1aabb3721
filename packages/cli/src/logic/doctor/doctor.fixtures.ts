// Small hand-written dumps for the doctor's tests: builders of the objects a check reads.
import type { KubeObject } from '@kubesvc/api-types';
import { dumpOf, type Dump } from '../../dump/load-dump.js';
import type { DoctorContext } from './finding.js';
import { runDoctor, type DoctorOptions, type DoctorReport } from './doctor.js';

export function node(name: string, ip: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { addresses: [{ type: 'InternalIP', address: ip }] } } as KubeObject;
}

export function service(namespace: string, name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { namespace, name }, spec: { type: 'ClusterIP', ...spec } } as KubeObject;
}

export interface PodOptions {
  readonly labels?: Record<string, string>;
  readonly ip?: string;
  readonly node?: string;
  readonly ready?: boolean;
  readonly ports?: readonly Record<string, unknown>[];
  readonly spec?: Record<string, unknown>;
  readonly status?: Record<string, unknown>;
  readonly metadata?: Record<string, unknown>;
}

export function pod(namespace: string, name: string, o: PodOptions = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace, name, ...(o.labels !== undefined ? { labels: o.labels } : {}), ...o.metadata },
    spec: { nodeName: o.node ?? 'node-a', containers: [{ name: 'app', image: 'app', ports: o.ports ?? [] }], ...o.spec },
    status: {
      phase: 'Running',
      ...(o.ip !== undefined ? { podIP: o.ip } : {}),
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
      ...o.status,
    },
  } as KubeObject;
}

export function endpoints(namespace: string, name: string, subsets: readonly Record<string, unknown>[]): KubeObject {
  return { apiVersion: 'v1', kind: 'Endpoints', metadata: { namespace, name }, ...(subsets.length > 0 ? { subsets } : {}) } as KubeObject;
}

export function dump(objects: readonly KubeObject[]): Dump {
  return dumpOf('dump.yaml', objects);
}

export function contextOf(objects: readonly KubeObject[]): DoctorContext {
  return { dump: dump(objects), file: 'dump.yaml' };
}

export const ALL: DoctorOptions = { services: [], namespace: 'default', allNamespaces: true, includeInfo: false };

/** The report, failing the test when the doctor refuses. */
export function reportOf(objects: readonly KubeObject[], options: Partial<DoctorOptions> = {}): DoctorReport {
  const report = runDoctor(contextOf(objects), { ...ALL, ...options });
  if (!report.ok) throw new Error(report.error.message);
  return report.value;
}
