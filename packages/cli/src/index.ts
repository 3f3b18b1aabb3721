// Public API of @kubesvc/cli: the program, to run `kubesvc` in-process against any CliIo
// (runCli) or to add commands to it (buildProgram). The subcommands and the pure logic behind
// them are the package's own; they are tested inside it, by relative path.
export type { CliIo } from './cli-io.js';
export type { CommandContext } from './commands/command.js';
export { buildProgram, runCli } from './program.js';
