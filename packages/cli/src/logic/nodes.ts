// `--node`, `--from-node`, `--all-nodes`: what kube-proxy on a Node of the dump knows of its
// node (its name, its topology labels, its InternalIP addresses), and a trace per node as a
// matrix. Pure.
// upstream (v1.33): pkg/proxy/config/config.go (NodeTopologyConfig: the proxier hears of the
// node's topology.kubernetes.io/zone label only), cmd/kube-proxy/app/server.go (the node IPs
// from the Node's addresses: InternalIP first).
import { err, LABEL_TOPOLOGY_ZONE, ok, type Node, type Result, type TaggedError } from '@kubesvc/api-types';
import { formatRational, generateRules, rationalToFixed, tracePacket, type ProxierConfig, type Ruleset, type Trace, type TraceResult } from '@kubesvc/proxy-iptables';
import { endpointSlicesForProxy } from '../dump/endpoint-slices.js';
import type { Dump } from '../dump/load-dump.js';
import { formatTable } from '../output/output-format.js';
import type { Traced, TracedOutcome, TracedPacket } from './trace.js';

/** What of a Node the offline kube-proxy runs with. */
export interface DumpNode {
  readonly nodeName: string;
  /** Its zone label alone, as NodeTopologyConfig passes it on; empty when it has none. */
  readonly topologyLabels: Readonly<Record<string, string>>;
  /** Its InternalIP addresses, in the order the Node lists them. */
  readonly nodeIPs: readonly string[];
}

/** A Node the flag names that the input does not hold, or an input without Nodes. */
export type ErrNoNode = TaggedError<'ErrNoNode'>;

/** The Nodes of the dump, by name (a Node listed twice counts once, the last listing). */
export function dumpNodes(dump: Pick<Dump, 'objects'>): Node[] {
  const byName = new Map<string, Node>();
  for (const object of dump.objects) if (object.kind === 'Node') byName.set(object.metadata.name ?? '', object as Node);
  return [...byName.values()].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0));
}

export function dumpNodeOf(node: Node): DumpNode {
  const zone = node.metadata.labels?.[LABEL_TOPOLOGY_ZONE];
  return {
    nodeName: node.metadata.name ?? '',
    topologyLabels: zone === undefined ? {} : { [LABEL_TOPOLOGY_ZONE]: zone },
    nodeIPs: (node.status?.addresses ?? []).filter((a) => a.type === 'InternalIP').map((a) => a.address),
  };
}

/** The Node named `name` (`flag` names the flag in the message). */
export function findDumpNode(dump: Pick<Dump, 'objects' | 'source'>, name: string, flag: string): Result<DumpNode, ErrNoNode> {
  const nodes = dumpNodes(dump);
  const node = nodes.find((n) => n.metadata.name === name);
  if (node !== undefined) return ok(dumpNodeOf(node));
  const known = nodes.map((n) => n.metadata.name ?? '');
  return err({
    _tag: 'ErrNoNode',
    message: `${flag} ${JSON.stringify(name)}: ${dump.source} has no Node of that name (${known.length === 0 ? 'it has no Nodes' : `its Nodes: ${known.join(', ')}`})`,
  });
}

/** Every Node of the dump, by name; an input without Nodes is refused. */
export function allDumpNodes(dump: Pick<Dump, 'objects' | 'source'>): Result<DumpNode[], ErrNoNode> {
  const nodes = dumpNodes(dump);
  if (nodes.length === 0) return err({ _tag: 'ErrNoNode', message: `--all-nodes: ${dump.source} has no Node objects to trace from` });
  return ok(nodes.map(dumpNodeOf));
}

/** One node's trace, with why a packet that is dropped or rejected is (the rule that did, or the verdict map element). */
export interface NodeTrace {
  readonly node: DumpNode;
  readonly trace: Traced;
  /** Per outcome (same order): why it ends as it does; '' for a DNAT. */
  readonly reasons: readonly string[];
}

function zoneOf(node: DumpNode): string {
  return node.topologyLabels[LABEL_TOPOLOGY_ZONE] ?? '';
}

