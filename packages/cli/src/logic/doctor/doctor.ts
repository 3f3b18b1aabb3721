// `kubesvc doctor`: the "Debug Services" checklist run over a dump, Service by Service, and
// its report as text or data. Pure.
import { err, ok, type Pod, type Result, type Service, type TaggedError } from '@kubesvc/api-types';
import { zoneOfDump } from '../dns.js';
import { headlessNameMissing, ndotsExpansion, podInOtherNamespace, CLUSTER_ZONE } from './dns.js';
import { dumpCacheView, endpointsDisagree, nodesForControllers } from './endpoints.js';
import { compare, isExternalName, serviceKey, SEVERITIES, type DoctorContext, type Finding, type FindingCode } from './finding.js';
import { podsNotReady, selectorMatchesNoPod, targetPortNotExposed } from './pods.js';
import { affinityTimeoutShort, clusterIPNoPing, noLocalEndpoints, NodeRules } from './traffic.js';

export interface DoctorOptions {
  /** Service names (in `namespace`); none: every Service in scope. */
  readonly services: readonly string[];
  /** `-n`; undefined with `allNamespaces`. */
  readonly namespace: string;
  readonly allNamespaces: boolean;
  /** Show info findings (ClusterIPNoPing, the default NdotsExpansion). */
  readonly includeInfo: boolean;
  /** `--dns-name NAME --from POD`: the name's search from that pod. */
  readonly dnsQuestion?: { readonly name: string; readonly pod: Pod };
}

export interface DoctorReport {
  /** The Services checked, by key. */
  readonly services: readonly string[];
  /** Sorted: by Service, then severity, then the checklist's order. */
  readonly findings: readonly Finding[];
  /** What could not be checked, and why (printed as warnings). */
  readonly notices: readonly string[];
}

/** A Service named on the command line that the input does not hold. */
export type ErrNoService = TaggedError<'ErrNoService'>;

/** The checklist's order, which breaks ties between findings of one severity. */
const ORDER: readonly FindingCode[] = [
  'SelectorMatchesNoPod',
  'PodsNotReady',
  'TargetPortNotExposed',
  'EndpointsDisagree',
  'NoLocalEndpoints',
  'ClusterIPNoPing',
  'NdotsExpansion',
  'HeadlessNameMissing',
  'AffinityTimeoutShort',
];

export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      compare(a.service, b.service) ||
      SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) ||
      ORDER.indexOf(a.code) - ORDER.indexOf(b.code) ||
      compare(a.summary, b.summary),
  );
}

function inScope(service: Service, options: DoctorOptions): boolean {
  return options.allNamespaces || (service.metadata.namespace ?? 'default') === options.namespace;
}

/** The Services to check: those named, or every one of the namespace (all with `allNamespaces`). */
export function servicesInScope(context: DoctorContext, options: DoctorOptions): Result<Service[], ErrNoService> {
  const scoped = context.dump.services.filter((s) => inScope(s, options));
  if (options.services.length === 0) return ok([...scoped].sort((a, b) => compare(serviceKey(a), serviceKey(b))));
  const chosen: Service[] = [];
  for (const name of options.services) {
    const found = scoped.filter((s) => s.metadata.name === name);
    if (found.length === 0) {
      const where = options.allNamespaces ? 'any namespace' : `namespace ${options.namespace}`;
      return err({ _tag: 'ErrNoService', message: `${context.dump.source}: no Service ${JSON.stringify(name)} in ${where}` });
    }
    chosen.push(...found);
  }
  return ok([...new Map(chosen.map((s) => [serviceKey(s), s])).values()].sort((a, b) => compare(serviceKey(a), serviceKey(b))));
}

