// `kubesvc ips -f dump.yaml --service-cluster-ip-range CIDR [--ip IP] [--now TIME]`: the
// ClusterIP allocation picture, who holds an IP, and what a repair run would report. A dump of
// a v1.33+ cluster (ServiceCIDRs, IPAddresses) is drawn from those objects; a dump with a
// RangeAllocation gets the bitmap view; a dump with both (the dual-write migration) gets both.
import { Option, type Command } from 'commander';
import { EXIT_INVALID, usageError } from '../cli-error.js';
import { ipsData, ipsReport, ipsTable, lookupData, lookupIP, lookupTable } from '../logic/ips.js';
import {
  hasServiceCIDRView,
  lookupIPAddress,
  lookupIPAddressData,
  lookupIPAddressTable,
  parseNow,
  repairClock,
  serviceClusterIPRangeOf,
  serviceCIDRData,
  serviceCIDRReport,
  serviceCIDRTable,
} from '../logic/ips-service-cidrs.js';
import type { Service } from '@kubesvc/api-types';
import { formatData } from '../output/output-format.js';
import { formatNames, outputFormat } from '../output/printer.js';
import type { CliCommand, CommandContext } from './command.js';
import { DEFAULT_SERVICE_CLUSTER_IP_RANGE, serviceNetworkingOf } from './service-range-option.js';
import { addFilenameOption, readDump } from './shared-options.js';

interface IpsCommandOptions {
  readonly filename: readonly string[];
  readonly recursive?: boolean;
  readonly serviceClusterIpRange: string;
  readonly ip?: string;
  readonly now?: string;
  readonly output: string;
}

/** The headings of the two views when a dump has both. */
const SERVICE_CIDR_HEADING = 'ServiceCIDRs and IPAddresses (networking.k8s.io/v1), what the v1.33 allocator reads:';
function bitmapHeading(range: string, fromDump: boolean): string {
  const source = fromDump ? `${range}, read from the ServiceCIDR kubernetes` : range;
  return `the bitmap of --service-cluster-ip-range ${source}: the stored RangeAllocation, which v1.33 apiservers still dual-write; its repair loop runs only in apiservers without MultiCIDRServiceAllocator, such as v1.32 ones during the upgrade:`;
}

/** `-o name` lists the Services that hold a ClusterIP; with --ip, the lookup is a table or data. */
const IPS_OUTPUTS = ['table', 'name', 'json', 'yaml'] as const;
const LOOKUP_OUTPUTS = ['table', 'json', 'yaml'] as const;

/** A Service that holds a ClusterIP (not headless, not ExternalName, not yet unallocated). */
function holdsClusterIP(service: Service): boolean {
  const ips = service.spec?.clusterIPs ?? (service.spec?.clusterIP === undefined ? [] : [service.spec.clusterIP]);
  return ips.some((ip) => ip !== '' && ip !== 'None');
}

