// Entry point of `npm run bench` (run with tsx and the @kubesvc/source condition, so suites
// measure the workspace packages' source without a build).
import { fileURLToPath } from 'node:url';
import { main } from './cli.js';
import { suites } from './suites.js';

const resultsDir = fileURLToPath(new URL('../results', import.meta.url));
process.exitCode = await main(process.argv.slice(2), suites, {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  resultsDir,
});
