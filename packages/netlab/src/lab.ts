// The network-namespace lab: one node, its pods, kube-proxy's rules in the node's kernel tables.
//
// Layout (names carry the run's prefix, e.g. `kl3f9a2c`):
//
//   <prefix>-node      the node's network namespace: its "host network", where kube-proxy's rules live
//     lo
//     <prefix>br       bridge, 10.244.0.1/24: the pods' gateway (the CNI bridge, cni0 on a real node)
//     <prefix>v<i>     veth to pod i, a port of the bridge (hairpin on, as the bridge CNI plugin sets)
//     <prefix>up       the node's uplink, 192.0.2.10/24: the node IP. Its peer <prefix>ux stays down,
//                      so the default route (via 192.0.2.1, a permanent neighbour entry) leads
//                      nowhere: what a real node would send to its gateway is dropped here, silently.
//   <prefix>-<pod>     one namespace per pod: eth0 (the veth's other end) with 10.244.0.<i+2>/24,
//                      default route via 10.244.0.1
//
// Every link is created inside a lab namespace (never in the namespace the lab is started from),
// no link reaches outside them, and every address exists only inside them.
//
// In the `routed` topology (used when br_netfilter is missing, or when asked for) there is no
// bridge: each pod's veth is a point-to-point link, the pod has 10.244.0.<i+2>/32 with an
// on-link route to its gateway 10.244.0.1, and the node holds 10.244.0.1/32 on every pod veth
// plus a /32 route per pod. Every packet between pods is then routed by the node, so iptables
// sees it without br_netfilter.
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import {
  builtinRules,
  printRule,
  proxierConfig,
  sync,
  syncedRuleset,
  tracePacket,
  type Packet,
  type ProxierConfig,
  type Ruleset,
  type SyncOptions,
  type SyncResult,
  type SyncState,
  type TableName,
  type TraceOptions,
  type TraceResult,
} from '@kubesvc/proxy-iptables';
import { loadKernel } from '@kubesvc/proxy-iptables/wasm';
import {
  applyTransaction,
  generateNftablesRules,
  nftablesProxierConfig,
  tracePacket as traceNftables,
  type NftablesProxierConfig,
  type NftablesRules,
  type NftTable,
  type TraceOptions as NftTraceOptions,
  type TraceResult as NftTraceResult,
} from '@kubesvc/proxy-nftables';
import { AgentProcess, startBackendAgent } from './agents.js';
import { LabBase } from './lab-base.js';
import { BACKEND_TCP_PORT, BACKEND_UDP_PORT } from './cluster.js';
import { installed, must } from './commands.js';
import { hasBrNetfilter, ipIn, plugIntoBridge, PREFIX_PATTERN, randomPrefix, sysctlIn } from './netns.js';

export type IptablesBackend = 'nft' | 'legacy';
/** Which kube-proxy mode's rules the node holds: iptables (v1.31) or nftables (v1.33). */
export type LabProxyMode = 'iptables' | 'nftables';
export type Topology = 'bridge' | 'routed';

export interface LabDescription {
  /** Client pods (no server). Default `['client']`. */
  readonly clients?: readonly string[];
  /** Backend pods, each running a TCP and a UDP server that answer with the pod's name. */
  readonly backends: readonly string[];
  /** Which iptables-restore loads the rules (iptables mode). Default `nft`. */
  readonly iptables?: IptablesBackend;
  /** kube-proxy's mode. Default `iptables`; `nftables` loads v1.33's table with `nft -f` (syncNftables). */
  readonly proxyMode?: LabProxyMode;
  /** Default `auto`: `bridge` when the kernel has br_netfilter, else `routed`. */
  readonly topology?: Topology | 'auto';
  /** Default: `kl` and six random characters. At most 8 characters, [a-z0-9]. */
  readonly prefix?: string;
  /** The node's name in kube-proxy's config and the endpoints. Default `node-1`. */
  readonly nodeName?: string;
}

export interface LabPod {
  readonly name: string;
  readonly role: 'client' | 'backend';
  readonly namespace: string;
  readonly ip: string;
  /** The node end of its veth. */
  readonly veth: string;
}

