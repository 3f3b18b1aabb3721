// `kubesvc doctor`'s DNS checks: how many names a pod's resolver tries before a Service's name
// answers (NdotsExpansion), and pods whose `<hostname>.<subdomain>` gets no record
// (HeadlessNameMissing). Pure.
//
// @kubesvc/discovery answers one name and writes a pod's resolv.conf, but does not model the
// stub resolver's search: the expansion is computed here as glibc's res_nsearch does it
// (resolv/res_query.c): a name with a trailing dot is asked as it is; one with at least ndots
// dots is asked as it is first; then with each search domain in order; then, when not asked
// yet, as it is. The search stops at the first name that answers. getaddrinfo asks each name
// for A and AAAA.
// upstream (v1.33): pkg/kubelet/network/dns/dns.go (the search list and ndots:5 of a
// ClusterFirst pod), staging/src/k8s.io/endpointslice/util/controller_utils.go
// (ShouldSetHostname), and the cluster DNS specification (a headless Service's endpoints with
// a hostname get `<hostname>.<service>.<namespace>.svc.<zone>`).
import { isRecord, type DNSPolicy, type Pod, type Service } from '@kubesvc/api-types';
import { resolvConf, resolve, type Zone } from '@kubesvc/discovery';
import { clusterIPsOf, compare, podKey, selectorText, selects, type DoctorContext, type Finding, type Severity } from './finding.js';

export const CLUSTER_ZONE = 'cluster.local';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** One name the resolver asks, and what the cluster DNS answers. */
export interface SearchStep {
  readonly name: string;
  /** NOERROR with an address, NXDOMAIN/NODATA, or forwarded (outside the cluster domain: not known here). */
  readonly outcome: 'answer' | 'NXDOMAIN' | 'NODATA' | 'forwarded';
}

/** The pod's search list and ndots, from the resolv.conf kubelet writes for it. */
export function podResolver(pod: Pod, dnsServiceIP: string, zone = CLUSTER_ZONE): { readonly searches: string[]; readonly ndots: number } {
  const spec = (pod.spec ?? {}) as Record<string, unknown>;
  // The loose schema keeps dnsConfig as it came: only lists of strings (and of { name, value }) are read.
  const raw = isRecord(spec['dnsConfig']) ? spec['dnsConfig'] : undefined;
  const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
  const options = Array.isArray(raw?.['options'])
    ? (raw['options'] as unknown[]).filter(isRecord).map((o) => ({ name: typeof o['name'] === 'string' ? o['name'] : '', ...(typeof o['value'] === 'string' ? { value: o['value'] } : {}) }))
    : undefined;
  const nameservers = strings(raw?.['nameservers']);
  const searchList = strings(raw?.['searches']);
  const dnsConfig =
    raw === undefined ? undefined : { ...(nameservers !== undefined ? { nameservers } : {}), ...(searchList !== undefined ? { searches: searchList } : {}), ...(options !== undefined ? { options } : {}) };
  const text = resolvConf({
    namespace: pod.metadata.namespace ?? 'default',
    dnsServiceIP,
    zone,
    ...(pod.spec?.dnsPolicy !== undefined ? { dnsPolicy: pod.spec.dnsPolicy as DNSPolicy } : {}),
    ...(pod.spec?.hostNetwork !== undefined ? { hostNetwork: pod.spec.hostNetwork } : {}),
    ...(dnsConfig !== undefined
      ? {
          dnsConfig: {
            ...(dnsConfig.nameservers !== undefined ? { nameservers: dnsConfig.nameservers } : {}),
            ...(dnsConfig.searches !== undefined ? { searches: dnsConfig.searches } : {}),
            // PodDNSConfigOption is { name, value }; resolv.conf writes `name:value`.
            ...(dnsConfig.options !== undefined ? { options: dnsConfig.options.map((o) => (o.value === undefined ? o.name : `${o.name}:${o.value}`)) } : {}),
          },
        }
      : {}),
  });
  const lines = text.ok ? text.value.split('\n') : [];
  const searches = lines.find((l) => l.startsWith('search '))?.slice('search '.length).split(' ') ?? [];
  const ndotsOption = lines
    .find((l) => l.startsWith('options '))
    ?.split(' ')
    .find((o) => o.startsWith('ndots:'));
  // glibc's default is 1; kubelet writes ndots:5 for the cluster policies.
  const ndots = ndotsOption === undefined ? 1 : Math.min(15, Number(ndotsOption.slice('ndots:'.length)) || 0);
  return { searches, ndots };
}

/** The names glibc's res_nsearch asks for `name`, in order. */
export function searchNames(name: string, searches: readonly string[], ndots: number): string[] {
  if (name.endsWith('.')) return [name];
  const dots = [...name].filter((c) => c === '.').length;
  const out: string[] = [];
  if (dots >= ndots) out.push(`${name}.`);
  for (const domain of searches) out.push(`${name}.${domain.replace(/\.$/, '')}.`);
  if (dots < ndots) out.push(`${name}.`);
  return out;
}

