// The lab with several nodes: each node a network namespace with its own kube-proxy rules (its
// node name, node IP and zone), its pods on its own bridge, and a switch between the nodes and
// an external host, so that the same Service answers differently from node to node as upstream's
// rules make it: an `externalTrafficPolicy: Local` NodePort answers only on a node that runs an
// endpoint, zone hints keep a client's connections in its zone.
//
// Layout (names carry the run's prefix, e.g. `kl3f9a2c`; node i counts from 1):
//
//   <prefix>-net       the network between the nodes: bridge <prefix>sw, one port per node
//                      (<prefix>s<i>) and one for the external host (<prefix>se)
//   <prefix>-n<i>      node i: uplink <prefix>u<i> with the node IP 192.0.2.<10+i>/24, a route to
//                      every other node's pod range via that node's IP, a default route via
//                      192.0.2.1 (a permanent neighbour entry nobody answers: what a real node
//                      sends to its gateway goes nowhere), bridge <prefix>b<i> with 10.244.<i>.1/24
//   <prefix>-<pod>     one namespace per pod, on its node's bridge: 10.244.<i>.<k>/24
//   <prefix>-ext       a host outside the cluster on the nodes' network: 192.0.2.100/24
//
// Every link is made inside lab namespaces, and every address exists only inside them.
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { LABEL_TOPOLOGY_ZONE } from '@kubesvc/api-types';
import type { Packet } from '@kubesvc/proxy';
import { proxierConfig, sync, syncedRuleset, tracePacket, type ProxierConfig, type SyncState } from '@kubesvc/proxy-iptables';
import { loadKernel } from '@kubesvc/proxy-iptables/wasm';
import { applyTransaction, generateNftablesRules, nftablesProxierConfig, tracePacket as traceNftables, type NftablesProxierConfig, type NftTable } from '@kubesvc/proxy-nftables';
import { startBackendAgent } from './agents.js';
import { BACKEND_TCP_PORT, BACKEND_UDP_PORT } from './cluster.js';
import { must } from './commands.js';
import { CLUSTER_CIDR, jumpRulesText, labUnavailable, LabUnavailableError, SERVICE_CIDR, type IptablesBackend, type LabProxyMode } from './lab.js';
import { LabBase } from './lab-base.js';
import { hasBrNetfilter, ipIn, plugIntoBridge, PREFIX_PATTERN, randomPrefix, sysctlIn } from './netns.js';
import type { LabTraceResult } from './trace-result.js';

export interface LabNodeSpec {
  /** The Node's name: kube-proxy's `nodeName` on it, and its endpoints' `nodeName`. */
  readonly name: string;
  /** Its `topology.kubernetes.io/zone` label, which kube-proxy reads hints against. */
  readonly zone?: string;
  /** Client pods (no server). */
  readonly clients?: readonly string[];
  /** Backend pods, each answering TCP and UDP with its name. */
  readonly backends?: readonly string[];
}

export interface MultiNodeLabDescription {
  /** 2 to 8 nodes. */
  readonly nodes: readonly LabNodeSpec[];
  /** kube-proxy's mode on every node. Default `iptables`. */
  readonly proxyMode?: LabProxyMode;
  /** Which iptables-restore loads the rules (iptables mode). Default `nft`. */
  readonly iptables?: IptablesBackend;
  /** kube-proxy's PreferSameTrafficDistribution feature gate (node hints). Default off, as in v1.33. */
  readonly preferSameTrafficDistribution?: boolean;
  /** Default: `kl` and six random characters. At most 8 characters, [a-z0-9]. */
  readonly prefix?: string;
}

export interface LabNode {
  readonly name: string;
  /** Empty when the node has no zone label. */
  readonly zone: string;
  readonly namespace: string;
  readonly ip: string;
  /** The node's pod range, e.g. `10.244.1.0/24`. */
  readonly podCIDR: string;
  /** The node's bridge address: its pods' gateway. */
  readonly gateway: string;
}

export interface MultiNodePod {
  readonly name: string;
  readonly role: 'client' | 'backend';
  /** The node it runs on. */
  readonly node: string;
  readonly namespace: string;
  readonly ip: string;
}

/** What one node loaded in a sync. */
export interface NodeSync {
  readonly node: string;
  /** The command the rules went to (`iptables-restore` or `nft -f`, inside the node namespace). */
  readonly command: readonly string[];
  /** Restore text lines (iptables) or rules (nftables) loaded. */
  readonly size: number;
  readonly full: boolean;
}