/** The pod network of the node (the node's podCIDR) and the cluster's (the local detector). */
export const NODE_POD_CIDR = '10.244.0.0/24';
export const CLUSTER_CIDR = '10.244.0.0/16';
export const POD_GATEWAY = '10.244.0.1';
/** The node IP. A TEST-NET-1 address (RFC 5737): documentation only, routed nowhere. */
export const NODE_IP = '192.0.2.10';
/** The ServiceCIDR the demo cluster's ClusterIPs come from (nftables mode drops its unallocated addresses). */
export const SERVICE_CIDR = '10.96.0.0/16';
const UPLINK_CIDR = '192.0.2.10/24';
const UPLINK_GATEWAY = '192.0.2.1';
const UPLINK_GATEWAY_MAC = '02:00:00:00:00:01';
const POD_NAME_PATTERN = /^[a-z0-9]{1,20}$/;

/** Thrown when the lab cannot run here: not root, or a tool is missing. */
export class LabUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LabUnavailableError';
  }
}

function restoreCommand(backend: IptablesBackend): string {
  return `iptables-${backend}-restore`;
}

/** Why the lab cannot run on this machine, or undefined when it can. */
export function labUnavailable(backend: IptablesBackend = 'nft', proxyMode: LabProxyMode = 'iptables'): string | undefined {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    return 'the network-namespace lab needs root (it creates network namespaces and loads iptables rules); run it as root, as CI does.';
  }
  const rules: ReadonlyArray<readonly [string, string]> =
    proxyMode === 'nftables'
      ? [['nft', 'nftables']]
      : [
          [restoreCommand(backend), 'iptables'],
          [`iptables-${backend}-save`, 'iptables'],
        ];
  const tools: ReadonlyArray<readonly [string, string]> = [['ip', 'iproute2'], ...rules, ['ping', 'iputils-ping']];
  const absent = tools.filter(([tool]) => !installed(tool));
  if (absent.length > 0) {
    const packages = [...new Set(absent.map(([, pkg]) => pkg))].join(' ');
    return `the network-namespace lab needs ${absent.map(([t]) => t).join(', ')}: apt-get install -y ${packages} (.ci/run installs them).`;
  }
  return undefined;
}

/** What an nftables sync loaded, and how. */
export interface LabNftablesSync {
  readonly rules: NftablesRules;
  /** The `nft -f` command line used. */
  readonly command: readonly string[];
}

/** What a sync loaded, and how. */
export interface LabSync {
  readonly result: SyncResult;
  /** The iptables-restore command line used. */
  readonly command: readonly string[];
}

export class Lab extends LabBase {
  readonly prefix: string;
  readonly iptables: IptablesBackend;
  readonly proxyMode: LabProxyMode;
  readonly nodeName: string;
  readonly nodeNamespace: string;
  readonly nodeIP = NODE_IP;
  readonly bridge: string;
  readonly uplink: string;
  readonly pods: readonly LabPod[];
  /** kube-proxy's settings for this node (iptables mode). */
  readonly config: ProxierConfig;
  /** kube-proxy's settings for this node in nftables mode. */
  readonly nftablesConfig: NftablesProxierConfig;
  private readonly backendAgents = new Map<string, AgentProcess>();
  private state: SyncState | undefined;
  private nftState: NftTable | undefined;
  // Decided once the node namespace exists (br_netfilter's sysctls are per namespace).
  private chosenTopology: Topology = 'bridge';

  private constructor(description: LabDescription, prefix: string) {
    super();
    this.prefix = prefix;
    this.iptables = description.iptables ?? 'nft';
    this.proxyMode = description.proxyMode ?? 'iptables';
    this.nodeName = description.nodeName ?? 'node-1';
    this.nodeNamespace = `${prefix}-node`;
    this.bridge = `${prefix}br`;
    this.uplink = `${prefix}up`;
    const clients = description.clients ?? ['client'];
    const named = [...clients.map((name) => ({ name, role: 'client' as const })), ...description.backends.map((name) => ({ name, role: 'backend' as const }))];
    if (named.length > 250) throw new RangeError('a lab has at most 250 pods (one /24)');
    const seen = new Set<string>();
    for (const { name } of named) {
      if (!POD_NAME_PATTERN.test(name) || name === 'node') throw new RangeError(`pod name ${JSON.stringify(name)} must be [a-z0-9]{1,20} and not "node"`);
      if (seen.has(name)) throw new RangeError(`pod name ${name} is used twice`);
      seen.add(name);
    }
    this.pods = named.map(({ name, role }, i) => ({ name, role, namespace: `${prefix}-${name}`, ip: `10.244.0.${i + 2}`, veth: `${prefix}v${i}` }));
    const config = proxierConfig({
      kernel: loadKernel(),
      nodeName: this.nodeName,
      nodeIPs: [NODE_IP, POD_GATEWAY, '127.0.0.1'],
      localDetector: { kind: 'cidr', cidr: CLUSTER_CIDR },
    });
    // The settings are the lab's own constants: a refusal is a bug in the lab.
    if (!config.ok) throw new Error(`netlab proxier config refused: ${config.error.message}`);
    this.config = config.value;
    const nft = nftablesProxierConfig({
      nodeName: this.nodeName,
      nodeIPs: [NODE_IP, POD_GATEWAY, '127.0.0.1'],
      localDetector: { kind: 'cidr', cidr: CLUSTER_CIDR },
      serviceCIDRs: [SERVICE_CIDR],
    });
    if (!nft.ok) throw new Error(`netlab nftables proxier config refused: ${nft.error.message}`);
    this.nftablesConfig = nft.value;
  }

