// `kubesvc rules -f dump.yaml`: the iptables-restore text kube-proxy would write, or with
// `--proxy-mode nftables` the transaction its nftables proxier hands to `nft -f`.
import { Option, type Command } from 'commander';
import type { SaveBackend } from '@kubesvc/proxy-iptables';
import { inputError, usageError } from '../cli-error.js';
import { ok } from '@kubesvc/api-types';
import { formatRuleDiagnostic, nftablesRulesDiffOf, nftablesRulesOf, restoreTables, rulesDiffOf, rulesOf } from '../logic/rules.js';
import { parseOutput } from '../output/printer.js';
import { formatData, jsonPathOf } from '../output/output-format.js';
import { startProgress } from '../progress.js';
import type { CliCommand, CommandContext } from './command.js';
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
import { inputsLabel } from './filename-inputs.js';
import { addFilenameOption, dumpFromInputs, dumpFromText, readInputs, readInputText } from './shared-options.js';

interface RulesCommandOptions extends ProxierCommandOptions {
  readonly filename: readonly string[];
  readonly recursive?: boolean;
  /** text, json, yaml, or jsonpath=TEMPLATE. */
  readonly output: string;
  readonly saveView?: SaveBackend;
  readonly diff?: string;
  readonly node?: string;
}

const RULES_OUTPUTS = ['text', 'json', 'yaml'] as const;

/** The text as kube-proxy writes it, or the same with its tables as data (json, yaml, jsonpath). */
function printed(options: RulesCommandOptions, data: { readonly text: string } & Readonly<Record<string, unknown>>): string {
  const output = parseOutput(options.output, RULES_OUTPUTS);
  if (output.kind === 'jsonpath') return jsonPathOf(output.template, data);
  return output.format === 'text' ? data.text : formatData(output.format, data);
}

async function runNftables(context: CommandContext, options: RulesCommandOptions): Promise<void> {
  const { io } = context;
  if (options.saveView !== undefined) throw usageError('--save-view is for --proxy-mode iptables (an iptables-save view)');
  const inputs = await readInputs(io, options);
  const oldText = options.diff === undefined ? undefined : await readInputText(io, options.diff);
  const progress = startProgress(io, inputs.reduce((n, input) => n + input.text.length, 0) + (oldText?.length ?? 0), ['parse', 'rules', 'write']);
  try {
    const dump = dumpFromInputs(io, inputsLabel(options), inputs);
    const before = options.diff === undefined || oldText === undefined ? undefined : dumpFromText(io, options.diff, oldText);
    const config = nftablesConfigOf(options, dump, options.node === undefined ? undefined : dumpNodeFor(dump, options.node, '--node'));
    const warning = serviceCIDRWarning(options, dump);
    if (warning !== undefined) io.err(warning);
    progress.stage('rules');
    const rules = before === undefined ? ok(nftablesRulesOf(dump, config)) : nftablesRulesDiffOf(before, dump, config);
    if (!rules.ok) throw inputError(rules.error.message);
    progress.stage('write');
    progress.stop();
    io.out(printed(options, { proxyMode: 'nftables', nodeName: config.nodeName, text: rules.value }));
  } finally {
    progress.stop();
  }
}

async function run(context: CommandContext, options: RulesCommandOptions, versionFromCommandLine: boolean, nodeNameFromCommandLine: boolean): Promise<void> {
  parseOutput(options.output, RULES_OUTPUTS);
  checkModeFlags(options, versionFromCommandLine);
  if (options.node !== undefined) checkNodeFlag('--node', nodeNameFromCommandLine);
  if (options.proxyMode === 'nftables') return runNftables(context, options);
  const { io } = context;
  // Without --node the flags are checked before the input is read.
  const early = options.node === undefined ? proxierConfigOf(options) : undefined;
  const inputs = await readInputs(io, options);
  const oldText = options.diff === undefined ? undefined : await readInputText(io, options.diff);
  const progress = startProgress(io, inputs.reduce((n, input) => n + input.text.length, 0) + (oldText?.length ?? 0), ['parse', 'rules', 'write']);
  try {
    const dump = dumpFromInputs(io, inputsLabel(options), inputs);
    const before = options.diff === undefined || oldText === undefined ? undefined : dumpFromText(io, options.diff, oldText);
    const config = early ?? proxierConfigOf(options, dumpNodeFor(dump, options.node ?? '', '--node'));
    progress.stage('rules');
    const result = before === undefined ? rulesOf(dump, config, options.saveView) : rulesDiffOf(before, dump, config, options.saveView);
    if (!result.ok) throw inputError(result.error.message);
    progress.stage('write');
    progress.stop();
    for (const d of result.value.diagnostics) io.err(`warning: ${formatRuleDiagnostic(d)}\n`);
    io.out(
      printed(options, {
        proxyMode: 'iptables',
        nodeName: config.nodeName,
        text: result.value.text,
        tables: restoreTables(result.value.text),
        diagnostics: result.value.diagnostics.map(formatRuleDiagnostic),
      }),
    );
  } finally {
    progress.stop();
  }
}

export const rulesCommand: CliCommand = {
  name: 'rules',
  register(program: Command, context: CommandContext): void {
    const command = program
      .command('rules')
      .summary('the rules kube-proxy would write for a dump (iptables-restore or nft -f input)')
      .description(
        'Prints the iptables-restore input kube-proxy (iptables mode) writes on a full sync of the Services and EndpointSlices of the input ' +
          '(Endpoints stand in for a Service without EndpointSlices, as the mirroring controller makes them). ' +
          'Objects kube-proxy skips are reported on standard error. ' +
          "With --proxy-mode nftables: the transaction v1.33's nftables proxier hands to nft -f on its first sync (with --diff, on the partial sync).",
      );
    addProxierOptions(addFilenameOption(command))
      .addOption(new Option('--save-view <backend>', 'print what iptables-save shows once the text is loaded').choices(['nft', 'legacy']))
      .option('--diff <old-file>', 'print what a partial sync writes when the cluster goes from <old-file> to the input')
      .option('-o, --output <format>', 'output format: text (as kube-proxy writes it), json or yaml (the text, its tables, chains and rules), or jsonpath=TEMPLATE (over the json)', 'text')
      .option(
        '--node <name>',
        "the rules of kube-proxy on the input's Node of this name: its name, its zone label (topology hints) and its InternalIPs (unless --node-ip is given)",
      )
      .action(async (options: RulesCommandOptions, self: Command) =>
        run(context, options, self.getOptionValueSource('kubeProxyVersion') === 'cli', self.getOptionValueSource('nodeName') === 'cli'),
      );
  },
};
