// `kubesvc rules -f dump.yaml`: the iptables-restore text kube-proxy would write.
import { Option, type Command } from 'commander';
import { KUBE_PROXY_VERSIONS, type KubeProxyVersion, type SaveBackend } from '@kubesvc/proxy-iptables';
import { inputError, usageError } from '../cli-error.js';
import { DEFAULT_NODE_NAME, formatRuleDiagnostic, rulesConfig, rulesDiffOf, rulesOf } from '../logic/rules.js';
import { startProgress } from '../progress.js';
import type { CliCommand, CommandContext } from './command.js';
import { addFilenameOption, dumpFromText, readInputText } from './shared-options.js';

interface RulesCommandOptions {
  readonly filename: string;
  readonly nodeName: string;
  readonly nodeIp: readonly string[];
  readonly clusterCidr?: string;
  readonly masqueradeAll?: boolean;
  readonly saveView?: SaveBackend;
  readonly diff?: string;
  readonly kubeProxyVersion: KubeProxyVersion;
}

const collect = (value: string, previous: readonly string[]): string[] => [...previous, ...value.split(',').filter((v) => v !== '')];

async function run(context: CommandContext, options: RulesCommandOptions): Promise<void> {
  const { io } = context;
  const config = rulesConfig({
    nodeName: options.nodeName,
    nodeIPs: options.nodeIp,
    ...(options.clusterCidr !== undefined ? { clusterCIDR: options.clusterCidr } : {}),
    masqueradeAll: options.masqueradeAll === true,
    kubeProxyVersion: options.kubeProxyVersion,
  });
  if (!config.ok) throw usageError(config.error.message);

  const text = await readInputText(io, options.filename);
  const oldText = options.diff === undefined ? undefined : await readInputText(io, options.diff);
  const progress = startProgress(io, text.length + (oldText?.length ?? 0), ['parse', 'rules', 'write']);
  try {
    const dump = dumpFromText(io, options.filename, text);
    const before = options.diff === undefined || oldText === undefined ? undefined : dumpFromText(io, options.diff, oldText);
    progress.stage('rules');
    const result = before === undefined ? rulesOf(dump, config.value, options.saveView) : rulesDiffOf(before, dump, config.value, options.saveView);
    if (!result.ok) throw inputError(result.error.message);
    progress.stage('write');
    progress.stop();
    for (const d of result.value.diagnostics) io.err(`warning: ${formatRuleDiagnostic(d)}\n`);
    io.out(result.value.text);
  } finally {
    progress.stop();
  }
}

export const rulesCommand: CliCommand = {
  name: 'rules',
  register(program: Command, context: CommandContext): void {
    const command = program
      .command('rules')
      .summary('the iptables-restore text kube-proxy would write for a dump')
      .description(
        'Prints the iptables-restore input kube-proxy (iptables mode) writes on a full sync of the Services and EndpointSlices of the input ' +
          '(Endpoints stand in for a Service without EndpointSlices, as the mirroring controller makes them). ' +
          'Objects kube-proxy skips are reported on standard error.',
      );
    addFilenameOption(command)
      .option('--node-name <name>', 'the node kube-proxy runs on: endpoints with this nodeName are local', DEFAULT_NODE_NAME)
      .option('--node-ip <ip>', "the node's addresses (repeat, or separate with commas)", collect, [])
      .option('--cluster-cidr <cidr>', 'the pod CIDR: traffic from outside it is masqueraded')
      .option('--masquerade-all', 'masquerade every packet to a cluster IP')
      .addOption(new Option('--save-view <backend>', 'print what iptables-save shows once the text is loaded').choices(['nft', 'legacy']))
      .option('--diff <old-file>', 'print what a partial sync writes when the cluster goes from <old-file> to the input')
      .addOption(new Option('--kube-proxy-version <version>', 'the kube-proxy release whose rules to write').choices([...KUBE_PROXY_VERSIONS]).default('1.31'))
      .action(async (options: RulesCommandOptions) => run(context, options));
  },
};