  /**
   * Builds the lab: namespaces, links, addresses, routes, kernel settings, and the backends'
   * servers (waits until each listens). No rules are loaded yet: call `sync`. If anything
   * fails, whatever was made is removed before the error is thrown.
   */
  static async create(description: LabDescription): Promise<Lab> {
    const backend = description.iptables ?? 'nft';
    const why = labUnavailable(backend, description.proxyMode ?? 'iptables');
    if (why !== undefined) throw new LabUnavailableError(why);
    const prefix = description.prefix ?? randomPrefix();
    if (!PREFIX_PATTERN.test(prefix)) throw new RangeError(`lab prefix ${JSON.stringify(prefix)} must be 1 to 8 of [a-z0-9]`);
    const wanted = description.topology ?? 'auto';
    const lab = new Lab(description, prefix);
    await lab.built(async () => {
      lab.addNamespace(lab.nodeNamespace);
      // `auto` is decided by the node namespace itself: br_netfilter's sysctls are per namespace.
      const topology = wanted === 'auto' ? (hasBrNetfilter(lab.nodeNamespace) ? 'bridge' : 'routed') : wanted;
      if (topology === 'bridge' && !hasBrNetfilter(lab.nodeNamespace)) {
        throw new LabUnavailableError('the bridge topology needs br_netfilter (net.bridge.bridge-nf-call-iptables), which this kernel lacks; use topology "routed"');
      }
      lab.chosenTopology = topology;
      lab.buildNode();
      for (const pod of lab.pods) lab.buildPod(pod);
      await lab.startBackends();
    });
    return lab;
  }

  private buildNode(): void {
    const ns = this.nodeNamespace;
    ipIn(ns, 'link', 'set', 'lo', 'up');
    if (this.topology === 'bridge') {
      ipIn(ns, 'link', 'add', this.bridge, 'type', 'bridge');
      ipIn(ns, 'addr', 'add', `${POD_GATEWAY}/24`, 'dev', this.bridge);
      ipIn(ns, 'link', 'set', this.bridge, 'up');
    }
    ipIn(ns, 'link', 'add', this.uplink, 'type', 'veth', 'peer', 'name', `${this.prefix}ux`);
    ipIn(ns, 'addr', 'add', UPLINK_CIDR, 'dev', this.uplink);
    ipIn(ns, 'link', 'set', this.uplink, 'up');
    ipIn(ns, 'neigh', 'replace', UPLINK_GATEWAY, 'lladdr', UPLINK_GATEWAY_MAC, 'nud', 'permanent', 'dev', this.uplink);
    ipIn(ns, 'route', 'add', 'default', 'via', UPLINK_GATEWAY, 'dev', this.uplink, 'onlink');
    // What kube-proxy (and the node setup it relies on) needs; see the README, "Kernel settings".
    this.sysctl('net.ipv4.ip_forward', '1');
    this.sysctl('net.ipv4.conf.all.route_localnet', '1');
    if (this.topology === 'bridge') this.sysctl('net.bridge.bridge-nf-call-iptables', '1');
  }

