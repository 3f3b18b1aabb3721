// The nodes `kubesvc up` runs: --nodes, --node-zones, --node-region and --node-cpu read into the
// simulated kubelet's node list. Light (api-types only): the up command checks the flags before
// it loads the runtime, so that a bad value is refused before anything is opened.
//
// - Names: one node keeps --node-name as it is; N > 1 are `<node-name>-1` .. `<node-name>-N`.
// - Zones: node i (from 0) is in zones[i mod k], as the label topology.kubernetes.io/zone; more
//   zones than nodes is refused, since a zone without a node is surely a mistake.
// - Pod CIDRs: one node has the whole --cluster-cidr (as before); N > 1 get consecutive /24s
//   (IPv4) or /64s (IPv6) of it, kube-controller-manager's default --node-cidr-mask-size.
// - InternalIP: the first node has the advertise address; node i > 0 has 127.0.0.<i+1>.
// - cpu: status.capacity.cpu and status.allocatable.cpu of every node.
// upstream (v1.33): staging/src/k8s.io/api/core/v1/well_known_labels.go (the label keys),
//           pkg/kubelet/kubelet_node_status.go (the labels a kubelet registers),
//           pkg/controller/nodeipam/ipam/cidrset/cidr_set.go (node CIDRs cut from the cluster CIDR)
import {
  addressAtOffset,
  formatCIDR,
  isDNS1123Subdomain,
  isValidLabelValue,
  parseCIDRSloppy,
  type CIDR,
} from '@kubesvc/api-types';

export const LABEL_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_REGION = 'topology.kubernetes.io/region';

/** The largest --nodes: a simulated cluster, not a load test. */
export const MAX_NODES = 100;

/** One node as the simulated kubelet takes it (SimulatedNode of @kubesvc/controllers). */
export interface UpNode {
  readonly name: string;
  readonly podCIDR: string;
  /** Absent on the first node: it has the advertise address, known only when the cluster starts. */
  readonly internalIP?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly cpu: string;
}

export interface NodeFlags {
  /** --nodes, as typed. */
  readonly nodes: string;
  readonly nodeName: string;
  /** --node-zones, comma-separated, as typed. */
  readonly zones?: string;
  readonly region?: string;
  /** --node-cpu, as typed. */
  readonly cpu: string;
  readonly clusterCIDR: string;
}

export type NodesResult = { readonly ok: true; readonly nodes: readonly UpNode[] } | { readonly ok: false; readonly error: string };

function fail(error: string): NodesResult {
  return { ok: false, error };
}

/** The node names for a count: the name itself for one node, else `<name>-1` .. `<name>-N`. */
export function nodeNames(nodeName: string, count: number): string[] {
  return count === 1 ? [nodeName] : Array.from({ length: count }, (_, i) => `${nodeName}-${i + 1}`);
}

/** A cpu quantity a Node's capacity can hold: whole or decimal cores, or millicores, above zero. */
function cpuError(cpu: string): string | undefined {
  const m = /^(\d+(?:\.\d+)?)(m?)$/.exec(cpu);
  if (m === null || Number(m[1]) <= 0) return `--node-cpu must be a cpu quantity above zero, such as 4, 0.5 or 500m, not "${cpu}"`;
  return undefined;
}

/** The i-th subnet of `bits` prefix length inside `cidr`. */
function subnet(cidr: CIDR, bits: number, i: number): string | undefined {
  const width = cidr.network.family === 4 ? 32 : 128;
  const at = addressAtOffset(cidr, BigInt(i) << BigInt(width - bits));
  return at.ok ? formatCIDR({ network: at.value, prefix: bits }) : undefined;
}

function podCIDRs(clusterCIDR: string, count: number): string[] | string {
  if (count === 1) return [clusterCIDR];
  const parsed = parseCIDRSloppy(clusterCIDR);
  if (!parsed.ok) return `--cluster-cidr must be a CIDR, not "${clusterCIDR}"`;
  const cidr = parsed.value.cidr;
  const bits = cidr.network.family === 4 ? 24 : 64;
  const room = cidr.prefix > bits ? 0n : 1n << BigInt(bits - cidr.prefix);
  if (room < BigInt(count)) {
    return `--cluster-cidr ${formatCIDR(cidr)} has room for ${room} node pod CIDRs of /${bits}, and --nodes asks for ${count}: give a larger --cluster-cidr (a /${Math.max(0, bits - Math.ceil(Math.log2(count)))} or larger)`;
  }
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const s = subnet(cidr, bits, i);
    if (s === undefined) return `--cluster-cidr ${formatCIDR(cidr)} has no room for node ${i + 1}`;
    out.push(s);
  }
  return out;
}

/** Reads the node flags into the nodes, or the first flag error. */
export function upNodes(flags: NodeFlags): NodesResult {
  const count = Number(flags.nodes);
  if (!/^\d+$/.test(flags.nodes) || count < 1 || count > MAX_NODES) return fail(`--nodes must be a whole number from 1 to ${MAX_NODES}, not "${flags.nodes}"`);
  const zones = flags.zones === undefined ? [] : flags.zones.split(',').map((z) => z.trim());
  for (const z of zones) {
    if (z === '') return fail(`--node-zones takes zone names, comma-separated, with none empty, not "${flags.zones}"`);
    const errs = isValidLabelValue(z);
    if (errs.length > 0) return fail(`--node-zones: "${z}" is not a valid value of the label ${LABEL_ZONE}: ${errs.join('; ')}`);
  }
  if (zones.length > count) return fail(`--node-zones names ${zones.length} zones for ${count} node${count === 1 ? '' : 's'}: every zone needs a node (give --nodes ${zones.length} or more, or fewer zones)`);
  if (flags.region !== undefined) {
    if (flags.region === '') return fail('--node-region must not be empty');
    const errs = isValidLabelValue(flags.region);
    if (errs.length > 0) return fail(`--node-region: "${flags.region}" is not a valid value of the label ${LABEL_REGION}: ${errs.join('; ')}`);
  }
  const cpuProblem = cpuError(flags.cpu);
  if (cpuProblem !== undefined) return fail(cpuProblem);
  const names = nodeNames(flags.nodeName, count);
  for (const name of names) {
    const errs = isDNS1123Subdomain(name);
    if (errs.length > 0) return fail(`--node-name: "${name}" is not a valid node name: ${errs.join('; ')}`);
  }
  const cidrs = podCIDRs(flags.clusterCIDR, count);
  if (typeof cidrs === 'string') return fail(cidrs);
  return {
    ok: true,
    nodes: names.map((name, i) => ({
      name,
      podCIDR: cidrs[i] ?? '',
      ...(i === 0 ? {} : { internalIP: `127.0.0.${i + 1}` }),
      labels: {
        ...(zones.length === 0 ? {} : { [LABEL_ZONE]: zones[i % zones.length] ?? '' }),
        ...(flags.region === undefined ? {} : { [LABEL_REGION]: flags.region }),
      },
      cpu: flags.cpu,
    })),
  };
}

/** The start-up line about the nodes: their names and zones, and which one runs the node agent. */
export function nodesText(nodes: readonly UpNode[]): string {
  const list = nodes.map((n) => (n.labels[LABEL_ZONE] === undefined ? n.name : `${n.name} (zone ${n.labels[LABEL_ZONE]})`)).join(', ');
  const first = nodes[0]?.name ?? '';
  return `${nodes.length === 1 ? 'Node' : `${nodes.length} nodes`}: ${list}; the node agent (cluster DNS, kube-proxy) runs for ${first}`;
}
