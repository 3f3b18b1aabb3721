import { describe, expect, test } from 'vitest';
import { closingLine, summarize, type ProjectReport } from './test-summary.js';

const report = (passed: number, failed: number, pending = 0, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    numPassedTests: passed,
    numFailedTests: failed,
    numPendingTests: pending,
    numTodoTests: 0,
    numTotalTests: passed + failed + pending,
    testResults: [],
    ...extra,
  });

describe('summarize', () => {
  test('adds the counts of every project', () => {
    const summary = summarize([
      { project: 'a', text: report(3, 0) },
      { project: 'b', text: report(4, 1, 2) },
    ]);
    expect(summary).toMatchObject({ passed: 7, failed: 1, skipped: 2, problems: [] });
    expect(closingLine(summary)).toBe('7 passed, 1 failed, 2 skipped');
  });

  test('the closing line has no skipped part when nothing was skipped', () => {
    expect(closingLine(summarize([{ project: 'a', text: report(5, 0) }]))).toBe('5 passed, 0 failed');
  });

  test('a project whose report is missing, unreadable or incomplete is a problem, not a zero', () => {
    const reports: ProjectReport[] = [
      { project: 'ok', text: report(1, 0) },
      { project: 'missing', text: undefined },
      { project: 'garbled', text: '{"numPassedTests": 1' },
      { project: 'partial', text: JSON.stringify({ numPassedTests: 2 }) },
      { project: 'inconsistent', text: report(1, 0, 0, { numTotalTests: 5 }) },
    ];
    const { passed, problems } = summarize(reports);
    expect(passed).toBe(2);
    expect(problems).toHaveLength(4);
    expect(problems[0]).toBe('missing: no test report (did its test target run?)');
    expect(problems[1]).toMatch(/^garbled: the test report is not JSON/);
    expect(problems[2]).toMatch(/^partial: the test report lacks numFailedTests, numPendingTests, numTodoTests, numTotalTests$/);
    expect(problems[3]).toMatch(/^inconsistent: the test report's counts do not add up/);
  });

  test('a test file that failed to load counts as a failure even though no test failed', () => {
    const text = report(2, 0, 0, {
      testResults: [
        { name: 'a.test.ts', status: 'passed', assertionResults: [{}, {}] },
        { name: 'b.test.ts', status: 'failed', assertionResults: [], message: 'Cannot find module' },
      ],
    });
    expect(summarize([{ project: 'a', text }])).toMatchObject({ passed: 2, failed: 1 });
  });

  test('each failed test and each file that failed to load is named, with the first line of its message', () => {
    const text = report(1, 1, 0, {
      testResults: [
        {
          name: '/tmp/ciclone/packages/apiserver/src/api/server.test.ts',
          status: 'failed',
          assertionResults: [
            { fullName: 'server answers', status: 'passed', failureMessages: [] },
            {
              fullName: 'server > watch ends',
              status: 'failed',
              failureMessages: ['\u001b[31mAssertionError: expected 1 to be 2\u001b[39m\n    at server.test.ts:10:3'],
            },
          ],
        },
        { name: '/tmp/ciclone/packages/apiserver/src/b.test.ts', status: 'failed', assertionResults: [], message: '\nCannot find module x' },
        { name: '/tmp/ciclone/packages/apiserver/src/c.test.ts', status: 'failed', assertionResults: [] },
      ],
    });
    expect(summarize([{ project: '@kubesvc/apiserver', text }]).failures).toEqual([
      '@kubesvc/apiserver: packages/apiserver/src/api/server.test.ts > server > watch ends: AssertionError: expected 1 to be 2',
      '@kubesvc/apiserver: packages/apiserver/src/b.test.ts: Cannot find module x',
      '@kubesvc/apiserver: packages/apiserver/src/c.test.ts: the file failed to load',
    ]);
  });

  test('a long message is cut', () => {
    const text = report(0, 1, 0, {
      testResults: [{ name: 'x.test.ts', status: 'failed', assertionResults: [{ fullName: 't', status: 'failed', failureMessages: ['y'.repeat(400)] }] }],
    });
    const [line] = summarize([{ project: 'p', text }]).failures;
    expect(line).toBe(`p: x.test.ts > t: ${'y'.repeat(300)}…`);
  });

  test('no projects, or no test anywhere, is a problem', () => {
    expect(summarize([]).problems).toEqual(['no project with a test target was found']);
    expect(summarize([{ project: 'a', text: report(0, 0) }]).problems).toEqual(['no test ran in any project']);
  });
});