  private buildPod(pod: LabPod): void {
    const ns = this.nodeNamespace;
    this.addNamespace(pod.namespace);
    if (this.topology === 'bridge') {
      plugIntoBridge({ nodeNamespace: ns, bridge: this.bridge, veth: pod.veth, podNamespace: pod.namespace, address: `${pod.ip}/24`, gateway: POD_GATEWAY });
    } else {
      ipIn(pod.namespace, 'link', 'set', 'lo', 'up');
      // Both ends are created inside lab namespaces: the veth never exists where the lab runs from.
      ipIn(ns, 'link', 'add', pod.veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', pod.namespace);
      ipIn(ns, 'addr', 'add', `${POD_GATEWAY}/32`, 'dev', pod.veth);
      ipIn(ns, 'link', 'set', pod.veth, 'up');
      ipIn(ns, 'route', 'add', `${pod.ip}/32`, 'dev', pod.veth);
      ipIn(pod.namespace, 'addr', 'add', `${pod.ip}/32`, 'dev', 'eth0');
      ipIn(pod.namespace, 'link', 'set', 'eth0', 'up');
      ipIn(pod.namespace, 'route', 'add', POD_GATEWAY, 'dev', 'eth0', 'scope', 'link');
      ipIn(pod.namespace, 'route', 'add', 'default', 'via', POD_GATEWAY, 'dev', 'eth0');
    }
  }

  private async startBackends(): Promise<void> {
    const started = this.pods
      .filter((p) => p.role === 'backend')
      .map((pod) => {
        const { agent, ready } = startBackendAgent(pod.namespace, pod.name, { tcpPort: BACKEND_TCP_PORT, udpPort: BACKEND_UDP_PORT });
        this.agents.push(agent);
        this.backendAgents.set(pod.name, agent);
        return ready;
      });
    await Promise.all(started);
  }

  /** `bridge`: pods on a bridge (br_netfilter); `routed`: point-to-point veths, every packet routed by the node. */
  get topology(): Topology {
    return this.chosenTopology;
  }

  /** Sets a sysctl inside the node namespace (never in the namespace the lab runs from). */
  sysctl(name: string, value: string): void {
    sysctlIn(this.nodeNamespace, name, value);
  }

  readSysctl(name: string): string {
    return must(['ip', 'netns', 'exec', this.nodeNamespace, 'sysctl', '-n', name]).trim();
  }

  pod(name: string): LabPod {
    const pod = this.pods.find((p) => p.name === name);
    if (pod === undefined) throw new RangeError(`the lab has no pod ${name}`);
    return pod;
  }

  /** The pod a `name ip:port` reply came from, by IP. */
  podByIP(ip: string): LabPod | undefined {
    return this.pods.find((p) => p.ip === ip);
  }

  get backendIPs(): readonly string[] {
    return this.pods.filter((p) => p.role === 'backend').map((p) => p.ip);
  }

  /** The pid of a backend pod's server. */
  backendPid(name: string): number | undefined {
    return this.backendAgents.get(name)?.pid;
  }

  /** `iptables-restore --noflush` in the node namespace, as kube-proxy loads every sync: the text, or its bytes (a sync's restoreBytes). */
  restore(text: string | Uint8Array): readonly string[] {
    const command = ['ip', 'netns', 'exec', this.nodeNamespace, restoreCommand(this.iptables), '-w', '5', '--noflush'];
    must(command, { input: text });
    return command;
  }

  /**
   * One kube-proxy sync: proxy-iptables' `sync` from the last state, its restore text loaded with
   * `iptables-restore --noflush` (kube-proxy passes --noflush to every sync, full or partial; a
   * full sync's text simply names every chain). The first sync also adds kube-proxy's jump rules
   * to the built-in chains, as its EnsureRule calls do.
   */
  sync(services: readonly Service[], endpointSlices: readonly EndpointSlice[], options: SyncOptions = {}): LabSync {
    const first = this.state === undefined;
    const result = sync(this.state, services, endpointSlices, this.config, options);
    const command = this.restore(result.restoreText);
    this.state = result.state;
    if (first) this.restore(jumpRulesText(syncedRuleset(result.state)));
    return { result, command };
  }

  /**
   * One sync of v1.33's nftables proxier (nftables mode): the first sync's transaction of a
   * fresh proxier for these objects, loaded with `nft -f` in the node namespace. Each call
   * writes the whole table again, as a restarted kube-proxy does; the transaction flushes
   * and refills what it owns, so it applies over the table the last call left.
   */
  syncNftables(services: readonly Service[], endpointSlices: readonly EndpointSlice[]): LabNftablesSync {
    if (this.proxyMode !== 'nftables') throw new Error('syncNftables needs a lab made with proxyMode nftables');
    const rules = generateNftablesRules(services, endpointSlices, this.nftablesConfig);
    const applied = applyTransaction(this.nftState, rules.transaction);
    if (!applied.ok) throw new Error(`the model refused the transaction the kernel is about to get: ${applied.error.message}`);
    const command = ['ip', 'netns', 'exec', this.nodeNamespace, 'nft', '-f', '-'];
    must(command, { input: rules.text });
    this.nftState = applied.value;
    return { rules, command };
  }

  /**
   * Loads a given `nft -f` text in the node namespace (nftables mode): a proxier's own sync,
   * partial or full, as kube-proxy runs each one. `table` is the table the text leaves (the
   * proxier's model), which nftTable() and the tracer then use. Throws when nft refuses it,
   * and the lab's table stays as it was.
   */
  loadNftables(text: string, table: NftTable): readonly string[] {
    if (this.proxyMode !== 'nftables') throw new Error('loadNftables needs a lab made with proxyMode nftables');
    const command = ['ip', 'netns', 'exec', this.nodeNamespace, 'nft', '-f', '-'];
    must(command, { input: text });
    this.nftState = table;
    return command;
  }

  /** The table the node holds in nftables mode, as proxy-nftables models it (for its tracer). */
  nftTable(): NftTable {
    if (this.nftState === undefined) throw new Error('no nftables rules loaded yet: call syncNftables or loadNftables first');
    return this.nftState;
  }

  /** Traces a packet through the node's nftables table, as proxy-nftables' tracer predicts. */
  traceNftables(packet: Packet, extra: Partial<NftTraceOptions> = {}): NftTraceResult {
    return traceNftables(this.nftTable(), packet, { localAddresses: [NODE_IP, POD_GATEWAY], ...extra });
  }

  /** `nft list ruleset` of the node namespace. */
  nftListRuleset(): string {
    return must(['ip', 'netns', 'exec', this.nodeNamespace, 'nft', 'list', 'ruleset']);
  }

  /** The elements of a set of the node's kube-proxy table (nftables mode), e.g. an affinity set's client addresses. */
  nftSetElements(name: string): readonly string[] {
    const r = this.exec(this.nodeNamespace, ['nft', '-j', 'list', 'set', 'ip', 'kube-proxy', name]);
    if (r.status !== 0) return [];
    const items = (JSON.parse(r.stdout) as { nftables: Record<string, unknown>[] }).nftables;
    const set = items.find((i) => 'set' in i)?.['set'] as { elem?: unknown[] } | undefined;
    // An element of a timeout set is `{ elem: { val, timeout, expires } }`; of a plain set, the value.
    return (set?.elem ?? []).map((e) => String(typeof e === 'object' && e !== null && 'elem' in e ? (e as { elem: { val: unknown } }).elem.val : e));
  }

  /** The rules the node's tables hold, as proxy-iptables models them (for the tracer). */
  ruleset(): Ruleset {
    if (this.state === undefined) throw new Error('no rules loaded yet: call sync first');
    return syncedRuleset(this.state);
  }

  /** The tracer's options for this node: its local addresses. */
  traceOptions(extra: Partial<TraceOptions> = {}): TraceOptions {
    return { localAddresses: [NODE_IP, POD_GATEWAY], ...extra };
  }

  /** Traces a packet through the rules the node holds, as proxy-iptables' tracer predicts. */
  trace(packet: Packet, extra: Partial<TraceOptions> = {}): TraceResult {
    return tracePacket(this.ruleset(), packet, this.traceOptions(extra));
  }

  /** `iptables-save` of the node namespace. */
  iptablesSave(): string {
    return must(['ip', 'netns', 'exec', this.nodeNamespace, `iptables-${this.iptables}-save`]);
  }

  /** The source addresses an xt_recent list of the node namespace holds. */
  recentList(name: string): readonly string[] {
    const r = this.exec(this.nodeNamespace, ['cat', `/proc/net/xt_recent/${name}`]);
    if (r.status !== 0) return [];
    return [...r.stdout.matchAll(/^src=(\S+)/gm)].map((m) => m[1] ?? '');
  }

  /** One ICMP echo from a pod, waiting at most `waitSeconds` for the reply. */
  ping(from: string, address: string, waitSeconds = 1): { readonly replied: boolean; readonly output: string } {
    const r = this.exec(this.pod(from).namespace, ['ping', '-n', '-c', '1', '-W', String(waitSeconds), address]);
    return { replied: r.status === 0 && /bytes from/.test(r.stdout), output: r.stdout.trim() };
  }

  protected clientNamespace(from: string): string {
    return this.pod(from).namespace;
  }

}

/**
 * kube-proxy's jump rules into its chains, for the built-in chains, in the order its EnsureRule
 * calls leave them (proxy-iptables' builtinRules, which the tracer also uses), as restore text
 * that appends them (`--noflush` keeps the built-in chains' other rules).
 */
export function jumpRulesText(ruleset: Ruleset): string {
  const tables: TableName[] = ['filter', 'nat'];
  let text = '';
  for (const table of tables) {
    text += `*${table}\n`;
    for (const rules of builtinRules(ruleset, table).values()) for (const rule of rules) text += `${printRule(rule)}\n`;
    text += 'COMMIT\n';
  }
  return text;
}
