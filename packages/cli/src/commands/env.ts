// `kubesvc env -f dump.yaml --namespace NS`: the service environment variables of a pod in NS.
import { Option, type Command } from 'commander';
import { inputError } from '../cli-error.js';
import { envData, envOf, envTable, formatEnvLines } from '../logic/env.js';
import { formatData } from '../output/output-format.js';
import type { CliCommand, CommandContext } from './command.js';
import { addFilenameOption, readDump } from './shared-options.js';

interface EnvCommandOptions {
  readonly filename: string;
  readonly namespace: string;
  readonly serviceLinks: boolean;
  readonly output: 'env' | 'table' | 'json' | 'yaml';
}

async function run(context: CommandContext, options: EnvCommandOptions): Promise<void> {
  const { io } = context;
  const dump = await readDump(io, options.filename);
  const vars = envOf(dump, options.namespace, options.serviceLinks);
  if (!vars.ok) throw inputError(`${options.filename}: ${vars.error.message}`);
  switch (options.output) {
    case 'env':
      io.out(formatEnvLines(vars.value));
      return;
    case 'table':
      io.out(envTable(vars.value));
      return;
    default:
      io.out(formatData(options.output, envData(options.namespace, vars.value)));
  }
}

export const envCommand: CliCommand = {
  name: 'env',
  register(program: Command, context: CommandContext): void {
    const command = program
      .command('env')
      .summary('the service environment variables a pod in a namespace gets')
      .description(
        "Prints the variables kubelet injects into every container of a pod in NAMESPACE: for each Service it can see (those of its namespace, unless --no-service-links, and default/kubernetes always), <SVC>_SERVICE_HOST and _PORT, and the Docker-link set <SVC>_PORT, <SVC>_PORT_<port>_<PROTO> with _PROTO, _PORT and _ADDR.",
      );
    addFilenameOption(command)
      .requiredOption('-n, --namespace <namespace>', "the pod's namespace")
      .option('--no-service-links', "the pod's enableServiceLinks is false: only default/kubernetes")
      .addOption(new Option('-o, --output <format>', 'output format: env prints NAME=value lines').choices(['env', 'table', 'json', 'yaml']).default('env'))
      .action(async (options: EnvCommandOptions) => run(context, options));
  },
};