function outcomeWord(o: TracedOutcome): string {
  return o.kind === 'dnat' ? 'DNAT' : o.kind === 'no-match' ? 'no rule' : o.kind.toUpperCase();
}

function destination(trace: Traced, o: TracedOutcome): string {
  if (o.dnat !== undefined) return o.dnat;
  const p = trace.packet;
  if (p.destinationPort === undefined) return p.destination;
  return `${p.destination.includes(':') ? `[${p.destination}]` : p.destination}:${p.destinationPort}`;
}

/** `--all-nodes` as a table (`-o wide`: with each node's InternalIPs): per node (by name), each outcome with its exact probability, and why a drop or reject happens. */
export function nodeMatrixTable(rows: readonly NodeTrace[], wide = false): string {
  const cells: string[][] = [];
  for (const { node, trace, reasons } of rows) {
    trace.outcomes.forEach((o, i) => {
      cells.push([
        node.nodeName,
        zoneOf(node) === '' ? '-' : zoneOf(node),
        outcomeWord(o),
        destination(trace, o),
        formatRational(o.probability.written),
        rationalToFixed(o.probability.written, 10),
        reasons[i] ?? '',
        // -o wide: the addresses the packet was sent with on that node.
        ...(wide ? [node.nodeIPs.length === 0 ? '<none>' : node.nodeIPs.join(',')] : []),
      ]);
    });
  }
  return formatTable(['NODE', 'ZONE', 'OUTCOME', 'DESTINATION', 'PROBABILITY', 'DECIMAL', 'WHY', ...(wide ? ['NODE IPS'] : [])], cells);
}

/** `--all-nodes -o json|yaml`: per node its name, zone, node IPs, the packet and every outcome. */
export function nodeMatrixData(rows: readonly NodeTrace[]): Record<string, unknown> {
  return {
    nodes: rows.map(({ node, trace, reasons }) => ({
      node: node.nodeName,
      zone: zoneOf(node),
      nodeIPs: [...node.nodeIPs],
      packet: { ...trace.packet },
      outcomes: trace.outcomes.map((o, i) => ({
        outcome: o.kind,
        destination: destination(trace, o),
        ...(o.dnat !== undefined ? { dnat: o.dnat } : {}),
        probability: {
          written: formatRational(o.probability.written),
          writtenDecimal: rationalToFixed(o.probability.written, 12),
          kernel: formatRational(o.probability.kernel),
          kernelDecimal: rationalToFixed(o.probability.kernel, 12),
        },
        ...(reasons[i] !== undefined && reasons[i] !== '' ? { why: reasons[i] } : {}),
      })),
    })),
  };
}

/** An iptables rule's comment (`--comment "…"` or `--comment word`), or the rule itself. */
function iptablesReason(line: string): string {
  const m = /--comment (?:"((?:[^"\\]|\\.)*)"|(\S+))/.exec(line);
  return m === null ? line : (m[1] ?? m[2] ?? line);
}

/** A packet traced through the iptables rules of one kube-proxy, with the ruleset it went through. */
export interface IptablesRun {
  readonly ruleset: Ruleset;
  readonly trace: Trace;
  /** Per outcome (same order): why it drops or rejects (the last rule's comment, or the rule); '' for a DNAT. */
  readonly reasons: readonly string[];
}

/** `packet` through the iptables rules kube-proxy with `config` writes for the dump (`trace`, `trace --all-nodes`, the explorer). */
export function traceIptablesRun(dump: Dump, config: ProxierConfig, packet: TracedPacket): Result<IptablesRun, Extract<TraceResult, { ok: false }>['error']> {
  const { ruleset } = generateRules(dump.services, endpointSlicesForProxy(dump), config);
  const trace = tracePacket(ruleset, packet.packet, { localAddresses: packet.localAddresses, masqueradeMark: 1 << config.masqueradeBit });
  if (!trace.ok) return trace;
  return ok({
    ruleset,
    trace: trace.value,
    reasons: trace.value.outcomes.map((o) => {
      const last = o.matched[o.matched.length - 1];
      return o.kind === 'dnat' || last === undefined ? '' : iptablesReason(last.text);
    }),
  });
}
