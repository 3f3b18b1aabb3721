// `kubesvc trace -f dump.yaml --to 10.96.0.1:443`: where a packet goes through kube-proxy's
// rules, outcome by outcome, with the exact probability of each. A packet that every rule
// drops or rejects (a Service with no endpoints) is a negative answer: exit 1.
import { Option, type Command } from 'commander';
import { explain, type PacketEntry } from '@kubesvc/proxy-iptables';
import { applyTransaction, explain as explainNftables, generateNftablesRules, tracePacket as traceNftables, type NftTable } from '@kubesvc/proxy-nftables';
import { EXIT_INVALID, inputError, usageError } from '../cli-error.js';
import { endpointSlicesForProxy } from '../dump/endpoint-slices.js';
import { PACKET_ENTRIES, PACKET_PROTOCOLS, packetOf, traceData, traceTable, type PacketFlags, type Traced, type TracedPacket } from '../logic/trace.js';
import type { Dump } from '../dump/load-dump.js';
import { formatData, jsonPathOf } from '../output/output-format.js';
import { parseOutput } from '../output/printer.js';
import type { CliCommand, CommandContext } from './command.js';
import { allDumpNodes, nodeMatrixData, nodeMatrixTable, traceIptablesRun, type DumpNode, type NodeTrace } from '../logic/nodes.js';
import {
  addProxierOptions,
  checkModeFlags,
  checkNodeFlag,
  dumpNodeFor,
  nftablesConfigOf,
  proxierConfigOf,
  serviceCIDRWarning,
  type ProxierCommandOptions,
} from './proxier-options.js';
import { addFilenameOption, readDump } from './shared-options.js';

interface TraceCommandOptions extends ProxierCommandOptions {
  readonly filename: readonly string[];
  readonly recursive?: boolean;
  readonly to: string;
  readonly proto: PacketFlags['proto'];
  readonly from?: string;
  readonly entry?: PacketEntry;
  readonly nodePort?: boolean;
  /** text, table, json, yaml, or jsonpath=TEMPLATE. */
  readonly output: string;
  readonly fromNode?: string;
  readonly allNodes?: boolean;
}

/** Every outcome ends in a filter DROP or REJECT: nothing reaches a destination. */
function dropped(trace: Traced): boolean {
  return trace.outcomes.length > 0 && trace.outcomes.every((o) => o.kind === 'drop' || o.kind === 'reject');
}

/** One trace, with per outcome why it ends as it does, and the backend's chain-by-chain text on demand. */
interface NodeRun {
  readonly trace: Traced;
  readonly reasons: readonly string[];
  readonly text: () => string;
}

/**
 * Why an nftables outcome drops or rejects: the last rule's comment, or for a verdict map
 * lookup (`vmap @no-endpoint-services`) the map and the comment of the element that matched.
 */
function nftablesReason(table: NftTable, trace: Traced, rule: { text: string; rule: { comment?: string } } | undefined): string {
  if (rule === undefined) return '';
  if (rule.rule.comment !== undefined) return rule.rule.comment;
  const map = /vmap @([\w-]+)/.exec(rule.text)?.[1];
  const set = map === undefined ? undefined : table.sets.get(map);
  const p = trace.packet;
  if (set !== undefined && p.destinationPort !== undefined) {
    const tail = [p.protocol, String(p.destinationPort)];
    for (const element of set.elements.values()) {
      const key = element.key;
      const matches = key.length >= 2 && key[key.length - 2] === tail[0] && key[key.length - 1] === tail[1] && (key.length === 2 || key[0] === p.destination);
      if (matches) return `${map ?? ''}: ${element.comment ?? key.join(' . ')}`;
    }
  }
  return rule.text;
}

