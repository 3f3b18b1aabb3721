// The pod network of `kubesvc up --dataplane netns`: every node a network namespace with its
// pods on its own bridge, every pod a network namespace of its own, and a "host" namespace
// that stands for the machine outside the nodes (the apiserver's advertise address, the
// cluster DNS's address), where a relay carries connections to Unix sockets of the kubesvc
// process. Unlike Lab and MultiNodeLab, pods come and go while it runs (addPod, removePod),
// with the addresses the simulated kubelet gave them.
//
// Layout (every name starts with the network's prefix `<p>`, e.g. `ks3f9a2c`; node i from 1):
//
//   <p>_host           the host side: bridge <p>sw with 198.51.100.1/24 (the nodes' gateway),
//                      each host address (the advertise address) as a /32 on lo, a route to
//                      every node's pod CIDR via that node's IP; the relay process runs here
//   <p>_node<i>        node i: uplink <p>u<i> with 198.51.100.<10+i>/24 (its peer <p>s<i> a
//                      port of <p>sw), bridge <p>b<i> with the first address of the node's pod
//                      CIDR, a route to every other node's pod CIDR via that node's IP, the
//                      default route via the host side; kube-proxy's rules are loaded here
//   <p>-<ns>.<pod>     one namespace per pod (a Kubernetes namespace holds no dot, so the first
//                      dot splits it): eth0 with the pod's IP on its node's bridge (the node
//                      end <p> and seven hex digits of a hash of the pod's uid, as interface
//                      names hold 15 characters), lo up, the default route via the bridge;
//                      its resolv.conf in /etc/netns/<p>-<ns>.<pod>/, which `ip netns exec`
//                      mounts over /etc/resolv.conf
//
// Every link is made inside the network's namespaces, never in the namespace kubesvc runs in.
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentProcess } from './agents.js';
import { installed, must, run } from './commands.js';
import { LabUnavailableError } from './lab.js';
import { LabBase } from './lab-base.js';
import { hasBrNetfilter, ipIn, plugIntoBridge, PREFIX_PATTERN, processRunning, sysctlIn } from './netns.js';

/** The network between the nodes and the host side (TEST-NET-2, RFC 5737: routed nowhere). */
export const POD_NETWORK_NODE_CIDR = '198.51.100.0/24';
/** The host side's address on the nodes' network: their default gateway, and the cluster DNS relay's address. */
export const POD_NETWORK_HOST_IP = '198.51.100.1';
const MAX_NODES = 100;
const READY_TIMEOUT_MS = 15_000;
const ETC_NETNS = '/etc/netns';

/** Node i's address (1-based) on the nodes' network. */
export function podNetworkNodeIP(i: number): string {
  return `198.51.100.${10 + i}`;
}

/** A network prefix from a seed (the data dir): `ks` and six hex digits, so one data dir always gets the same names. */
export function podNetworkPrefix(seed: string): string {
  return `ks${createHash('sha256').update(seed).digest('hex').slice(0, 6)}`;
}

/** Why the pod network cannot run here, or undefined. */
export function podNetworkUnavailable(): string | undefined {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'the pod network needs root (it creates network namespaces and loads rules)';
  return installed('ip') ? undefined : 'the pod network needs ip: apt-get install -y iproute2';
}

/**
 * Removes what a run with this prefix left (a crash, a SIGKILL): kills the processes inside its
 * namespaces, deletes the namespaces and their /etc/netns folders. Returns the namespaces removed.
 */
export function removePodNetworkLeftovers(prefix: string): readonly string[] {
  if (!PREFIX_PATTERN.test(prefix)) throw new RangeError(`pod network prefix ${JSON.stringify(prefix)} must be 1 to 8 of [a-z0-9]`);
  const ours = (name: string): boolean => name.startsWith(`${prefix}-`) || name.startsWith(`${prefix}_`);
  const names = must(['ip', 'netns', 'list'])
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter(ours);
  for (const name of names) {
    const pids = run(['ip', 'netns', 'pids', name]).stdout.split('\n').map(Number).filter((p) => Number.isInteger(p) && p > 0);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    const sleeper = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; waited < 2_000 && pids.some(processRunning); waited += 10) Atomics.wait(sleeper, 0, 0, 10);
  }
  // Pods first, nodes next, the host side last: the reverse of the order they were made in.
  const order = (name: string): number => (name.startsWith(`${prefix}-`) ? 0 : name.startsWith(`${prefix}_node`) ? 1 : 2);
  for (const name of [...names].sort((a, b) => order(a) - order(b))) {
    run(['ip', 'netns', 'del', name]);
    rmSync(join(ETC_NETNS, name), { recursive: true, force: true });
  }
  return names;
}

export interface PodNetworkNodeSpec {
  readonly name: string;
  /** The node's pod CIDR (IPv4); the bridge takes its first address, as the simulated kubelet leaves it. */
  readonly podCIDR: string;
}

