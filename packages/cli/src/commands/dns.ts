// `kubesvc dns -f dump.yaml NAME [TYPE]`: the cluster DNS's answer, as dig prints it.
import { Option, type Command } from 'commander';
import type { PodMode } from '@kubesvc/discovery';
import { EXIT_INVALID } from '../cli-error.js';
import { inputError, usageError } from '../cli-error.js';
import { answerData, answerOf, formatAnswer, questionOf } from '../logic/dns.js';
import { formatData } from '../output/output-format.js';
import { outputFormat } from '../output/printer.js';
import type { CliCommand, CommandContext } from './command.js';
import { addFilenameOption, readDump } from './shared-options.js';

interface DnsCommandOptions {
  readonly filename: readonly string[];
  readonly recursive?: boolean;
  readonly zone: string;
  readonly pods: PodMode;
  readonly reverse?: boolean;
  readonly output: string;
}

async function run(context: CommandContext, name: string, type: string | undefined, options: DnsCommandOptions): Promise<void> {
  const { io } = context;
  const output = outputFormat(options.output, ['text', 'json', 'yaml'] as const);
  const question = questionOf(name, type, options.reverse === true);
  if (!question.ok) throw usageError(question.error.message);
  const dump = await readDump(io, options);
  const answer = answerOf(dump, question.value, { zone: options.zone, pods: options.pods });
  if (!answer.ok) {
    if (answer.error._tag === 'ErrZoneOptions') throw usageError(answer.error.message);
    throw inputError(`${dump.source}: ${answer.error.message}`);
  }
  io.out(output === 'text' ? formatAnswer(answer.value) : formatData(output, answerData(answer.value)));
  // NXDOMAIN, REFUSED and the other errors: the name was not found.
  if (answer.value.resolution.rcode !== 'NOERROR') context.exitCode = EXIT_INVALID;
}

export const dnsCommand: CliCommand = {
  name: 'dns',
  register(program: Command, context: CommandContext): void {
    const command = program
      .command('dns')
      .summary("the cluster DNS's answer to a question, as dig prints it")
      .description(
        "Answers NAME (and TYPE, default A) as CoreDNS's kubernetes plugin would for the Services, EndpointSlices (or Endpoints) and Pods of the input, printed as dig prints the answer. Exit code 1 when the status is not NOERROR (NXDOMAIN: no such name).",
      )
      .argument('<name>', 'the name asked, e.g. kubernetes.default.svc.cluster.local, or an address with -x')
      .argument('[type]', 'the record type: A, AAAA, SRV, PTR, TXT, CNAME, SOA, NS (default A; PTR with -x)');
    addFilenameOption(command)
      .option('--zone <domain>', 'the cluster domain', 'cluster.local')
      .addOption(new Option('--pods <mode>', "the pods option of CoreDNS's kubernetes plugin").choices(['disabled', 'insecure', 'verified']).default('disabled'))
      .option('-x, --reverse', 'NAME is an address: ask for its PTR record, as dig -x does')
      .option('-o, --output <format>', "output format: text (dig's), json or yaml", 'text')
      .action(async (name: string, type: string | undefined, options: DnsCommandOptions) => run(context, name, type, options));
  },
};
