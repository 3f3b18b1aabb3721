// `kubesvc doctor`: what a check of the "Debug Services" checklist reports, and the helpers
// the checks share (the Service's key, its selector as kubectl writes it). Pure.
import type { Pod, Service } from '@kubesvc/api-types';
import type { Dump } from '../../dump/load-dump.js';

/** How bad a finding is: an error makes the command exit 1; info findings are shown only with --include-info. */
export type Severity = 'error' | 'warning' | 'note' | 'info';

export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'note', 'info'];

export type FindingCode =
  | 'SelectorMatchesNoPod'
  | 'PodsNotReady'
  | 'TargetPortNotExposed'
  | 'EndpointsDisagree'
  | 'NoLocalEndpoints'
  | 'ClusterIPNoPing'
  | 'NdotsExpansion'
  | 'HeadlessNameMissing'
  | 'AffinityTimeoutShort';

export interface Finding {
  readonly code: FindingCode;
  readonly severity: Severity;
  /** `namespace/name` of the Service the finding is about (it may not exist: HeadlessNameMissing). */
  readonly service: string;
  /** One line. */
  readonly summary: string;
  /** The objects and fields that show it, one per line. */
  readonly evidence: readonly string[];
  /** Why it matters, as upstream behaves, in a sentence. */
  readonly reason: string;
  /** A command that shows more. */
  readonly command: string;
}

/** What every check is given: the dump, and the file name the suggested commands read. */
export interface DoctorContext {
  readonly dump: Dump;
  /** The `-f` argument to repeat in suggested kubesvc commands. */
  readonly file: string;
}

export function serviceKey(service: Service): string {
  return `${service.metadata.namespace ?? 'default'}/${service.metadata.name ?? ''}`;
}

export function podKey(pod: Pod): string {
  return `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`;
}

/** The selector as `kubectl -l` takes it: `app=web,tier=front`, keys sorted. */
export function selectorText(selector: Readonly<Record<string, string>>): string {
  return Object.keys(selector)
    .sort()
    .map((k) => `${k}=${selector[k] ?? ''}`)
    .join(',');
}

/** The Service's selector, or undefined when it has none (`{}` counts as none, as the controllers read it). */
export function selectorOf(service: Service): Readonly<Record<string, string>> | undefined {
  const selector = service.spec?.selector ?? {};
  return Object.keys(selector).length === 0 ? undefined : selector;
}

/** labels.Set(selector).AsSelector().Matches: every pair present. */
export function selects(selector: Readonly<Record<string, string>>, labels: Readonly<Record<string, string>> | undefined): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/** The pods of the Service's namespace its selector matches, by name; none without a selector. */
export function selectedPodsOf(service: Service, pods: readonly Pod[]): Pod[] {
  const selector = selectorOf(service);
  if (selector === undefined) return [];
  const namespace = service.metadata.namespace ?? 'default';
  return pods.filter((p) => (p.metadata.namespace ?? 'default') === namespace && selects(selector, p.metadata.labels)).sort((a, b) => compare(podKey(a), podKey(b)));
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A shell word: quoted when it holds anything a shell would read specially. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export function isExternalName(service: Service): boolean {
  return service.spec?.type === 'ExternalName';
}

/** The ClusterIPs of a Service that has them (not headless, not ExternalName). */
export function clusterIPsOf(service: Service): string[] {
  if (isExternalName(service)) return [];
  const ips = service.spec?.clusterIPs ?? (service.spec?.clusterIP !== undefined ? [service.spec.clusterIP] : []);
  return ips.filter((ip) => ip !== '' && ip !== 'None');
}