/** The trace through v1.33's nftables rules for the dump: the table a first sync leaves, traced. */
function traceNftablesRun(context: CommandContext, options: TraceCommandOptions, dump: Dump, packet: TracedPacket, node: DumpNode | undefined, warn: boolean): NodeRun {
  const config = nftablesConfigOf(options, dump, node);
  const warning = serviceCIDRWarning(options, dump);
  if (warn && warning !== undefined) context.io.err(warning);
  const applied = applyTransaction(undefined, generateNftablesRules(dump.services, endpointSlicesForProxy(dump), config).transaction);
  // The builder's transaction always applies to an empty table; a refusal is a bug in it.
  if (!applied.ok || applied.value === undefined) throw new Error(`the nftables rules did not apply: ${applied.ok ? 'no table' : applied.error.message}`);
  const table = applied.value;
  const traceOptions = { localAddresses: packet.localAddresses, masqueradeMark: 1 << config.masqueradeBit };
  const trace = traceNftables(table, packet.packet, traceOptions);
  if (!trace.ok) throw inputError(trace.error.message);
  const traced = trace.value;
  return {
    trace: traced,
    reasons: traced.outcomes.map((o) => (o.kind === 'dnat' ? '' : nftablesReason(table, traced, o.matched[o.matched.length - 1]))),
    text: () => {
      const text = explainNftables(table, packet.packet, traceOptions);
      if (!text.ok) throw inputError(text.error.message);
      return text.value;
    },
  };
}

/** The trace through the iptables rules kube-proxy writes for the dump. */
function traceIptables(options: TraceCommandOptions, dump: Dump, packet: TracedPacket, node: DumpNode | undefined): NodeRun {
  const config = proxierConfigOf(options, node);
  const run = traceIptablesRun(dump, config, packet);
  if (!run.ok) throw inputError(run.error.message);
  const { ruleset, trace, reasons } = run.value;
  return {
    trace,
    reasons,
    text: () => {
      const text = explain(ruleset, packet.packet, { localAddresses: packet.localAddresses, masqueradeMark: 1 << config.masqueradeBit });
      if (!text.ok) throw inputError(text.error.message);
      return text.value;
    },
  };
}

/** The packet of the flags, sent on `nodeIPs`' node. */
function packetFor(options: TraceCommandOptions, nodeIPs: readonly string[]): TracedPacket {
  const packet = packetOf({
    to: options.to,
    proto: options.proto,
    nodePort: options.nodePort === true,
    nodeIPs,
    ...(options.from !== undefined ? { from: options.from } : {}),
    ...(options.entry !== undefined ? { entry: options.entry } : {}),
  });
  if (!packet.ok) throw usageError(packet.error.message);
  return packet.value;
}

function traceRun(context: CommandContext, options: TraceCommandOptions, dump: Dump, packet: TracedPacket, node: DumpNode | undefined, warn: boolean): NodeRun {
  return options.proxyMode === 'nftables' ? traceNftablesRun(context, options, dump, packet, node, warn) : traceIptables(options, dump, packet, node);
}

/** `--all-nodes`: the packet traced as sent on each Node of the dump, by name; exit 1 when it goes nowhere from any. */
function runAllNodes(context: CommandContext, options: TraceCommandOptions, dump: Dump): void {
  const nodes = allDumpNodes(dump);
  if (!nodes.ok) throw inputError(nodes.error.message);
  const rows: NodeTrace[] = nodes.value.map((node, i) => {
    const run = traceRun(context, options, dump, packetFor(options, options.nodeIp.length > 0 ? options.nodeIp : node.nodeIPs), node, i === 0);
    return { node, trace: run.trace, reasons: run.reasons };
  });
  if (rows.every((row) => dropped(row.trace))) context.exitCode = EXIT_INVALID;
  const output = parseOutput(options.output, ALL_NODES_OUTPUTS);
  if (output.kind === 'jsonpath') context.io.out(jsonPathOf(output.template, nodeMatrixData(rows)));
  else context.io.out(output.format === 'json' || output.format === 'yaml' ? formatData(output.format, nodeMatrixData(rows)) : nodeMatrixTable(rows, output.format === 'wide'));
}

const TRACE_OUTPUTS = ['text', 'table', 'json', 'yaml'] as const;
/** --all-nodes: also wide, the table with each node's InternalIPs. */
const ALL_NODES_OUTPUTS = [...TRACE_OUTPUTS, 'wide'] as const;

