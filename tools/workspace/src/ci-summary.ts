// `tsx tools/workspace/src/ci-summary.ts`: prints the closing `N passed, N failed` line from
// every project's test-results/vitest.json and exits non-zero when a test failed or when the
// counts cannot be read. Each failed test is named on a line of its own above the closing line. Run by .ci/run after the test command.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { closingLine, RESULTS_FILE, summarize, type ProjectReport } from './test-summary.js';
import { listProjects, workspaceRoot } from './workspace.js';

const reports: ProjectReport[] = listProjects()
  .filter(({ dir }) => existsSync(join(workspaceRoot, dir, 'vitest.config.ts')))
  .map(({ dir, manifest }) => {
    const file = join(workspaceRoot, dir, RESULTS_FILE);
    return { project: manifest.name, text: existsSync(file) ? readFileSync(file, 'utf8') : undefined };
  });

const summary = summarize(reports);
for (const problem of summary.problems) console.error(`ci-summary: ${problem}`);
for (const failure of summary.failures) console.log(`ci-summary: failed: ${failure}`);
console.log(closingLine(summary));
process.exitCode = summary.failed > 0 || summary.problems.length > 0 ? 1 : 0;
