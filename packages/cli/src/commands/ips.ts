// `kubesvc ips -f dump.yaml --service-cluster-ip-range CIDR [--ip IP]`: the ClusterIP
// allocation picture, who holds an IP, and what a repair run would report.
import { Option, type Command } from 'commander';
import { EXIT_INVALID, usageError } from '../cli-error.js';
import { ipsData, ipsReport, ipsTable, lookupData, lookupIP, lookupTable } from '../logic/ips.js';
import { formatData, DATA_FORMATS, type DataFormat } from '../output/output-format.js';
import type { CliCommand, CommandContext } from './command.js';
import { DEFAULT_SERVICE_CLUSTER_IP_RANGE, serviceNetworkingOf } from './service-range-option.js';
import { addFilenameOption, readDump } from './shared-options.js';

interface IpsCommandOptions {
  readonly filename: string;
  readonly serviceClusterIpRange: string;
  readonly ip?: string;
  readonly output: DataFormat;
}

async function run(context: CommandContext, options: IpsCommandOptions): Promise<void> {
  const { io } = context;
  const networks = serviceNetworkingOf(options.serviceClusterIpRange).serviceCIDRs;
  const dump = await readDump(io, options.filename);
  if (options.ip !== undefined) {
    const lookup = lookupIP(dump, networks, options.ip);
    if (lookup === undefined) throw usageError(`--ip ${JSON.stringify(options.ip)}: not an IP address`);
    io.out(options.output === 'table' ? lookupTable(lookup) : formatData(options.output, lookupData(lookup)));
    if (lookup.holders.length === 0) context.exitCode = EXIT_INVALID;
    return;
  }
  const report = ipsReport(dump, networks);
  io.out(options.output === 'table' ? ipsTable(report) : formatData(options.output, ipsData(report)));
}

export const ipsCommand: CliCommand = {
  name: 'ips',
  register(program: Command, context: CommandContext): void {
    const command = program
      .command('ips')
      .summary('the ClusterIP allocation picture, who holds an IP, and what a repair run would report')
      .description(
        "Shows each service CIDR's size, used and free addresses and its static and dynamic bands; with --ip, which Service holds that address (exit code 1 when none does). The report ends with what one run of the apiserver's ClusterIP repair loop would say: duplicates, IPs out of range or not valid, and, when the input carries the stored RangeAllocation, leaked IPs.",
      );
    addFilenameOption(command)
      .option('--service-cluster-ip-range <cidrs>', "the cluster's service CIDRs, primary first", DEFAULT_SERVICE_CLUSTER_IP_RANGE)
      .option('--ip <ip>', 'show who holds this address')
      .addOption(new Option('-o, --output <format>', 'output format').choices([...DATA_FORMATS]).default('table'))
      .action(async (options: IpsCommandOptions) => run(context, options));
  },
};
