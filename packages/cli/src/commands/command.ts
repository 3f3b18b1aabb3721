// The shape of a subcommand module (src/commands/<name>.ts): a name and a function that adds
// the subcommand to the program. commands/index.ts lists them; nothing else knows them.
import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';

export interface CommandContext {
  readonly io: CliIo;
  /** What the action decided: 0, or 1 for a negative answer ("invalid", "not found", NXDOMAIN, a dropped packet). */
  exitCode: number;
}

export interface CliCommand {
  readonly name: string;
  /** Adds the subcommand with `program.command(name)`, so it inherits the program's settings. */
  readonly register: (program: Command, context: CommandContext) => void;
}
