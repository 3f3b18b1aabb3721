// The resolv.conf a pod gets. upstream: pkg/kubelet/network/dns/dns.go (GetPodDNS,
// generateSearchesForDNSClusterFirst, appendDNSConfig); containerd's CRI writes the file as
// `search`, then `nameserver` lines, then `options`.
import { err, ok, type DNSPolicy, type Result, describeValue, isRecord } from '@kubesvc/api-types';
import { errDiscoveryInput, type ErrDiscoveryInput } from '../env/service-env.js';
import { optionalStringsProblem } from './input-shape.js';

export interface DnsConfigLike {
  readonly nameservers?: readonly string[];
  readonly searches?: readonly string[];
  /** `ndots:5`, `edns0`: name, then `:value` if there is one. */
  readonly options?: readonly string[];
}

export interface ResolvConfInput {
  readonly namespace: string;
  /** The cluster DNS service's IP (kubelet's --cluster-dns). */
  readonly dnsServiceIP: string;
  /** The cluster domain. Default `cluster.local`. */
  readonly zone?: string;
  /** Default `ClusterFirst`, the apiserver's default. */
  readonly dnsPolicy?: DNSPolicy;
  /** The node's own resolv.conf, which `Default` copies. Default: empty. */
  readonly host?: DnsConfigLike;
  /** pod.spec.dnsConfig: the whole configuration for `None`, merged in for the others. */
  readonly dnsConfig?: DnsConfigLike;
  /** pod.spec.hostNetwork: ClusterFirst on the host network falls back to Default. */
  readonly hostNetwork?: boolean;
}

/** upstream: pkg/kubelet/network/dns/dns.go defaultDNSOptions */
const DEFAULT_DNS_OPTIONS = ['ndots:5'];

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** Options merge by name: a later `ndots:2` replaces `ndots:5`. upstream: dns.go mergeDNSOptions */
function mergeOptions(base: readonly string[], extra: readonly string[]): string[] {
  const byName = new Map<string, string>();
  for (const option of [...base, ...extra]) byName.set(option.split(':')[0] ?? option, option);
  return [...byName.values()];
}

const DNS_POLICIES: readonly string[] = ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'];

function dnsConfigProblem(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) return `${where}: expected { nameservers?, searches?, options? }, got ${describeValue(value)}`;
  return (
    optionalStringsProblem(value['nameservers'], `${where}.nameservers`) ??
    optionalStringsProblem(value['searches'], `${where}.searches`) ??
    optionalStringsProblem(value['options'], `${where}.options`)
  );
}

function inputProblem(input: unknown): string | undefined {
  if (!isRecord(input)) return `expected { namespace, dnsServiceIP, ... }, got ${describeValue(input)}`;
  for (const field of ['namespace', 'dnsServiceIP'] as const) {
    if (typeof input[field] !== 'string') return `${field}: expected a string, got ${describeValue(input[field])}`;
  }
  if (input['zone'] !== undefined && typeof input['zone'] !== 'string') return `zone: expected a string, got ${describeValue(input['zone'])}`;
  const policy = input['dnsPolicy'];
  // upstream: pkg/kubelet/network/dns/dns.go getPodDNSType refuses any other policy.
  if (policy !== undefined && (typeof policy !== 'string' || !DNS_POLICIES.includes(policy))) return `invalid DNSPolicy=${String(policy)}`;
  if (input['hostNetwork'] !== undefined && typeof input['hostNetwork'] !== 'boolean') {
    return `hostNetwork: expected a boolean, got ${describeValue(input['hostNetwork'])}`;
  }
  return dnsConfigProblem(input['host'], 'host') ?? dnsConfigProblem(input['dnsConfig'], 'dnsConfig');
}

/**
 * The pod's /etc/resolv.conf. An input of the wrong shape, or a DNS policy kubelet does not
 * know, is an ErrDiscoveryInput.
 */
export function resolvConf(input: ResolvConfInput): Result<string, ErrDiscoveryInput> {
  const wrong = inputProblem(input);
  return wrong === undefined ? ok(resolvConfText(input)) : err(errDiscoveryInput(wrong));
}

function resolvConfText(input: ResolvConfInput): string {
  const zone = (input.zone ?? 'cluster.local').replace(/\.$/, '');
  let policy = input.dnsPolicy ?? 'ClusterFirst';
  if (policy === 'ClusterFirst' && input.hostNetwork === true) policy = 'Default';
  let nameservers: string[];
  let searches: string[];
  let options: string[];
  switch (policy) {
    case 'None':
      nameservers = [];
      searches = [];
      options = [];
      break;
    case 'Default':
      nameservers = [...(input.host?.nameservers ?? [])];
      searches = [...(input.host?.searches ?? [])];
      options = [...(input.host?.options ?? [])];
      break;
    default:
      nameservers = [input.dnsServiceIP];
      searches = [`${input.namespace}.svc.${zone}`, `svc.${zone}`, zone, ...(input.host?.searches ?? [])];
      options = [...DEFAULT_DNS_OPTIONS];
      break;
  }
  const extra = input.dnsConfig;
  if (extra !== undefined) {
    nameservers = unique([...nameservers, ...(extra.nameservers ?? [])]);
    searches = unique([...searches, ...(extra.searches ?? [])]);
    options = mergeOptions(options, extra.options ?? []);
  }
  const lines: string[] = [];
  if (searches.length > 0) lines.push(`search ${searches.join(' ')}`);
  for (const ns of nameservers) lines.push(`nameserver ${ns}`);
  if (options.length > 0) lines.push(`options ${options.join(' ')}`);
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
