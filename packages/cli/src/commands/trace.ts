// `kubesvc trace -f dump.yaml --to 10.96.0.1:443`: where a packet goes through kube-proxy's
// rules, outcome by outcome, with the exact probability of each. A packet that every rule
// drops or rejects (a Service with no endpoints) is a negative answer: exit 1.
import { Option, type Command } from 'commander';
import { explain, generateRules, tracePacket, type PacketEntry, type Trace } from '@kubesvc/proxy-iptables';
import { EXIT_INVALID, inputError, usageError } from '../cli-error.js';
import { endpointSlicesForProxy } from '../dump/endpoint-slices.js';
import { PACKET_ENTRIES, PACKET_PROTOCOLS, packetOf, traceData, traceTable, type PacketFlags } from '../logic/trace.js';
import { formatData } from '../output/output-format.js';
import type { CliCommand, CommandContext } from './command.js';
import { addProxierOptions, proxierConfigOf, type ProxierCommandOptions } from './proxier-options.js';
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
function dropped(trace: Trace): boolean {
  return trace.outcomes.length > 0 && trace.outcomes.every((o) => o.kind === 'drop' || o.kind === 'reject');
}

async function run(context: CommandContext, options: TraceCommandOptions): Promise<void> {
  const { io } = context;
  const config = proxierConfigOf(options);
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
        "Follows one packet through the rules `kubesvc rules` prints for the same input and flags: the chains it passes, each endpoint it can be DNATed to with its exact probability (as written and as the kernel draws it), or that no rule matches (an ICMP echo to a cluster IP).",
      );
    addProxierOptions(addFilenameOption(command))
      .requiredOption('--to <ip:port>', 'the destination: IP:PORT ([IPv6]:PORT), an IP for --proto icmp, :PORT for the first --node-ip with --node-port')
      .addOption(new Option('--proto <protocol>', 'the protocol').choices([...PACKET_PROTOCOLS]).default('tcp'))
      .option('--from <ip>', 'the source address (default 10.244.0.2 from a pod, 203.0.113.10 from outside, the node IP from the host)')
      .addOption(new Option('--entry <where>', 'where the packet comes from (default pod; outside with --node-port)').choices([...PACKET_ENTRIES]))
      .option('--node-port', "the destination is a node's address and a node port: it is added to the node's local addresses")
      .addOption(new Option('-o, --output <format>', 'output format: text is the trace chain by chain').choices(['text', 'table', 'json', 'yaml']).default('text'))
      .action(async (options: TraceCommandOptions) => run(context, options));
  },
};
