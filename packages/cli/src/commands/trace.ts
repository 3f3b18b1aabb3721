// `kubesvc trace -f dump.yaml --to 10.96.0.1:443`: where a packet goes through kube-proxy's
// rules, outcome by outcome, with the exact probability of each. A packet that every rule
// drops or rejects (a Service with no endpoints) is a negative answer: exit 1.
import { Option, type Command } from 'commander';
import { explain, generateRules, tracePacket, type PacketEntry } from '@kubesvc/proxy-iptables';
import { applyTransaction, explain as explainNftables, generateNftablesRules, tracePacket as traceNftables } from '@kubesvc/proxy-nftables';
import { EXIT_INVALID, inputError, usageError } from '../cli-error.js';
import { endpointSlicesForProxy } from '../dump/endpoint-slices.js';
import { PACKET_ENTRIES, PACKET_PROTOCOLS, packetOf, traceData, traceTable, type PacketFlags, type Traced, type TracedPacket } from '../logic/trace.js';
import type { Dump } from '../dump/load-dump.js';
import { formatData } from '../output/output-format.js';
import type { CliCommand, CommandContext } from './command.js';
import { addProxierOptions, checkModeFlags, nftablesConfigOf, proxierConfigOf, serviceCIDRWarning, type ProxierCommandOptions } from './proxier-options.js';
import { addFilenameOption, readDump } from './shared-options.js';

interface TraceCommandOptions extends ProxierCommandOptions {
  readonly filename: string;
  readonly to: string;
  readonly proto: PacketFlags['proto'];
  readonly from?: string;
  readonly entry?: PacketEntry;
  readonly nodePort?: boolean;
  readonly output: 'text' | 'table' | 'json' | 'yaml';
}

/** Every outcome ends in a filter DROP or REJECT: nothing reaches a destination. */
function dropped(trace: Traced): boolean {
  return trace.outcomes.length > 0 && trace.outcomes.every((o) => o.kind === 'drop' || o.kind === 'reject');
}

/** The trace through v1.33's nftables rules for the dump: the table a first sync leaves, traced. */
function runNftables(context: CommandContext, options: TraceCommandOptions, dump: Dump, packet: TracedPacket): void {
  const { io } = context;
  const config = nftablesConfigOf(options, dump);
  const warning = serviceCIDRWarning(options, dump);
  if (warning !== undefined) io.err(warning);
  const applied = applyTransaction(undefined, generateNftablesRules(dump.services, endpointSlicesForProxy(dump), config).transaction);
  // The builder's transaction always applies to an empty table; a refusal is a bug in it.
  if (!applied.ok || applied.value === undefined) throw new Error(`the nftables rules did not apply: ${applied.ok ? 'no table' : applied.error.message}`);
  const table = applied.value;
  const traceOptions = { localAddresses: packet.localAddresses, masqueradeMark: 1 << config.masqueradeBit };
  const trace = traceNftables(table, packet.packet, traceOptions);
  if (!trace.ok) throw inputError(trace.error.message);
  if (dropped(trace.value)) context.exitCode = EXIT_INVALID;
  if (options.output === 'text') {
    const text = explainNftables(table, packet.packet, traceOptions);
    if (!text.ok) throw inputError(text.error.message);
    io.out(`${text.value.trimEnd()}\n`);
    return;
  }
  io.out(options.output === 'table' ? traceTable(trace.value) : formatData(options.output, traceData(trace.value)));
}

async function run(context: CommandContext, options: TraceCommandOptions, versionFromCommandLine: boolean): Promise<void> {
  const { io } = context;
  checkModeFlags(options, versionFromCommandLine);
  const packet = packetOf({
    to: options.to,
    proto: options.proto,
    nodePort: options.nodePort === true,
    nodeIPs: options.nodeIp,
    ...(options.from !== undefined ? { from: options.from } : {}),
    ...(options.entry !== undefined ? { entry: options.entry } : {}),
  });
  if (!packet.ok) throw usageError(packet.error.message);
  const dump = await readDump(io, options.filename);
  if (options.proxyMode === 'nftables') {
    runNftables(context, options, dump, packet.value);
    return;
  }
  const config = proxierConfigOf(options);
  const { ruleset } = generateRules(dump.services, endpointSlicesForProxy(dump), config);
  const traceOptions = { localAddresses: packet.value.localAddresses, masqueradeMark: 1 << config.masqueradeBit };
  const trace = tracePacket(ruleset, packet.value.packet, traceOptions);
  if (!trace.ok) throw inputError(trace.error.message);
  if (dropped(trace.value)) context.exitCode = EXIT_INVALID;
  if (options.output === 'text') {
    const text = explain(ruleset, packet.value.packet, traceOptions);
    if (!text.ok) throw inputError(text.error.message);
    io.out(`${text.value.trimEnd()}\n`);
    return;
  }
  io.out(options.output === 'table' ? traceTable(trace.value) : formatData(options.output, traceData(trace.value)));
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
      .addOption(new Option('-o, --output <format>', 'output format: text is the trace chain by chain').choices(['text', 'table', 'json', 'yaml']).default('text'))
      .action(async (options: TraceCommandOptions, self: Command) => run(context, options, self.getOptionValueSource('kubeProxyVersion') === 'cli'));
  },
};
