// `kubesvc env`: the service environment variables kubelet gives a pod's containers.
// - Offline: `kubesvc env -f dump.yaml --namespace NS [POD]`, from the Services of a dump.
// - Live: `kubesvc env POD [-n NS]` or `kubesvc env --namespace NS`, from the Services of the
//   control plane a kubeconfig names (--kubeconfig, $KUBECONFIG, <data-dir>/kubeconfig).
// upstream: pkg/kubelet/kubelet_pods.go (getServiceEnvVarMap: every Service of the pod's
//           namespace when enableServiceLinks is on, default/kubernetes always; a pod's
//           enableServiceLinks defaults to true)
import type { Command } from 'commander';
import { decodeObject, type Pod, type Service } from '@kubesvc/api-types';
import { serviceEnv, type EnvVar } from '@kubesvc/discovery';
import { ErrNotFound, inputError, usageError } from '../cli-error.js';
import { apiGet } from '../live/api-get.js';
import type { KubeconfigTarget } from '../live/kubeconfig.js';
import { liveTarget } from '../live/live-target.js';
import { envData, envOf, envTable, formatEnvLines } from '../logic/env.js';
import { formatData } from '../output/output-format.js';
import { outputFormat } from '../output/printer.js';
import { UP_DEFAULTS } from '../up/up-defaults.js';
import type { CliCommand, CommandContext } from './command.js';
import { addFilenameOption, readDump } from './shared-options.js';

interface EnvCommandOptions {
  readonly filename?: readonly string[];
  readonly recursive?: boolean;
  readonly namespace?: string;
  readonly serviceLinks: boolean;
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly dataDir: string;
  readonly output: string;
}

/** A pod's own enableServiceLinks (absent or null: true, the apiserver's default), and the flag. */
function serviceLinksOf(pod: Pod | undefined, flag: boolean): boolean {
  const own = pod?.spec?.enableServiceLinks;
  return flag && own !== false;
}

async function offline(context: CommandContext, filename: readonly string[], options: EnvCommandOptions, podName: string | undefined): Promise<{ namespace: string; vars: EnvVar[] }> {
  if (options.namespace === undefined) throw usageError("required option '-n, --namespace <namespace>' not specified");
  const namespace = options.namespace;
  const dump = await readDump(context.io, { filename, recursive: options.recursive === true });
  const file = dump.source;
  let pod: Pod | undefined;
  if (podName !== undefined) {
    pod = dump.pods.find((p) => p.metadata.name === podName && (p.metadata.namespace ?? 'default') === namespace);
    if (pod === undefined) throw new ErrNotFound(`${file}: pod ${namespace}/${podName} is not in the dump`);
  }
  const vars = envOf(dump, namespace, serviceLinksOf(pod, options.serviceLinks));
  if (!vars.ok) throw inputError(`${file}: ${vars.error.message}`);
  return { namespace, vars: vars.value };
}

function target(context: CommandContext, options: EnvCommandOptions): Promise<KubeconfigTarget> {
  return liveTarget(context.io, options.kubeconfig, options.dataDir, options.context);
}

/** The typed object of a list item or a GET answer (list items carry no kind, as the apiserver writes them). */
function decodeAs<T>(kind: 'Pod' | 'Service', raw: unknown, where: string): T {
  const filled = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? { apiVersion: 'v1', kind, ...(raw as Record<string, unknown>) } : raw;
  const decoded = decodeObject(filled);
  if (!decoded.ok || decoded.value.kind !== kind) throw inputError(`${where}: the server's ${kind} does not decode: ${decoded.ok ? decoded.value.kind : decoded.error.message}`);
  return decoded.value as T;
}

async function live(context: CommandContext, options: EnvCommandOptions, podName: string | undefined): Promise<{ namespace: string; vars: EnvVar[] }> {
  const api = await target(context, options);
  const namespace = options.namespace ?? api.namespace;
  let pod: Pod | undefined;
  if (podName !== undefined) {
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(podName)}`;
    pod = decodeAs<Pod>('Pod', await apiGet(api, path), path);
  } else if (options.namespace === undefined) {
    throw usageError('name a pod (kubesvc env POD) or a namespace (--namespace NS)');
  }
  // kubelet lists the Services of every namespace and keeps those the pod sees.
  const list = (await apiGet(api, '/api/v1/services')) as { items?: unknown };
  const items = Array.isArray(list.items) ? list.items : [];
  const services = items.map((item) => decodeAs<Service>('Service', item, '/api/v1/services'));
  const vars = serviceEnv({ namespace, enableServiceLinks: serviceLinksOf(pod, options.serviceLinks) }, services);
  if (!vars.ok) throw inputError(`${api.server}: ${vars.error.message}`);
  return { namespace, vars: vars.value };
}

async function run(context: CommandContext, podName: string | undefined, options: EnvCommandOptions): Promise<void> {
  const { io } = context;
  const output = outputFormat(options.output, ['env', 'table', 'json', 'yaml'] as const);
  const { namespace, vars } = options.filename === undefined ? await live(context, options, podName) : await offline(context, options.filename, options, podName);
  switch (output) {
    case 'env':
      io.out(formatEnvLines(vars));
      return;
    case 'table':
      io.out(envTable(vars));
      return;
    default:
      io.out(formatData(output, envData(namespace, vars)));
  }
}

export const envCommand: CliCommand = {
  name: 'env',
  register(program: Command, context: CommandContext): void {
    const command = program
      .command('env')
      .argument('[pod]', 'the pod: its namespace (-n) and its spec.enableServiceLinks decide what it sees')
      .summary('the service environment variables a pod gets')
      .description(
        "Prints the variables kubelet injects into every container of a pod: for each Service it can see (those of its namespace, unless service links are off, and default/kubernetes always), <SVC>_SERVICE_HOST and _PORT, and the Docker-link set <SVC>_PORT, <SVC>_PORT_<port>_<PROTO> with _PROTO, _PORT and _ADDR. With -f, from the Services of a dump (--namespace required); without, from the running control plane the kubeconfig names (--kubeconfig, else $KUBECONFIG, else <data-dir>/kubeconfig, the one kubesvc up writes).",
      );
    addFilenameOption(command, 'without it, the live cluster')
      .option('-n, --namespace <namespace>', "the pod's namespace (live, default: the kubeconfig context's)")
      .option('--no-service-links', "as a pod whose enableServiceLinks is false: only default/kubernetes")
      .option('--kubeconfig <file>', 'live: the kubeconfig (default: the files of $KUBECONFIG, merged as kubectl merges them, else <data-dir>/kubeconfig)')
      .option('--context <name>', "live: the kubeconfig context to use (default: its current-context)")
      .option('--data-dir <dir>', 'live: the data dir of kubesvc up, whose kubeconfig is used by default', UP_DEFAULTS.dataDir)
      .option('-o, --output <format>', 'output format: env (NAME=value lines), table, json or yaml', 'env')
      .action(async (pod: string | undefined, options: EnvCommandOptions) => run(context, pod, options));
  },
};