export interface PodNetworkDescription {
  /** At most 8 of [a-z0-9] (podNetworkPrefix). */
  readonly prefix: string;
  /** 1 to 100 nodes. */
  readonly nodes: readonly PodNetworkNodeSpec[];
  /** Addresses the host side owns (the apiserver's advertise address); none in 198.51.100.0/24. */
  readonly hostAddresses: readonly string[];
}

export interface PodNetworkNode {
  readonly name: string;
  readonly namespace: string;
  /** Its address on the nodes' network: its InternalIP, kube-proxy's node IP. */
  readonly ip: string;
  readonly podCIDR: string;
  /** The bridge's address: its pods' gateway. */
  readonly gateway: string;
  readonly bridge: string;
}

/** A port a container serves: HTTP (netexec's endpoints), or a TCP or UDP echo. */
export interface PodServerPort {
  readonly port: number;
  readonly protocol: 'TCP' | 'UDP';
  readonly http: boolean;
}

export interface PodContainerSpec {
  readonly name: string;
  /** The container's log file, which its server appends each request to. */
  readonly log: string;
  readonly ports: readonly PodServerPort[];
}

export interface PodSpecInNetwork {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** The node it runs on (a PodNetworkNode name). */
  readonly node: string;
  /** Its IPv4 address, inside the node's pod CIDR. */
  readonly ip: string;
  /** The text of its /etc/resolv.conf; absent: none written. */
  readonly resolvConf?: string;
  readonly containers: readonly PodContainerSpec[];
}

/** A pod the network holds. */
export interface PodSandbox {
  readonly key: string;
  readonly uid: string;
  /** Its network namespace (`ip netns exec <netns> ...`). */
  readonly netns: string;
  readonly ip: string;
  readonly node: string;
  /** The pid of its servers' process, when it has ports. */
  readonly pid: number | undefined;
  /** Why its servers did not start, when they did not. */
  readonly error?: string;
}

interface Parsed4 {
  readonly base: number;
  readonly bits: number;
}