/** The host outside the cluster, on the nodes' network. */
export const EXTERNAL_HOST = 'ext';
export const EXTERNAL_HOST_IP = '192.0.2.100';
const NODE_NETWORK_PREFIX = 24;
const NODE_GATEWAY = '192.0.2.1';
const NODE_GATEWAY_MAC = '02:00:00:00:00:01';
const MAX_NODES = 8;
const MAX_PODS_PER_NODE = 250;
const NODE_NAME_PATTERN = /^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$/;
const POD_NAME_PATTERN = /^[a-z0-9]{1,20}$/;
const RESERVED_POD_NAME = /^(net|ext|n\d+)$/;

/** Node i's address (1-based). */
const nodeIP = (i: number): string => `192.0.2.${10 + i}`;

interface NodeState {
  readonly node: LabNode;
  readonly index: number;
  readonly config: ProxierConfig;
  readonly nftablesConfig: NftablesProxierConfig;
  iptables: SyncState | undefined;
  nftables: NftTable | undefined;
}

function checkedDescription(description: MultiNodeLabDescription): { nodes: LabNode[]; pods: MultiNodePod[] } {
  const count = description.nodes.length;
  if (count < 2 || count > MAX_NODES) throw new RangeError(`a multi-node lab has 2 to ${MAX_NODES} nodes, not ${count}`);
  const nodeNames = new Set<string>();
  const podNames = new Set<string>();
  const nodes: LabNode[] = [];
  const pods: MultiNodePod[] = [];
  description.nodes.forEach((spec, n) => {
    const i = n + 1;
    if (!NODE_NAME_PATTERN.test(spec.name)) throw new RangeError(`node name ${JSON.stringify(spec.name)} must be 1 to 32 of [a-z0-9-], starting and ending with a letter or digit`);
    if (nodeNames.has(spec.name)) throw new RangeError(`node name ${spec.name} is used twice`);
    nodeNames.add(spec.name);
    const node: LabNode = { name: spec.name, zone: spec.zone ?? '', namespace: '', ip: nodeIP(i), podCIDR: `10.244.${i}.0/24`, gateway: `10.244.${i}.1` };
    nodes.push(node);
    const named = [...(spec.clients ?? []).map((name) => ({ name, role: 'client' as const })), ...(spec.backends ?? []).map((name) => ({ name, role: 'backend' as const }))];
    if (named.length > MAX_PODS_PER_NODE) throw new RangeError(`node ${spec.name} has more than ${MAX_PODS_PER_NODE} pods (one /24)`);
    named.forEach(({ name, role }, k) => {
      if (!POD_NAME_PATTERN.test(name) || RESERVED_POD_NAME.test(name)) throw new RangeError(`pod name ${JSON.stringify(name)} must be [a-z0-9]{1,20} and not "net", "ext" or n<digits>`);
      if (podNames.has(name)) throw new RangeError(`pod name ${name} is used twice`);
      podNames.add(name);
      pods.push({ name, role, node: spec.name, namespace: '', ip: `10.244.${i}.${k + 2}` });
    });
  });
  return { nodes, pods };
}

export class MultiNodeLab extends LabBase {
  readonly prefix: string;
  readonly proxyMode: LabProxyMode;
  readonly iptables: IptablesBackend;
  readonly nodes: readonly LabNode[];
  readonly pods: readonly MultiNodePod[];
  readonly networkNamespace: string;
  readonly externalNamespace: string;
  private readonly states: NodeState[];
  private readonly vethOf = new Map<string, string>();

  private constructor(description: MultiNodeLabDescription, prefix: string) {
    super();
    this.prefix = prefix;
    this.proxyMode = description.proxyMode ?? 'iptables';
    this.iptables = description.iptables ?? 'nft';
    const { nodes, pods } = checkedDescription(description);
    this.nodes = nodes.map((node, n) => ({ ...node, namespace: `${prefix}-n${n + 1}` }));
    this.pods = pods.map((pod, k) => {
      this.vethOf.set(pod.name, `${prefix}v${k}`);
      return { ...pod, namespace: `${prefix}-${pod.name}` };
    });
    this.networkNamespace = `${prefix}-net`;
    this.externalNamespace = `${prefix}-${EXTERNAL_HOST}`;
    const gate = description.preferSameTrafficDistribution ?? false;
    this.states = this.nodes.map((node, n) => {
      const shared = {
        nodeName: node.name,
        nodeIPs: [node.ip, node.gateway, '127.0.0.1'],
        localDetector: { kind: 'cidr' as const, cidr: CLUSTER_CIDR },
        topologyLabels: node.zone === '' ? {} : { [LABEL_TOPOLOGY_ZONE]: node.zone },
        preferSameTrafficDistribution: gate,
      };
      const config = proxierConfig({ kernel: loadKernel(), ...shared });
      // The settings are the lab's own constants: a refusal is a bug in the lab.
      if (!config.ok) throw new Error(`netlab proxier config refused: ${config.error.message}`);
      const nft = nftablesProxierConfig({ ...shared, serviceCIDRs: [SERVICE_CIDR] });
      if (!nft.ok) throw new Error(`netlab nftables proxier config refused: ${nft.error.message}`);
      return { node, index: n + 1, config: config.value, nftablesConfig: nft.value, iptables: undefined, nftables: undefined };
    });
  }