async function run(context: CommandContext, flags: IpsCommandOptions, rangeDefaulted: boolean): Promise<void> {
  const { io } = context;
  const format = flags.ip === undefined ? outputFormat(flags.output, IPS_OUTPUTS) : outputFormat(flags.output, LOOKUP_OUTPUTS);
  if (format === 'name') {
    const dump = await readDump(io, flags);
    io.out(formatNames(dump.services.filter(holdsClusterIP).map((s) => ({ kind: 'Service', name: s.metadata.name ?? '' }))));
    return;
  }
  const options = { ...flags, output: format };
  let networks = serviceNetworkingOf(options.serviceClusterIpRange).serviceCIDRs;
  let given: number | undefined;
  if (options.now !== undefined) {
    given = parseNow(options.now);
    if (given === undefined) throw usageError(`--now ${JSON.stringify(options.now)}: not an RFC 3339 time such as 2025-05-01T12:00:00Z`);
  }
  const dump = await readDump(io, options);
  const cidrView = hasServiceCIDRView(dump);
  if (options.ip !== undefined) {
    if (cidrView) {
      const lookup = lookupIPAddress(dump, options.ip);
      if (lookup === undefined) throw usageError(`--ip ${JSON.stringify(options.ip)}: not an IP address`);
      io.out(options.output === 'table' ? lookupIPAddressTable(lookup) : formatData(options.output, lookupIPAddressData(lookup)));
      if (lookup.ipAddress === undefined) context.exitCode = EXIT_INVALID;
      return;
    }
    const lookup = lookupIP(dump, networks, options.ip);
    if (lookup === undefined) throw usageError(`--ip ${JSON.stringify(options.ip)}: not an IP address`);
    io.out(options.output === 'table' ? lookupTable(lookup) : formatData(options.output, lookupData(lookup)));
    if (lookup.holders.length === 0) context.exitCode = EXIT_INVALID;
    return;
  }
  if (!cidrView) {
    const report = ipsReport(dump, networks);
    io.out(options.output === 'table' ? ipsTable(report) : formatData(options.output, ipsData(report)));
    return;
  }
  const cidrs = serviceCIDRReport(dump, repairClock(dump, given));
  if (dump.rangeAllocations.length === 0) {
    io.out(options.output === 'table' ? serviceCIDRTable(cidrs) : formatData(options.output, serviceCIDRData(cidrs)));
    return;
  }
  // The dual-write state: the bitmap is that of the flag, which the ServiceCIDR kubernetes records.
  const recorded = rangeDefaulted ? serviceClusterIPRangeOf(dump) : undefined;
  if (recorded !== undefined) networks = serviceNetworkingOf(recorded).serviceCIDRs;
  const bitmap = ipsReport(dump, networks);
  const heading = bitmapHeading(recorded ?? options.serviceClusterIpRange, recorded !== undefined);
  io.out(
    options.output === 'table'
      ? `${SERVICE_CIDR_HEADING}\n\n${serviceCIDRTable(cidrs)}\n${heading}\n\n${ipsTable(bitmap)}`
      : formatData(options.output, { ...serviceCIDRData(cidrs), bitmap: ipsData(bitmap) }),
  );
}

export const ipsCommand: CliCommand = {
  name: 'ips',
  register(program: Command, context: CommandContext): void {
    const command = program
      .command('ips')
      .summary('the ClusterIP allocation picture, who holds an IP, and what a repair run would report')
      .description(
        "Shows each service CIDR's size, used and free addresses and its static and dynamic bands; with --ip, which Service holds that address (exit code 1 when none does). The report ends with what one run of the apiserver's ClusterIP repair loop would say: duplicates, IPs out of range or not valid, and, when the input carries the stored RangeAllocation, leaked IPs. A dump with ServiceCIDRs or IPAddresses (Kubernetes v1.33+) is drawn from those: each ServiceCIDR's allocation, the IPAddresses and their Services, and one pass of the IPAddress repair loop at --now; a dump with a RangeAllocation too gets both views.",
      );
    addFilenameOption(command)
      .addOption(
        new Option('--service-cluster-ip-range <cidrs>', "the cluster's service CIDRs, primary first, for the bitmap view").default(
          DEFAULT_SERVICE_CLUSTER_IP_RANGE,
          `the CIDRs of the ServiceCIDR kubernetes when the input has a RangeAllocation and that ServiceCIDR, else ${DEFAULT_SERVICE_CLUSTER_IP_RANGE}`,
        ),
      )
      .option('--ip <ip>', 'show who holds this address')
      .option('--now <time>', "the IPAddress repair pass's clock (RFC 3339); default: the latest timestamp in the input")
      .option('-o, --output <format>', 'output format: table, json, yaml, or name (service/NAME of each Service that holds a ClusterIP; not with --ip)', 'table')
      .action(async (options: IpsCommandOptions, self: Command) => run(context, options, self.getOptionValueSource('serviceClusterIpRange') === 'default'));
  },
};