function inClusterZone(name: string, zone: string): boolean {
  const lower = name.toLowerCase().replace(/\.$/, '');
  return lower === zone || lower.endsWith(`.${zone}`);
}

/** Asks the names in order until one answers (an A or AAAA record). */
export function searchSteps(dnsZone: Zone, names: readonly string[], zone = CLUSTER_ZONE): SearchStep[] {
  const steps: SearchStep[] = [];
  for (const name of names) {
    if (!inClusterZone(name, zone)) {
      steps.push({ name, outcome: 'forwarded' });
      continue;
    }
    const a = resolve(dnsZone, { name, type: 'A' });
    const aaaa = resolve(dnsZone, { name, type: 'AAAA' });
    const answered = [a, aaaa].some((r) => r.rcode === 'NOERROR' && r.answer.some((rr) => rr.type === 'A' || rr.type === 'AAAA'));
    steps.push({ name, outcome: answered ? 'answer' : a.rcode === 'NXDOMAIN' ? 'NXDOMAIN' : 'NODATA' });
    if (answered) break;
  }
  return steps;
}

export interface NdotsRequest {
  /** The name as the application gives it. */
  readonly name: string;
  readonly pod: Pod;
  /** Asked explicitly (`--dns-name`): a note, or a warning when nothing answers; otherwise info. */
  readonly explicit: boolean;
}

/** The Service a cluster name `<service>.<namespace>.svc.<zone>.` is about. */
function serviceOfName(name: string, zone: string): string | undefined {
  const m = new RegExp(`^([^.]+)\\.([^.]+)\\.svc\\.${zone.replace(/\./g, '\\.')}\\.?$`, 'i').exec(name);
  return m === null ? undefined : `${m[2] ?? ''}/${m[1] ?? ''}`;
}

/** NdotsExpansion: the names a pod's resolver tries for `name` and which one answers. */
export function ndotsExpansion(context: DoctorContext, dnsZone: Zone, request: NdotsRequest, about: string, zone = CLUSTER_ZONE): Finding {
  const dnsService = context.dump.services.find((s) => s.metadata.namespace === 'kube-system' && s.metadata.name === 'kube-dns');
  const resolver = podResolver(request.pod, (dnsService === undefined ? undefined : clusterIPsOf(dnsService)[0]) ?? '10.96.0.10', zone);
  const steps = searchSteps(dnsZone, searchNames(request.name, resolver.searches, resolver.ndots), zone);
  const answered = steps.find((s) => s.outcome === 'answer');
  const index = answered === undefined ? -1 : steps.indexOf(answered);
  const namespace = request.pod.metadata.namespace ?? 'default';
  const severity: Severity = request.explicit ? (answered === undefined ? 'warning' : 'note') : 'info';
  const qualified = about.split('/');
  const summary =
    answered === undefined
      ? `${JSON.stringify(request.name)} asked from pod ${podKey(request.pod)} gets no answer after ${steps.length} names (${steps.length * 2} queries)${
          request.explicit ? '' : `: from namespace ${namespace} use ${qualified[1] ?? ''}.${qualified[0] ?? ''}`
        }`
      : `${JSON.stringify(request.name)} asked from pod ${podKey(request.pod)} answers at name ${index + 1} of the search (${(index + 1) * 2} queries): ${answered.name}`;
  return {
    code: 'NdotsExpansion',
    severity,
    service: answered !== undefined ? (serviceOfName(answered.name, zone) ?? about) : about,
    summary,
    evidence: [
      `pod ${podKey(request.pod)}: search ${resolver.searches.join(' ') || '(none)'}; ndots:${resolver.ndots}`,
      ...steps.map((s, i) => `${i + 1}. ${s.name} ${s.outcome === 'forwarded' ? 'forwarded upstream (outside the cluster domain; taken as not answering here)' : s.outcome}`),
      "the node's own search domains are not in the input: they would come after these",
      'getaddrinfo asks each name for A and AAAA: two queries a name',
    ],
    reason:
      'A ClusterFirst pod\'s resolv.conf searches <namespace>.svc, svc and the cluster domain with ndots:5, so a name with fewer than 5 dots is tried with each search domain before it is asked as it is, and a Service\'s short name resolves only from its own namespace.',
    command: `kubectl exec -n ${namespace} ${request.pod.metadata.name ?? ''} -- cat /etc/resolv.conf`,
  };
}

