// The one place where subcommands are registered, in the order `kubesvc --help` lists them.
// A new subcommand is a module in this folder exporting a CliCommand, added here.
import type { CliCommand } from './command.js';
import { rulesCommand } from './rules.js';

export const COMMANDS: readonly CliCommand[] = [rulesCommand];