function ipv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function formatIPv4(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

function cidr4(text: string): Parsed4 | undefined {
  const [address = '', bits = ''] = text.split('/');
  const n = ipv4(address);
  if (n === undefined || !/^\d{1,2}$/.test(bits) || Number(bits) > 30) return undefined;
  const size = 2 ** (32 - Number(bits));
  return { base: n - (n % size), bits: Number(bits) };
}

function inCIDR(ip: number, c: Parsed4): boolean {
  return ip >= c.base && ip < c.base + 2 ** (32 - c.bits);
}

/** `<p>-<namespace>.<pod>`, or a hash of the pair when that would be long for a file name. */
export function podNetnsName(prefix: string, namespace: string, name: string): string {
  const plain = `${prefix}-${namespace}.${name}`;
  return plain.length <= 200 ? plain : `${prefix}-${namespace}.${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
}

export class PodNetwork extends LabBase {
  readonly prefix: string;
  readonly hostNamespace: string;
  readonly nodes: readonly PodNetworkNode[];
  readonly hostAddresses: readonly string[];
  private readonly sandboxes = new Map<string, PodSandbox & { readonly agent: AgentProcess | undefined; readonly veth: string }>();
  private relay: AgentProcess | undefined;

  private constructor(description: PodNetworkDescription) {
    super();
    this.prefix = description.prefix;
    this.hostNamespace = `${description.prefix}_host`;
    this.hostAddresses = [...description.hostAddresses];
    const nodeNet = cidr4(POD_NETWORK_NODE_CIDR) as Parsed4;
    for (const a of this.hostAddresses) {
      const n = ipv4(a);
      if (n === undefined) throw new RangeError(`the pod network's host addresses are IPv4: ${JSON.stringify(a)} is not`);
      if (inCIDR(n, nodeNet)) throw new RangeError(`${a} is inside ${POD_NETWORK_NODE_CIDR}, the pod network's node network: advertise another address`);
    }
    if (description.nodes.length < 1 || description.nodes.length > MAX_NODES) throw new RangeError(`the pod network has 1 to ${MAX_NODES} nodes, not ${description.nodes.length}`);
    this.nodes = description.nodes.map((spec, n) => {
      const c = cidr4(spec.podCIDR);
      if (c === undefined) throw new RangeError(`node ${spec.name}: the pod network needs an IPv4 pod CIDR of /30 or wider, not ${JSON.stringify(spec.podCIDR)}`);
      return {
        name: spec.name,
        namespace: `${description.prefix}_node${n + 1}`,
        ip: podNetworkNodeIP(n + 1),
        podCIDR: `${formatIPv4(c.base)}/${c.bits}`,
        gateway: formatIPv4(c.base + 1),
        bridge: `${description.prefix}b${n + 1}`,
      };
    });
  }

  /**
   * Builds the host side and the nodes (no pods yet), after removing what an earlier run with
   * the same prefix left. If anything fails, whatever was made is removed before the error is
   * thrown.
   */
  static async create(description: PodNetworkDescription): Promise<PodNetwork> {
    if (!PREFIX_PATTERN.test(description.prefix)) throw new RangeError(`pod network prefix ${JSON.stringify(description.prefix)} must be 1 to 8 of [a-z0-9]`);
    const why = podNetworkUnavailable();
    if (why !== undefined) throw new LabUnavailableError(why);
    const network = new PodNetwork(description);
    removePodNetworkLeftovers(description.prefix);
    await network.built(() => {
      network.buildHost();
      network.nodes.forEach((node, n) => network.buildNode(node, n + 1));
      return Promise.resolve();
    });
    return network;
  }

  private buildHost(): void {
    const ns = this.hostNamespace;
    this.addNamespace(ns);
    ipIn(ns, 'link', 'set', 'lo', 'up');
    for (const a of this.hostAddresses) ipIn(ns, 'addr', 'add', `${a}/32`, 'dev', 'lo');
    const sw = `${this.prefix}sw`;
    ipIn(ns, 'link', 'add', sw, 'type', 'bridge');
    ipIn(ns, 'addr', 'add', `${POD_NETWORK_HOST_IP}/24`, 'dev', sw);
    ipIn(ns, 'link', 'set', sw, 'up');
  }

  private buildNode(node: PodNetworkNode, index: number): void {
    const ns = node.namespace;
    this.addNamespace(ns);
    if (!hasBrNetfilter(ns)) throw new LabUnavailableError('the pod network puts pods on a bridge and needs br_netfilter (net.bridge.bridge-nf-call-iptables): modprobe br_netfilter');
    ipIn(ns, 'link', 'set', 'lo', 'up');
    const prefixLength = node.podCIDR.split('/')[1] ?? '24';
    ipIn(ns, 'link', 'add', node.bridge, 'type', 'bridge');
    ipIn(ns, 'addr', 'add', `${node.gateway}/${prefixLength}`, 'dev', node.bridge);
    ipIn(ns, 'link', 'set', node.bridge, 'up');
    const uplink = `${this.prefix}u${index}`;
    const port = `${this.prefix}s${index}`;
    ipIn(ns, 'link', 'add', uplink, 'type', 'veth', 'peer', 'name', port, 'netns', this.hostNamespace);
    ipIn(this.hostNamespace, 'link', 'set', port, 'master', `${this.prefix}sw`);
    ipIn(this.hostNamespace, 'link', 'set', port, 'up');
    ipIn(ns, 'addr', 'add', `${node.ip}/24`, 'dev', uplink);
    ipIn(ns, 'link', 'set', uplink, 'up');
    for (const other of this.nodes) {
      if (other !== node) ipIn(ns, 'route', 'add', other.podCIDR, 'via', other.ip, 'dev', uplink);
    }
    ipIn(ns, 'route', 'add', 'default', 'via', POD_NETWORK_HOST_IP, 'dev', uplink);
    ipIn(this.hostNamespace, 'route', 'add', node.podCIDR, 'via', node.ip);
    // What kube-proxy and the node setup it relies on need (netlab's README, "Kernel settings").
    sysctlIn(ns, 'net.ipv4.ip_forward', '1');
    sysctlIn(ns, 'net.ipv4.conf.all.route_localnet', '1');
    sysctlIn(ns, 'net.bridge.bridge-nf-call-iptables', '1');
  }

  node(name: string): PodNetworkNode {
    const node = this.nodes.find((n) => n.name === name);
    if (node === undefined) throw new RangeError(`the pod network has no node ${name}`);
    return node;
  }

  /**
   * Starts the relay in the host side: each entry listens there on `host:port` and carries what
   * comes to the Unix socket `unix` (see agents/relay.mjs). Resolves once every socket listens.
   */
  async startRelay(listen: readonly { readonly protocol: 'tcp' | 'udp'; readonly host: string; readonly port: number; readonly unix: string }[]): Promise<void> {
    if (this.relay !== undefined) throw new Error('the relay runs already');
    const agent = new AgentProcess(this.hostNamespace, 'relay', { listen });
    this.agents.push(agent);
    this.relay = agent;
    await agent.waitForLine((line) => (line === 'ready' ? true : undefined), READY_TIMEOUT_MS, 'the relay\'s ready line');
  }

  /** `iptables-<backend>-restore -w 5 --noflush` in a node's namespace, as kube-proxy loads every sync: the text, or its bytes (a sync's restoreBytes). */
  restore(node: string, text: string | Uint8Array, backend: 'nft' | 'legacy' = 'nft'): void {
    must(['ip', 'netns', 'exec', this.node(node).namespace, `iptables-${backend}-restore`, '-w', '5', '--noflush'], { input: text });
  }

  /** `nft -f -` in a node's namespace. */
  loadNftables(node: string, text: string): void {
    must(['ip', 'netns', 'exec', this.node(node).namespace, 'nft', '-f', '-'], { input: text });
  }

  /** The pods the network holds, by `<namespace>/<name>`. */
  pods(): readonly PodSandbox[] {
    return [...this.sandboxes.values()].map(({ agent: _agent, veth: _veth, ...sandbox }) => sandbox);
  }

  pod(key: string): PodSandbox | undefined {
    const found = this.sandboxes.get(key);
    if (found === undefined) return undefined;
    const { agent: _agent, veth: _veth, ...sandbox } = found;
    return sandbox;
  }

  /**
   * Makes a pod's namespace on its node's bridge, writes its resolv.conf, and starts its
   * servers (one process for every container port); resolves once they listen. A pod whose
   * servers cannot start keeps its namespace, with the reason in `error`.
   */
  async addPod(spec: PodSpecInNetwork): Promise<PodSandbox> {
    if (this.torn) throw new Error('the pod network has been torn down');
    const key = `${spec.namespace}/${spec.name}`;
    if (this.sandboxes.has(key)) throw new Error(`pod ${key} has a namespace already`);
    const node = this.node(spec.node);
    const ip = ipv4(spec.ip);
    const range = cidr4(node.podCIDR) as Parsed4;
    if (ip === undefined || !inCIDR(ip, range)) throw new RangeError(`pod ${key}: ${spec.ip} is not an IPv4 address of node ${node.name}'s ${node.podCIDR}`);
    const netns = podNetnsName(this.prefix, spec.namespace, spec.name);
    this.addNamespace(netns);
    const veth = `${this.prefix}${createHash('sha256').update(spec.uid === '' ? key : spec.uid).digest('hex').slice(0, 15 - this.prefix.length)}`;
    plugIntoBridge({ nodeNamespace: node.namespace, bridge: node.bridge, veth, podNamespace: netns, address: `${spec.ip}/${range.bits}`, gateway: node.gateway });
    if (spec.resolvConf !== undefined) {
      mkdirSync(join(ETC_NETNS, netns), { recursive: true });
      writeFileSync(join(ETC_NETNS, netns, 'resolv.conf'), spec.resolvConf);
    }
    const base = { key, uid: spec.uid, netns, ip: spec.ip, node: node.name };
    const held = { ...base, veth };
    const ports = spec.containers.flatMap((c) => c.ports);
    if (ports.length === 0) {
      this.sandboxes.set(key, { ...held, pid: undefined, agent: undefined });
      return { ...base, pid: undefined };
    }
    const agent = new AgentProcess(netns, 'netexec', { pod: spec.name, containers: spec.containers });
    this.agents.push(agent);
    try {
      await agent.waitForLine((line) => (line === 'ready' ? true : undefined), READY_TIMEOUT_MS, `pod ${key}'s ready line`);
      this.sandboxes.set(key, { ...held, pid: agent.pid, agent });
      return { ...base, pid: agent.pid };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.sandboxes.set(key, { ...held, pid: agent.pid, agent, error: message });
      return { ...base, pid: agent.pid, error: message };
    }
  }

  /** Kills a pod's servers and deletes its namespace (with its veth) and resolv.conf; nothing when it has none. */
  async removePod(key: string): Promise<void> {
    const sandbox = this.sandboxes.get(key);
    if (sandbox === undefined) return;
    this.sandboxes.delete(key);
    if (sandbox.agent !== undefined) {
      await sandbox.agent.kill();
      const at = this.agents.indexOf(sandbox.agent);
      if (at >= 0) this.agents.splice(at, 1);
    }
    // The veth first: a namespace's links go when the kernel frees it, which may be later.
    run(['ip', '-n', this.node(sandbox.node).namespace, 'link', 'del', sandbox.veth]);
    run(['ip', 'netns', 'del', sandbox.netns]);
    const at = this.namespaces.indexOf(sandbox.netns);
    if (at >= 0) this.namespaces.splice(at, 1);
    rmSync(join(ETC_NETNS, sandbox.netns), { recursive: true, force: true });
  }

  protected clientNamespace(from: string): string {
    const sandbox = this.sandboxes.get(from);
    if (sandbox === undefined) throw new RangeError(`the pod network has no pod ${from}`);
    return sandbox.netns;
  }

  /** Also removes the pods' /etc/netns folders. */
  override teardownNow(): void {
    const pods = [...this.sandboxes.values()].map((s) => s.netns);
    super.teardownNow();
    for (const netns of pods) rmSync(join(ETC_NETNS, netns), { recursive: true, force: true });
    this.sandboxes.clear();
    this.relay = undefined;
  }
}
