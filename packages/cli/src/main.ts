// The process entry point of `kubesvc` (bin/kubesvc.mjs loads it): runs the program on the
// real process and sets the exit code once standard output has taken everything.
import { nodeIo } from './node-io.js';
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2), nodeIo());