async function run(context: CommandContext, options: TraceCommandOptions, versionFromCommandLine: boolean, nodeNameFromCommandLine: boolean): Promise<void> {
  const { io } = context;
  // -o is checked before the input is read; --all-nodes offers wide too.
  const output = options.allNodes === true ? undefined : parseOutput(options.output, TRACE_OUTPUTS);
  if (output === undefined) parseOutput(options.output, ALL_NODES_OUTPUTS);
  checkModeFlags(options, versionFromCommandLine);
  if (options.allNodes === true && options.fromNode !== undefined) throw usageError('--all-nodes traces from every Node: leave out --from-node');
  if (options.allNodes === true) checkNodeFlag('--all-nodes', nodeNameFromCommandLine);
  if (options.fromNode !== undefined) checkNodeFlag('--from-node', nodeNameFromCommandLine);
  // Without a node from the input the packet is checked before the input is read.
  const early = options.fromNode === undefined && options.allNodes !== true ? packetFor(options, options.nodeIp) : undefined;
  const dump = await readDump(io, options);
  if (options.allNodes === true || output === undefined) {
    runAllNodes(context, options, dump);
    return;
  }
  const node = options.fromNode === undefined ? undefined : dumpNodeFor(dump, options.fromNode, '--from-node');
  const packet = early ?? packetFor(options, options.nodeIp.length > 0 ? options.nodeIp : (node?.nodeIPs ?? []));
  const result = traceRun(context, options, dump, packet, node, true);
  if (dropped(result.trace)) context.exitCode = EXIT_INVALID;
  if (output.kind === 'jsonpath') {
    io.out(jsonPathOf(output.template, traceData(result.trace)));
    return;
  }
  if (output.format === 'text') {
    io.out(`${result.text().trimEnd()}\n`);
    return;
  }
  io.out(output.format === 'table' ? traceTable(result.trace) : formatData(output.format, traceData(result.trace)));
}

export const traceCommand: CliCommand = {
  name: 'trace',
  register(program: Command, context: CommandContext): void {
    const command = program
      .command('trace')
      .summary('where a packet goes through the rules, with the exact probability of each outcome')
      .description(
        "Follows one packet through the rules `kubesvc rules` prints for the same input and flags: the chains it passes, each endpoint it can be DNATed to with its exact probability (as written and as the kernel draws it), or that no rule matches (an ICMP echo to a cluster IP). " +
          'With --proxy-mode nftables, through the table v1.33\'s nftables proxier writes: one numgen verdict map with an equal share per endpoint, and ClusterIP checks that reject or drop what no Service port takes.',
      );
    addProxierOptions(addFilenameOption(command))
      .requiredOption('--to <ip:port>', 'the destination: IP:PORT ([IPv6]:PORT), an IP for --proto icmp, :PORT for the first --node-ip with --node-port')
      .addOption(new Option('--proto <protocol>', 'the protocol').choices([...PACKET_PROTOCOLS]).default('tcp'))
      .option('--from <ip>', 'the source address (default 10.244.0.2 from a pod, 203.0.113.10 from outside, the node IP from the host)')
      .addOption(new Option('--entry <where>', 'where the packet comes from (default pod; outside with --node-port)').choices([...PACKET_ENTRIES]))
      .option('--node-port', "the destination is a node's address and a node port: it is added to the node's local addresses")
      .option('-o, --output <format>', 'output format: text (the trace chain by chain), table, json, yaml, or jsonpath=TEMPLATE (over the json); with --all-nodes also wide (the table with each node\'s IPs)', 'text')
      .option(
        '--from-node <name>',
        "send the packet on the input's Node of this name: kube-proxy there has its name, its zone label (topology hints) and its InternalIPs (unless --node-ip is given)",
      )
      .option(
        '--all-nodes',
        'trace the packet as sent on each Node of the input (by name): a table of each node\'s outcomes with their exact probabilities, and why a packet is dropped or rejected (-o json|yaml: the same as data)',
      )
      .action(async (options: TraceCommandOptions, self: Command) =>
        run(context, options, self.getOptionValueSource('kubeProxyVersion') === 'cli', self.getOptionValueSource('nodeName') === 'cli'),
      );
  },
};
