// Sums vitest's JSON reports over every project into the closing line CI reads:
// `N passed, N failed` (with `, N skipped` when any were). Anything that keeps the counts
// from being trusted (a missing or unreadable report, no tests at all) is a problem. Each failed
// test, and each test file that failed to load, is named with the first line of its message, so
// that a CI log cut to its last lines still says what failed.

/** Where each project's vitest JSON report goes, relative to the project folder (vitest.shared.ts writes it). */
export const RESULTS_FILE = 'test-results/vitest.json';

export interface ProjectReport {
  readonly project: string;
  /** The report file's text, or undefined when the file does not exist. */
  readonly text: string | undefined;
}

export interface TestSummary {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly problems: readonly string[];
  /** `project: file > test: first line of the message`, one per failed test or unloadable file. */
  readonly failures: readonly string[];
}

/** How much of a failure message a failure line keeps. */
const MESSAGE_CHARS = 300;

function firstLine(message: unknown): string {
  const text = typeof message === 'string' ? message : '';
  // eslint-disable-next-line no-control-regex -- vitest keeps the terminal colours in its messages
  const line = (text.replace(/\u001b\[[0-9;]*m/g, '').split('\n').find((l) => l.trim() !== '') ?? '').trim();
  return line.length > MESSAGE_CHARS ? `${line.slice(0, MESSAGE_CHARS)}…` : line;
}

/** A test file's path from the workspace root (packages/x/..., tools/x/..., bench/...), whatever folder the run was in. */
function testFile(name: unknown): string {
  const path = typeof name === 'string' ? name : '?';
  return /\/((?:packages|tools)\/[^/]+\/.*|bench\/.*)$/.exec(path)?.[1] ?? path;
}

const COUNTS = ['numPassedTests', 'numFailedTests', 'numPendingTests', 'numTodoTests', 'numTotalTests'] as const;

export function summarize(reports: readonly ProjectReport[]): TestSummary {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const problems: string[] = [];
  const failures: string[] = [];
  if (reports.length === 0) problems.push('no project with a test target was found');
  for (const { project, text } of reports) {
    if (text === undefined) {
      problems.push(`${project}: no test report (did its test target run?)`);
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      problems.push(`${project}: the test report is not JSON (${(error as Error).message})`);
      continue;
    }
    const record = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
    const missing = COUNTS.filter((key) => !Number.isInteger(record[key]) || (record[key] as number) < 0);
    if (missing.length > 0) {
      problems.push(`${project}: the test report lacks ${missing.join(', ')}`);
      continue;
    }
    const [p, f, pending, todo, total] = COUNTS.map((key) => record[key] as number) as [number, number, number, number, number];
    if (p + f + pending + todo !== total) {
      problems.push(`${project}: the test report's counts do not add up (${p}+${f}+${pending}+${todo} != ${total})`);
    }
    // A file that fails to load counts no failed test but fails the run: count it as a failure.
    let failedSuites = 0;
    const suites = Array.isArray(record['testResults']) ? (record['testResults'] as Array<Record<string, unknown>>) : [];
    for (const suite of suites) {
      const file = testFile(suite['name']);
      const assertions = Array.isArray(suite['assertionResults']) ? (suite['assertionResults'] as Array<Record<string, unknown>>) : [];
      if (suite['status'] === 'failed' && assertions.length === 0) {
        failedSuites += 1;
        failures.push(`${project}: ${file}: ${firstLine(suite['message']) || 'the file failed to load'}`);
      }
      for (const test of assertions) {
        if (test['status'] !== 'failed') continue;
        const messages = Array.isArray(test['failureMessages']) ? (test['failureMessages'] as unknown[]) : [];
        failures.push(`${project}: ${file} > ${String(test['fullName'] ?? test['title'] ?? '?')}: ${firstLine(messages[0])}`);
      }
    }
    passed += p;
    failed += f + failedSuites;
    skipped += pending + todo;
  }
  if (reports.length > 0 && problems.length === 0 && passed + failed === 0) problems.push('no test ran in any project');
  return { passed, failed, skipped, problems, failures };
}

export function closingLine(summary: TestSummary): string {
  const line = `${summary.passed} passed, ${summary.failed} failed`;
  return summary.skipped > 0 ? `${line}, ${summary.skipped} skipped` : line;
}
