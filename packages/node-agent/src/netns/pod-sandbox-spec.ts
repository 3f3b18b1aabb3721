// What the pod network makes of a Pod object, without I/O: which pods get a namespace, the
// servers each container port gets (no images run: see agents/netexec.mjs of @kubesvc/netlab),
// where each container's log goes, and the resolv.conf the kubelet would write.
// upstream (v1.33): pkg/kubelet/network/dns/dns.go (GetPodDNS: ClusterFirst's nameserver and
//                   search paths, ndots:5; Default; None with dnsConfig; dnsConfig merged),
//                   pkg/kubelet/kuberuntime/kuberuntime_container.go (BuildContainerLogsDirectory:
//                   /var/log/pods/<namespace>_<pod>_<uid>/<container>/)
import { join } from 'node:path';
import type { Pod } from '@kubesvc/api-types';

/** A container port's server: HTTP (netexec's endpoints), or a TCP or UDP echo. */
export interface SandboxPort {
  readonly port: number;
  readonly protocol: 'TCP' | 'UDP';
  readonly http: boolean;
}

export interface SandboxContainer {
  readonly name: string;
  readonly ports: readonly SandboxPort[];
}

/** The port a pod gets when none of its containers declares one: nginx's, which most walk-throughs run. */
export const DEFAULT_HTTP_PORT = 80;

