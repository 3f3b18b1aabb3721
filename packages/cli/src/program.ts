// The `kubesvc` program: commander, with every subcommand of commands/index.ts, run against a
// CliIo. Errors end as a message on standard error and an exit code, never a stack trace
// (INV-CLI-GARBAGE): 2 for usage, 1 for an input that is invalid or an answer "not found", 3 for
// an internal error (a bug), reported in one line; KUBESVC_DEBUG=1 adds the stack.
import { Command, CommanderError } from 'commander';
import type { CliIo } from './cli-io.js';
import { asCliError, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, exitCodeOf, internalErrorLine } from './cli-error.js';
import type { CommandContext } from './commands/command.js';
import { COMMANDS } from './commands/index.js';

export const PROGRAM_NAME = 'kubesvc';

/** The program, with its subcommands registered, writing to `context.io`. */
export function buildProgram(context: CommandContext): Command {
  const { io } = context;
  const program = new Command(PROGRAM_NAME)
    .description('An executable model of Kubernetes Service networking: ask it what kube-proxy, the DNS and the allocators would do for a cluster dump.')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showSuggestionAfterError(true)
    .helpCommand(false);
  for (const command of COMMANDS) command.register(program, context);
  return program;
}

/** Runs `kubesvc` with `argv` (the arguments after the program name) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const context: CommandContext = { io, exitCode: EXIT_OK };
  const program = buildProgram(context);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return context.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander has printed its message (or the help) already.
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? EXIT_OK : EXIT_USAGE;
    }
    const failure = asCliError(error);
    if (failure !== undefined) {
      io.err(`error: ${failure.message}\n`);
      return exitCodeOf(failure);
    }
    // A bug, not the input's fault: say so in one line; the stack only when asked for.
    const debug = io.env['KUBESVC_DEBUG'] !== undefined && io.env['KUBESVC_DEBUG'] !== '';
    io.err(`${internalErrorLine(error)}${debug ? '' : ' (run with KUBESVC_DEBUG=1 for the stack)'}\n`);
    if (debug && error instanceof Error && error.stack !== undefined) io.err(`${error.stack}\n`);
    return EXIT_INTERNAL;
  }
}