/** Runs every check on the Services in scope. */
export function runDoctor(context: DoctorContext, options: DoctorOptions): Result<DoctorReport, ErrNoService> {
  const scoped = servicesInScope(context, options);
  if (!scoped.ok) return scoped;
  const services = scoped.value;
  const keys = new Set(services.map(serviceKey));
  const { nodes, synthesized } = nodesForControllers(context);
  const cache = dumpCacheView(context, nodes);
  const rules = new NodeRules(context);
  const zone = zoneOfDump(context.dump, { zone: CLUSTER_ZONE, pods: 'disabled' });
  const findings: Finding[] = [];
  // A dump taken without pods (`kubectl get svc,endpointslices`) says nothing of them: the
  // checks that compare selectors, pods and endpoints would all fail for want of them.
  const podsKnown = context.dump.pods.length > 0;
  const notices = podsKnown ? [] : [`${context.dump.source} holds no Pods: the selector, pod and endpoint checks were skipped`];
  const local = services.filter((s) => s.spec?.externalTrafficPolicy === 'Local' || s.spec?.internalTrafficPolicy === 'Local');
  if (rules.nodes.length === 0 && local.length > 0) {
    notices.push(`${context.dump.source} holds no Nodes: the Nodes that drop the traffic of a Local traffic policy were not traced (${local.map(serviceKey).join(', ')})`);
  }
  for (const service of services) {
    if (podsKnown || service.spec?.selector === undefined || Object.keys(service.spec.selector).length === 0) {
      findings.push(...endpointsDisagree(context, service, cache, synthesized));
    }
    if (podsKnown) findings.push(...selectorMatchesNoPod(context, service), ...podsNotReady(context, service), ...targetPortNotExposed(context, service));
    findings.push(
      ...noLocalEndpoints(context, service, rules),
      ...affinityTimeoutShort(context, service),
    );
    if (options.includeInfo) {
      findings.push(...clusterIPNoPing(context, service));
      const namespace = service.metadata.namespace ?? 'default';
      const from = podInOtherNamespace(context.dump.pods, namespace);
      if (options.dnsQuestion === undefined && from !== undefined && zone.ok && !isExternalName(service)) {
        findings.push(ndotsExpansion(context, zone.value, { name: service.metadata.name ?? '', pod: from, explicit: false }, serviceKey(service)));
      }
    }
  }
  // A pod's subdomain is about the Service it names, which may not exist: in scope when its
  // namespace is, and when Services are named, when it is one of them.
  const named = new Set(options.services);
  for (const finding of headlessNameMissing(context, context.dump.pods, context.dump.services)) {
    const [namespace = '', name = ''] = finding.service.split('/');
    if (!(options.allNamespaces || namespace === options.namespace)) continue;
    if (named.size > 0 && !named.has(name)) continue;
    findings.push(finding);
  }
  if (options.dnsQuestion !== undefined && zone.ok) {
    const { name, pod } = options.dnsQuestion;
    const first = name.replace(/\.$/, '').split('.');
    const about = `${first[1] !== undefined && context.dump.services.some((s) => s.metadata.namespace === first[1]) ? first[1] : (pod.metadata.namespace ?? 'default')}/${first[0] ?? ''}`;
    findings.push(ndotsExpansion(context, zone.value, { name, pod, explicit: true }, about));
  }
  const shown = options.includeInfo ? findings : findings.filter((f) => f.severity !== 'info');
  return ok({ services: [...keys].sort(compare), findings: sortFindings(shown), notices });
}

/** Any error-level finding: the command exits 1. */
export function hasError(report: DoctorReport): boolean {
  return report.findings.some((f) => f.severity === 'error');
}

function findingText(f: Finding): string[] {
  return [`  ${f.severity.padEnd(7)} ${f.code}: ${f.summary}`, ...f.evidence.map((e) => `            ${e}`), `            why: ${f.reason}`, `            more: ${f.command}`];
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The text report: a block per Service, problems by severity, then its notes; a healthy Service says so. */
export function formatDoctorText(report: DoctorReport): string {
  const blocks = new Map<string, Finding[]>(report.services.map((k) => [k, []]));
  for (const f of report.findings) blocks.set(f.service, [...(blocks.get(f.service) ?? []), f]);
  const known = new Set(report.services);
  const lines: string[] = [];
  for (const key of [...blocks.keys()].sort(compare)) {
    const findings = blocks.get(key) ?? [];
    lines.push(`Service ${key}${known.has(key) ? '' : ' (not among the Services checked)'}`);
    const problems = findings.filter((f) => f.severity === 'error' || f.severity === 'warning');
    const notes = findings.filter((f) => f.severity === 'note' || f.severity === 'info');
    if (problems.length === 0) lines.push('  no problem found');
    for (const f of problems) lines.push(...findingText(f));
    if (notes.length > 0) {
      lines.push('  notes:');
      for (const f of notes) lines.push(...findingText(f));
    }
    lines.push('');
  }
  const bySeverity = (s: string): number => report.findings.filter((f) => f.severity === s).length;
  lines.push(
    `${count(report.services.length, 'Service')} checked: ${count(bySeverity('error'), 'error')}, ${count(bySeverity('warning'), 'warning')}, ${count(bySeverity('note'), 'note')}${
      bySeverity('info') > 0 ? `, ${bySeverity('info')} info` : ''
    }`,
  );
  return `${lines.join('\n')}\n`;
}

/** `-o json`: `{ findings: [...] }`, each with its code, severity, Service, summary, evidence, reason and command. */
export function doctorData(report: DoctorReport): { findings: Finding[] } {
  return { findings: report.findings.map((f) => ({ code: f.code, severity: f.severity, service: f.service, summary: f.summary, evidence: [...f.evidence], reason: f.reason, command: f.command })) };
}