  /**
   * Builds the lab: the nodes' network, the nodes, their pods, the external host, and the
   * backends' servers (waits until each listens). No rules are loaded yet: call `sync`. A
   * description that names something wrongly is refused before anything is made; if anything
   * fails later, whatever was made is removed before the error is thrown.
   */
  static async create(description: MultiNodeLabDescription): Promise<MultiNodeLab> {
    const prefix = description.prefix ?? randomPrefix();
    if (!PREFIX_PATTERN.test(prefix)) throw new RangeError(`lab prefix ${JSON.stringify(prefix)} must be 1 to 8 of [a-z0-9]`);
    const lab = new MultiNodeLab(description, prefix);
    const why = labUnavailable(lab.iptables, lab.proxyMode);
    if (why !== undefined) throw new LabUnavailableError(why);
    await lab.built(async () => {
      lab.buildNetwork();
      for (const state of lab.states) lab.buildNode(state);
      for (const pod of lab.pods) lab.buildPod(pod);
      lab.buildExternalHost();
      await lab.startBackends();
    });
    return lab;
  }

  private get switchBridge(): string {
    return `${this.prefix}sw`;
  }

  private buildNetwork(): void {
    const ns = this.networkNamespace;
    this.addNamespace(ns);
    ipIn(ns, 'link', 'set', 'lo', 'up');
    ipIn(ns, 'link', 'add', this.switchBridge, 'type', 'bridge');
    ipIn(ns, 'link', 'set', this.switchBridge, 'up');
  }

  /** A veth from `namespace` (end `inside`, holding `address`) to a port `port` of the switch. */
  private cable(namespace: string, inside: string, port: string, address: string): void {
    ipIn(namespace, 'link', 'add', inside, 'type', 'veth', 'peer', 'name', port, 'netns', this.networkNamespace);
    ipIn(this.networkNamespace, 'link', 'set', port, 'master', this.switchBridge);
    ipIn(this.networkNamespace, 'link', 'set', port, 'up');
    ipIn(namespace, 'addr', 'add', address, 'dev', inside);
    ipIn(namespace, 'link', 'set', inside, 'up');
  }

  private buildNode({ node, index }: NodeState): void {
    const ns = node.namespace;
    this.addNamespace(ns);
    // br_netfilter's sysctls are per namespace: checked in the first node's own.
    if (!hasBrNetfilter(ns)) throw new LabUnavailableError('the multi-node lab puts pods on a bridge and needs br_netfilter (net.bridge.bridge-nf-call-iptables), which this kernel lacks');
    ipIn(ns, 'link', 'set', 'lo', 'up');
    const bridge = `${this.prefix}b${index}`;
    ipIn(ns, 'link', 'add', bridge, 'type', 'bridge');
    ipIn(ns, 'addr', 'add', `${node.gateway}/24`, 'dev', bridge);
    ipIn(ns, 'link', 'set', bridge, 'up');
    const uplink = `${this.prefix}u${index}`;
    this.cable(ns, uplink, `${this.prefix}s${index}`, `${node.ip}/${NODE_NETWORK_PREFIX}`);
    for (const other of this.nodes) {
      if (other.name !== node.name) ipIn(ns, 'route', 'add', other.podCIDR, 'via', other.ip, 'dev', uplink);
    }
    ipIn(ns, 'neigh', 'replace', NODE_GATEWAY, 'lladdr', NODE_GATEWAY_MAC, 'nud', 'permanent', 'dev', uplink);
    ipIn(ns, 'route', 'add', 'default', 'via', NODE_GATEWAY, 'dev', uplink, 'onlink');
    // What kube-proxy and the node setup it relies on need (the README's "Kernel settings").
    sysctlIn(ns, 'net.ipv4.ip_forward', '1');
    sysctlIn(ns, 'net.ipv4.conf.all.route_localnet', '1');
    sysctlIn(ns, 'net.bridge.bridge-nf-call-iptables', '1');
  }

