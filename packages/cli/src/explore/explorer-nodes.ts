// The explorer as kube-proxy on one Node of the dump (its name, its zone label, its
// InternalIPs: what `kubesvc rules --node` and `trace --from-node` run with), and one packet
// traced as sent on every Node (`kubesvc trace --all-nodes`). Pure.
import { err, LABEL_TOPOLOGY_ZONE, ok, type Result } from '@kubesvc/api-types';
import type { ErrExplorerNode, ExplorerNode, NodeMatrixAnswer, NodeMatrixRequest, NodeMatrixRow } from '@kubesvc/explorer';
import { formatRational, rationalToFixed, type ProxierConfig } from '@kubesvc/proxy-iptables';
import type { Dump } from '../dump/load-dump.js';
import { allDumpNodes, dumpNodeOf, dumpNodes, findDumpNode, traceIptablesRun, type DumpNode } from '../logic/nodes.js';
import { packetOf } from '../logic/trace.js';
import { intendedProbability } from './explorer-trace.js';

/** kube-proxy's config on a Node of the dump: the flags' settings with the Node's name, zone and InternalIPs. May throw when the Node's values are refused. */
export type ProxierOfNode = (node: DumpNode) => ProxierConfig;

/** The dump's Nodes as the page lists them in its picker, by name. */
export function explorerNodes(dump: Pick<Dump, 'objects'>): ExplorerNode[] {
  return dumpNodes(dump).map((n) => {
    const node = dumpNodeOf(n);
    return { name: node.nodeName, zone: node.topologyLabels[LABEL_TOPOLOGY_ZONE] ?? '', nodeIPs: node.nodeIPs };
  });
}

function configOf(proxierOf: ProxierOfNode, node: DumpNode): Result<ProxierConfig, ErrExplorerNode> {
  try {
    return ok(proxierOf(node));
  } catch (error) {
    return err({ _tag: 'ErrExplorerNode', message: `node ${JSON.stringify(node.nodeName)}: ${error instanceof Error ? error.message : String(error)}` });
  }
}

/** kube-proxy's config on the dump's Node `name`; a name the dump has no Node of is refused, naming the Nodes it has. */
export function proxierOfNodeNamed(dump: Pick<Dump, 'objects' | 'source'>, name: string, proxierOf: ProxierOfNode): Result<ProxierConfig, ErrExplorerNode> {
  const node = findDumpNode(dump, name, 'node');
  if (!node.ok) return err({ _tag: 'ErrExplorerNode', message: node.error.message });
  return configOf(proxierOf, node.value);
}

/** The packet of `request` traced as sent on each Node of the dump, by name: `kubesvc trace --all-nodes` for the iptables mode. */
export function explorerNodeMatrix(dump: Dump, proxierOf: ProxierOfNode, request: NodeMatrixRequest): NodeMatrixAnswer {
  const nodes = allDumpNodes(dump);
  if (!nodes.ok) return err({ _tag: 'ErrExplorerNode', message: `the node matrix: ${dump.source} has no Node objects to trace from` });
  const rows: NodeMatrixRow[] = [];
  for (const node of nodes.value) {
    const config = configOf(proxierOf, node);
    if (!config.ok) return config;
    const packet = packetOf({
      to: request.destination.trim(),
      proto: request.protocol,
      nodePort: request.nodePort,
      nodeIPs: config.value.nodeIPs,
      ...(request.source.trim() !== '' ? { from: request.source.trim() } : {}),
    });
    if (!packet.ok) return err({ _tag: 'ErrExplorerTrace', message: packet.error.message.replace(/--to/g, 'destination').replace(/--from/g, 'source').replace(/--node-port/g, 'node port') });
    const run = traceIptablesRun(dump, config.value, packet.value);
    if (!run.ok) return err({ _tag: 'ErrExplorerTrace', message: run.error.message });
    const { ruleset, trace, reasons } = run.value;
    const p = trace.packet;
    const sent = p.destinationPort === undefined ? p.destination : `${p.destination.includes(':') ? `[${p.destination}]` : p.destination}:${p.destinationPort}`;
    rows.push({
      node: node.nodeName,
      zone: node.topologyLabels[LABEL_TOPOLOGY_ZONE] ?? '',
      destination: sent,
      outcomes: trace.outcomes.map((o, i) => ({
        outcome: o.kind,
        destination: o.dnat ?? sent,
        probability: intendedProbability(ruleset, o),
        written: formatRational(o.probability.written),
        decimal: rationalToFixed(o.probability.written, 10),
        why: reasons[i] ?? '',
      })),
    });
  }
  return ok(rows);
}
