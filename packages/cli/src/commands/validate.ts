// `kubesvc validate -f FILE`: upstream's field errors for every object; exit 1 when one is invalid.
import type { Command } from 'commander';
import { EXIT_INVALID } from '../cli-error.js';
import { formatValidation, mergeValidation, validateText, validationData, validationNames, validationTable } from '../logic/validate.js';
import { outputFormat } from '../output/printer.js';
import { formatData } from '../output/output-format.js';
import type { CliCommand, CommandContext } from './command.js';
import { DEFAULT_SERVICE_CLUSTER_IP_RANGE, serviceNetworkingOf } from './service-range-option.js';
import { inputsLabel } from './filename-inputs.js';
import { addFilenameOption, noObjectsError, readingInput, readInputs } from './shared-options.js';

interface ValidateCommandOptions {
  readonly filename: readonly string[];
  readonly recursive?: boolean;
  readonly serviceClusterIpRange: string;
  readonly output: string;
}

const VALIDATE_OUTPUTS = ['text', 'table', 'wide', 'name', 'json', 'yaml'] as const;

async function run(context: CommandContext, options: ValidateCommandOptions): Promise<void> {
  const { io } = context;
  const output = outputFormat(options.output, VALIDATE_OUTPUTS);
  const { families } = serviceNetworkingOf(options.serviceClusterIpRange);
  const inputs = await readInputs(io, options);
  const label = inputsLabel(options);
  const report = mergeValidation(
    inputs.length === 1 ? (inputs[0]?.source ?? label) : label,
    inputs.map((input) => readingInput(input.source, input.text, () => validateText(input.source, input.text, families))),
  );
  const empty = noObjectsError(report.source, report.valid + report.invalid, report.entries.filter((e) => e.result === 'skipped').map((e) => ({ document: e.document, ...(e.kind === undefined ? {} : { kind: e.kind }), message: '' })));
  if (empty !== undefined) throw empty;
  switch (output) {
    case 'text':
      io.out(formatValidation(report));
      break;
    case 'table':
    case 'wide':
      io.out(validationTable(report, output === 'wide'));
      break;
    case 'name':
      io.out(validationNames(report));
      break;
    default:
      io.out(formatData(output, validationData(report)));
  }
  if (report.invalid > 0) {
    // The report is the answer (stdout, in the format asked for); the verdict goes to stderr
    // as every other command's failure does, so a script or a terminal sees why the exit is 1.
    io.err(`error: ${report.source}: ${report.invalid} of ${report.entries.length} object${report.entries.length === 1 ? '' : 's'} invalid\n`);
    context.exitCode = EXIT_INVALID;
  }
}

export const validateCommand: CliCommand = {
  name: 'validate',
  register(program: Command, context: CommandContext): void {
    const command = program
      .command('validate')
      .summary("upstream's field errors for every object of a file")
      .description(
        'Checks every object as the apiserver checks a create: v1 defaulting, then validation (for a Service also its cluster IPs and IP families), and prints the field errors as upstream words them. Exit code 1 when an object is invalid or does not decode.',
      );
    addFilenameOption(command)
      .option('--service-cluster-ip-range <cidrs>', "the cluster's service CIDRs (their families decide a Service's ipFamilies)", DEFAULT_SERVICE_CLUSTER_IP_RANGE)
      .option('-o, --output <format>', `output format: ${VALIDATE_OUTPUTS.join('|')} (wide: the table with each object's message; name: kind/name of each object checked)`, 'text')
      .action(async (options: ValidateCommandOptions) => run(context, options));
  },
};