  private buildPod(pod: MultiNodePod): void {
    const node = this.node(pod.node);
    this.addNamespace(pod.namespace);
    const index = this.nodes.indexOf(node) + 1;
    plugIntoBridge({ nodeNamespace: node.namespace, bridge: `${this.prefix}b${index}`, veth: this.vethOf.get(pod.name) ?? '', podNamespace: pod.namespace, address: `${pod.ip}/24`, gateway: node.gateway });
  }

  private buildExternalHost(): void {
    const ns = this.externalNamespace;
    this.addNamespace(ns);
    ipIn(ns, 'link', 'set', 'lo', 'up');
    this.cable(ns, 'eth0', `${this.prefix}se`, `${EXTERNAL_HOST_IP}/${NODE_NETWORK_PREFIX}`);
  }

  private async startBackends(): Promise<void> {
    const ready = this.pods
      .filter((p) => p.role === 'backend')
      .map((pod) => {
        const started = startBackendAgent(pod.namespace, pod.name, { tcpPort: BACKEND_TCP_PORT, udpPort: BACKEND_UDP_PORT });
        this.agents.push(started.agent);
        return started.ready;
      });
    await Promise.all(ready);
  }

  node(name: string): LabNode {
    const node = this.nodes.find((n) => n.name === name);
    if (node === undefined) throw new RangeError(`the lab has no node ${name} (its nodes: ${this.nodes.map((n) => n.name).join(', ')})`);
    return node;
  }

  pod(name: string): MultiNodePod {
    const pod = this.pods.find((p) => p.name === name);
    if (pod === undefined) throw new RangeError(`the lab has no pod ${name}`);
    return pod;
  }

  /** The pod with this IP. */
  podByIP(ip: string): MultiNodePod | undefined {
    return this.pods.find((p) => p.ip === ip);
  }

  private state(name: string): NodeState {
    const node = this.node(name);
    return this.states.find((s) => s.node === node) as NodeState;
  }

  /** kube-proxy's settings on a node (iptables mode). */
  proxierConfig(node: string): ProxierConfig {
    return this.state(node).config;
  }

  /**
   * One kube-proxy sync on every node, each with its own proxier (its name, node IPs and
   * zone) from its own last state. iptables mode: proxy-iptables' `sync`, loaded with
   * `iptables-restore --noflush` (the first sync also adds the jump rules to the built-in
   * chains). nftables mode: a fresh proxier's transaction, loaded with `nft -f`, as
   * `Lab.syncNftables` does.
   */
  sync(services: readonly Service[], endpointSlices: readonly EndpointSlice[]): readonly NodeSync[] {
    if (this.torn) throw new Error('the lab has been torn down');
    return this.states.map((state) => {
      const ns = state.node.namespace;
      if (this.proxyMode === 'nftables') {
        const rules = generateNftablesRules(services, endpointSlices, state.nftablesConfig);
        const applied = applyTransaction(state.nftables, rules.transaction);
        if (!applied.ok) throw new Error(`the model refused the transaction ${state.node.name} is about to get: ${applied.error.message}`);
        const command = ['ip', 'netns', 'exec', ns, 'nft', '-f', '-'];
        must(command, { input: rules.text });
        state.nftables = applied.value;
        return { node: state.node.name, command, size: rules.stats.rules, full: true };
      }
      const first = state.iptables === undefined;
      const result = sync(state.iptables, services, endpointSlices, state.config);
      const command = ['ip', 'netns', 'exec', ns, `iptables-${this.iptables}-restore`, '-w', '5', '--noflush'];
      must(command, { input: result.restoreText });
      state.iptables = result.state;
      if (first) must(command, { input: jumpRulesText(syncedRuleset(result.state)) });
      return { node: state.node.name, command, size: result.stats.lines, full: result.stats.full };
    });
  }

  /** Traces a packet through the rules a node holds, as that mode's tracer predicts (with the node's local addresses). */
  trace(node: string, packet: Packet): LabTraceResult {
    const state = this.state(node);
    const options = { localAddresses: [state.node.ip, state.node.gateway] };
    if (this.proxyMode === 'nftables') {
      if (state.nftables === undefined) throw new Error('no rules loaded yet: call sync first');
      return traceNftables(state.nftables, packet, options);
    }
    if (state.iptables === undefined) throw new Error('no rules loaded yet: call sync first');
    return tracePacket(syncedRuleset(state.iptables), packet, options);
  }

  /** The namespace a client runs in: a pod's, or the external host's (`EXTERNAL_HOST`). */
  protected clientNamespace(from: string): string {
    return from === EXTERNAL_HOST ? this.externalNamespace : this.pod(from).namespace;
  }
}