/** The ports served as HTTP: 80 and 8080, and any port whose name starts with `http`. */
export function isHttpPort(port: number, name: string | undefined, protocol: string): boolean {
  if (protocol !== 'TCP') return false;
  return port === 80 || port === 8080 || (name ?? '').startsWith('http');
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * The pod's containers and the servers their ports get (SCTP ports get none). A pod none of
 * whose containers declares a port gets an HTTP server on port 80 in its first container, as
 * the nginx image (`kubectl run nginx --image=nginx`) listens there without saying so.
 */
export function sandboxContainers(pod: Pod): SandboxContainer[] {
  const spec = record(pod.spec) ?? {};
  const containers = list(spec['containers']).map((c, i) => {
    const container = record(c) ?? {};
    const seen = new Set<string>();
    const ports: SandboxPort[] = [];
    for (const p of list(container['ports'])) {
      const port = record(p) ?? {};
      const number = port['containerPort'];
      const protocol = typeof port['protocol'] === 'string' ? port['protocol'] : 'TCP';
      if (typeof number !== 'number' || !Number.isInteger(number) || number < 1 || number > 65535) continue;
      if (protocol !== 'TCP' && protocol !== 'UDP') continue;
      const key = `${protocol}/${number}`;
      if (seen.has(key)) continue;
      seen.add(key);
      ports.push({ port: number, protocol, http: isHttpPort(number, typeof port['name'] === 'string' ? port['name'] : undefined, protocol) });
    }
    return { name: typeof container['name'] === 'string' ? container['name'] : `container-${i}`, ports };
  });
  const first = containers[0];
  if (first !== undefined && containers.every((c) => c.ports.length === 0)) {
    containers[0] = { ...first, ports: [{ port: DEFAULT_HTTP_PORT, protocol: 'TCP', http: true }] };
  }
  return containers;
}

/** Whether the pod network makes a namespace for the pod: it runs on one of `nodes`, not on the host network, with an IPv4 address. */
export function wantsSandbox(pod: Pod, nodes: ReadonlySet<string>): boolean {
  const spec = pod.spec;
  if (spec?.hostNetwork === true) return false;
  if (!nodes.has(spec?.nodeName ?? '')) return false;
  const ip = pod.status?.podIP ?? '';
  return /^\d+\.\d+\.\d+\.\d+$/.test(ip);
}

/** `<dataDir>/pods/<namespace>_<pod>_<uid>`: the pod's container logs, `<container>.log` each. */
export function podLogDir(dataDir: string, pod: Pod): string {
  return join(dataDir, 'pods', `${pod.metadata.namespace ?? 'default'}_${pod.metadata.name ?? ''}_${pod.metadata.uid ?? ''}`);
}

export interface ClusterDnsSettings {
  /** The kube-dns Service's ClusterIP (the kubelet's --cluster-dns). */
  readonly nameserver: string;
  /** The kubelet's --cluster-domain. */
  readonly clusterDomain: string;
}

interface DnsConfig {
  readonly nameservers: readonly string[];
  readonly searches: readonly string[];
  readonly options: readonly { readonly name: string; readonly value?: string }[];
}

function podDnsConfig(pod: Pod): DnsConfig {
  const config = record(record(pod.spec)?.['dnsConfig']) ?? {};
  const strings = (v: unknown): string[] => list(v).filter((s): s is string => typeof s === 'string');
  const options = list(config['options']).flatMap((o) => {
    const option = record(o);
    const name = option?.['name'];
    if (typeof name !== 'string') return [];
    const value = option?.['value'];
    return [typeof value === 'string' ? { name, value } : { name }];
  });
  return { nameservers: strings(config['nameservers']), searches: strings(config['searches']), options };
}

/**
 * The resolv.conf the kubelet writes for the pod, or undefined for dnsPolicy Default (the
 * node's own, which `ip netns exec` leaves in place). ClusterFirst: the cluster DNS, the search
 * paths `<ns>.svc.<domain> svc.<domain> <domain>`, `options ndots:5`; None: only the pod's
 * dnsConfig; either way dnsConfig's nameservers and searches are appended and its options
 * override by name. The node's own search paths are not appended (docs/deviations.md).
 */
export function resolvConf(pod: Pod, dns: ClusterDnsSettings): string | undefined {
  const policy = pod.spec?.dnsPolicy ?? 'ClusterFirst';
  if (policy === 'Default') return undefined;
  const extra = podDnsConfig(pod);
  const namespace = pod.metadata.namespace ?? 'default';
  const base: DnsConfig =
    policy === 'None'
      ? { nameservers: [], searches: [], options: [] }
      : { nameservers: [dns.nameserver], searches: [`${namespace}.svc.${dns.clusterDomain}`, `svc.${dns.clusterDomain}`, dns.clusterDomain], options: [{ name: 'ndots', value: '5' }] };
  const nameservers = [...new Set([...base.nameservers, ...extra.nameservers])].slice(0, 3);
  const searches = [...new Set([...base.searches, ...extra.searches])].slice(0, 32);
  const options = new Map<string, string | undefined>();
  for (const o of [...base.options, ...extra.options]) options.set(o.name, o.value);
  const lines: string[] = [];
  if (searches.length > 0) lines.push(`search ${searches.join(' ')}`);
  for (const n of nameservers) lines.push(`nameserver ${n}`);
  if (options.size > 0) lines.push(`options ${[...options].map(([name, value]) => (value === undefined ? name : `${name}:${value}`)).join(' ')}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The containers whose `command` or `args` no process carries out: no image runs, each port
 * gets a built-in server. The kubelet would run them; kubesvc says so on the pod instead.
 */
export function ignoredCommandContainers(pod: Pod): string[] {
  const spec = record(pod.spec) ?? {};
  return list(spec['containers']).flatMap((c, i) => {
    const container = record(c) ?? {};
    const given = list(container['command']).length > 0 || list(container['args']).length > 0;
    return given ? [typeof container['name'] === 'string' ? container['name'] : `container-${i}`] : [];
  });
}

/** The note `kubectl describe pod` shows for those containers (a Normal event from the kubelet). */
export function ignoredCommandMessage(containers: readonly string[]): string {
  const which = containers.length === 1 ? `container ${containers[0] ?? ''}` : `containers ${containers.join(', ')}`;
  return `kubesvc runs no image: the command and args of ${which} are ignored; each container port is served by a built-in netexec-like server`;
}