/** The pod NdotsExpansion asks from by default: the first pod (by key) in another namespace that uses the cluster DNS. */
export function podInOtherNamespace(pods: readonly Pod[], namespace: string): Pod | undefined {
  return pods
    .filter((p) => (p.metadata.namespace ?? 'default') !== namespace && p.spec?.hostNetwork !== true && (p.spec?.dnsPolicy ?? 'ClusterFirst') !== 'None' && (p.spec?.dnsPolicy ?? 'ClusterFirst') !== 'Default')
    .sort((a, b) => compare(podKey(a), podKey(b)))[0];
}

/** HeadlessNameMissing: pods whose subdomain names no headless Service of their namespace, or that set no hostname. */
export function headlessNameMissing(_context: DoctorContext, pods: readonly Pod[], services: readonly Service[]): Finding[] {
  const findings: Finding[] = [];
  const bySubdomain = new Map<string, Pod[]>();
  for (const pod of pods) {
    const subdomain = pod.spec?.subdomain ?? '';
    if (subdomain === '') continue;
    const key = `${pod.metadata.namespace ?? 'default'}/${subdomain}`;
    bySubdomain.set(key, [...(bySubdomain.get(key) ?? []), pod]);
  }
  for (const [key, members] of [...bySubdomain].sort(([a], [b]) => compare(a, b))) {
    const [namespace = 'default', subdomain = ''] = key.split('/');
    const service = services.find((s) => (s.metadata.namespace ?? 'default') === namespace && s.metadata.name === subdomain);
    const sorted = [...members].sort((a, b) => compare(podKey(a), podKey(b)));
    const fqdn = (p: Pod): string => `${p.spec?.hostname ?? p.metadata.name ?? ''}.${subdomain}.${namespace}.svc.${CLUSTER_ZONE}`;
    const base = {
      code: 'HeadlessNameMissing' as const,
      service: key,
      reason:
        "The cluster DNS gives a pod the name <hostname>.<subdomain>.<namespace>.svc.<zone> only through the endpoints of a headless Service named as its subdomain, in its namespace, and the endpoint controllers set an endpoint's hostname only for a pod whose spec.hostname is set.",
      command: `kubectl get service -n ${namespace} ${subdomain} -o wide`,
    };
    const headless = service !== undefined && service.spec?.clusterIP === 'None';
    if (service === undefined || !headless) {
      findings.push({
        ...base,
        severity: 'error',
        summary:
          service === undefined
            ? `${plural(sorted.length, 'pod')} name${sorted.length === 1 ? 's' : ''} subdomain ${subdomain}, but namespace ${namespace} has no Service ${subdomain}: ${sorted.map(fqdn)[0] ?? ''} gets no record`
            : `${plural(sorted.length, 'pod')} name${sorted.length === 1 ? 's' : ''} subdomain ${subdomain}, but Service ${key} is not headless (clusterIP ${service.spec?.clusterIP ?? 'unset'}): ${sorted.map(fqdn)[0] ?? ''} gets no record`,
        evidence: [
          ...sorted.slice(0, 5).map((p) => `pod ${podKey(p)}: spec.subdomain ${subdomain}, spec.hostname ${p.spec?.hostname ?? 'unset'}`),
          service === undefined ? `no Service ${key} in the input` : `Service ${key}: spec.clusterIP ${service.spec?.clusterIP ?? 'unset'} (a headless Service has None)`,
        ],
      });
      continue;
    }
    // The Service's endpoints are the pods its selector picks: a pod it does not select has no
    // endpoint to carry its hostname.
    const selector = service.spec?.selector ?? {};
    const unselected = Object.keys(selector).length === 0 ? [] : sorted.filter((p) => !selects(selector, p.metadata.labels));
    if (unselected.length > 0) {
      findings.push({
        ...base,
        severity: 'warning',
        summary: `${plural(unselected.length, 'pod')} name${unselected.length === 1 ? 's' : ''} subdomain ${subdomain}, but the headless Service ${key} does not select ${unselected.length === 1 ? 'it' : 'them'}: ${fqdn(unselected[0] as Pod)} gets no record`,
        evidence: [`Service ${key}: spec.selector ${selectorText(selector)}`, ...unselected.slice(0, 5).map((p) => `pod ${podKey(p)}: labels ${selectorText(p.metadata.labels ?? {}) || '(none)'}`)],
      });
    }
    const nameless = sorted.filter((p) => (p.spec?.hostname ?? '') === '');
    if (nameless.length > 0) {
      findings.push({
        ...base,
        severity: 'warning',
        summary: `${plural(nameless.length, 'pod')} name${nameless.length === 1 ? 's' : ''} subdomain ${subdomain} without a spec.hostname: ${fqdn(nameless[0] as Pod)} gets no record`,
        evidence: nameless.slice(0, 5).map((p) => `pod ${podKey(p)}: spec.subdomain ${subdomain}, spec.hostname unset (its endpoint is named after its IP)`),
      });
    }
  }
  return findings;
}

