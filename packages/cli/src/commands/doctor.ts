// `kubesvc doctor -f dump.yaml [SERVICE ...] [-n NAMESPACE | -A] [-o text|json]`: the "Debug
// Services" checklist (kubernetes.io/docs/tasks/debug/debug-application/debug-service/) run
// over a dump; without -f, over the objects of the running control plane a kubeconfig names.
// Exit code 1 when a finding is an error.
import type { Command } from 'commander';
import type { Pod } from '@kubesvc/api-types';
import { EXIT_INVALID, ErrNotFound, usageError } from '../cli-error.js';
import type { Dump } from '../dump/load-dump.js';
import { doctorData, formatDoctorText, hasError, runDoctor } from '../logic/doctor/doctor.js';
import { formatData } from '../output/output-format.js';
import { formatNames, outputFormat } from '../output/printer.js';
import type { CliCommand, CommandContext } from './command.js';
import { liveDump } from '../live/live-dump.js';
import { liveTarget } from '../live/live-target.js';
import { UP_DEFAULTS } from '../up/up-defaults.js';
import { addFilenameOption, readDump } from './shared-options.js';

interface DoctorCommandOptions {
  readonly filename?: readonly string[];
  readonly recursive?: boolean;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly dataDir: string;
  readonly namespace?: string;
  readonly allNamespaces?: boolean;
  readonly output: string;
  readonly includeInfo?: boolean;
  readonly dnsName?: string;
  readonly from?: string;
}

/** `--from POD`: `namespace/name`, or a name in the `-n` namespace. */
function fromPod(dump: Dump, from: string, namespace: string): Pod {
  const [ns, name] = from.includes('/') ? (from.split('/', 2) as [string, string]) : [namespace, from];
  const pod = dump.pods.find((p) => (p.metadata.namespace ?? 'default') === ns && p.metadata.name === name);
  if (pod === undefined) throw new ErrNotFound(`${dump.source}: --from: no pod ${ns}/${name} in the input`);
  return pod;
}

async function run(context: CommandContext, services: readonly string[], options: DoctorCommandOptions): Promise<void> {
  const output = outputFormat(options.output, ['text', 'name', 'json'] as const);
  if (options.allNamespaces === true && options.namespace !== undefined) throw usageError('-n and -A both choose the namespaces: give one');
  if ((options.dnsName === undefined) !== (options.from === undefined)) throw usageError('--dns-name and --from go together: the name, and the pod that asks it');
  const dump = options.filename === undefined ? await liveDump(await liveTarget(context.io, options.kubeconfig, options.dataDir, options.context)) : await readDump(context.io, { filename: options.filename, recursive: options.recursive === true });
  const namespace = options.namespace ?? 'default';
  const report = runDoctor(
    // Live, the suggested kubesvc commands read a dump to be taken first.
    { dump, file: options.filename === undefined ? 'dump.yaml' : dump.source },
    {
      services,
      namespace,
      allNamespaces: options.allNamespaces === true,
      includeInfo: options.includeInfo === true,
      ...(options.dnsName !== undefined && options.from !== undefined ? { dnsQuestion: { name: options.dnsName, pod: fromPod(dump, options.from, namespace) } } : {}),
    },
  );
  if (!report.ok) throw new ErrNotFound(report.error.message);
  for (const notice of report.value.notices) context.io.err(`warning: ${notice}\n`);
  if (output === 'name') {
    // The Services with a problem (an error or a warning), as kubectl names them.
    const problems = new Set(report.value.findings.filter((f) => f.severity === 'error' || f.severity === 'warning').map((f) => f.service));
    context.io.out(formatNames(report.value.services.filter((s) => problems.has(s)).map((s) => ({ kind: 'Service', name: s.slice(s.indexOf('/') + 1) }))));
  } else context.io.out(output === 'json' ? formatData('json', doctorData(report.value)) : formatDoctorText(report.value));
  if (hasError(report.value)) context.exitCode = EXIT_INVALID;
}

export const doctorCommand: CliCommand = {
  name: 'doctor',
  register(program: Command, context: CommandContext): void {
    const command = program
      .command('doctor')
      .summary('the "Debug Services" checklist, run over a dump')
      .description(
        "Checks each Service of the input as the Kubernetes \"Debug Services\" task does: a selector that selects no pod, selected pods not Ready, a targetPort the pods do not expose, Endpoints/EndpointSlices that differ from what the endpoint controllers would write, Nodes where a Local traffic policy drops the traffic, pods whose subdomain names no headless Service, a short ClientIP affinity, and (with --include-info or --dns-name) that a ClusterIP answers no ping and how a pod's resolver expands a name. " +
          'Each finding has a code, the Service, evidence, the reason and a command that shows more. Exit code 1 when a finding is an error. ' +
          'With -f, from a dump; without, from the running control plane the kubeconfig names (--kubeconfig, else $KUBECONFIG, else <data-dir>/kubeconfig, the one kubesvc up writes).',
      )
      .argument('[service...]', 'the Services to check (default: every Service of the namespace)');
    addFilenameOption(command, 'without it, the live cluster')
      .option('--kubeconfig <file>', 'live: the kubeconfig (default: the files of $KUBECONFIG, merged as kubectl merges them, else <data-dir>/kubeconfig)')
      .option('--context <name>', 'live: the kubeconfig context to use (default: its current-context)')
      .option('--data-dir <dir>', 'live: the data dir of kubesvc up, whose kubeconfig is used by default', UP_DEFAULTS.dataDir)
      .option('-n, --namespace <namespace>', 'the namespace of the Services (default: default)')
      .option('-A, --all-namespaces', 'check the Services of every namespace')
      .option('-o, --output <format>', 'output format: text, json, or name (service/NAME of each Service with an error or a warning)', 'text')
      .option('--include-info', 'also the informational findings (ClusterIPNoPing, and NdotsExpansion of each short name from a pod in another namespace)')
      .option('--dns-name <name>', "the name whose resolution to follow from --from's resolv.conf (search list, ndots)")
      .option('--from <pod>', 'the pod that asks --dns-name: NAMESPACE/NAME, or NAME in -n')
      .action(async (services: string[], options: DoctorCommandOptions) => run(context, services, options));
  },
};
