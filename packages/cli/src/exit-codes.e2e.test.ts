// The exit codes, one case for each, through the real bin: 0 the answer, 1 a negative answer,
// 2 a usage error, 3 an internal error reported in one line (the stack with KUBESVC_DEBUG=1).
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN, FIXTURES, hasStackTrace, runBin, runCommand } from './run-bin.fixtures.js';

const CLUSTER = join(FIXTURES, 'cluster.yaml');

/** A Service with no endpoints: kube-proxy writes a REJECT for its cluster IP and port. */
const LONELY = 'apiVersion: v1\nkind: Service\nmetadata: {name: lonely, namespace: default}\nspec:\n  clusterIP: 10.96.0.77\n  clusterIPs: [10.96.0.77]\n  ports: [{name: http, port: 80, protocol: TCP, targetPort: 8080}]\n  selector: {app: lonely}\n';

/**
 * The bin under a preload that makes every write to standard output throw, as a bug in an
 * output path would: the commands do not expect it, so it is an internal error.
 */
function runBinWithBrokenStdout(args: readonly string[], env: Readonly<Record<string, string | undefined>> = {}) {
  const preload = `data:text/javascript,${encodeURIComponent('process.stdout.write = () => { throw new TypeError("stdout broke\\nsecond line"); };')}`;
  return runCommand(process.execPath, ['--import', preload, BIN, ...args], { env });
}

describe('exit codes', () => {
  test('0: the answer', async () => {
    const run = await runBin(['trace', '-f', CLUSTER, '--to', '10.96.100.10:80', '-o', 'json']);
    expect(run.code).toBe(0);
  });

  test('1: a negative answer: NXDOMAIN, a packet every rule rejects, an object not in the dump', async () => {
    const nx = await runBin(['dns', '-f', CLUSTER, 'nothing.shop.svc.cluster.local']);
    expect(nx.code).toBe(1);
    for (const output of ['text', 'json']) {
      const rejected = await runBin(['trace', '-f', '-', '--to', '10.96.0.77:80', '-o', output], { stdin: LONELY });
      expect(rejected.code, output).toBe(1);
      expect(rejected.stderr, output).toBe('');
      expect(rejected.stdout, output).toMatch(/reject/i);
    }
    const ghost = await runBin(['env', '-f', CLUSTER, '-n', 'shop', 'ghost']);
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toMatch(/^error: .*pod shop\/ghost is not in the dump\n$/m);
  });

  test('2: usage: an unknown option, a missing argument', async () => {
    const unknown = await runBin(['rules', '-f', CLUSTER, '--no-such-flag']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("error: unknown option '--no-such-flag'");
    const missing = await runBin(['trace', '-f', CLUSTER]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("error: required option '--to <ip:port>' not specified\n");
  });

  test('3: an internal error is one line on stderr naming KUBESVC_DEBUG, never a stack trace', async () => {
    const run = await runBinWithBrokenStdout(['rules', '-f', CLUSTER]);
    expect(run.code).toBe(3);
    const lines = run.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('warning: '));
    expect(lines).toEqual(['kubesvc: internal error: stdout broke (run with KUBESVC_DEBUG=1 for the stack)']);
    expect(hasStackTrace(run.stderr)).toBe(false);
  });

  test('3 with KUBESVC_DEBUG=1: the same line, then the stack', async () => {
    const run = await runBinWithBrokenStdout(['rules', '-f', CLUSTER], { KUBESVC_DEBUG: '1' });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('kubesvc: internal error: stdout broke\n');
    expect(run.stderr).toContain('TypeError: stdout broke\nsecond line\n');
    expect(hasStackTrace(run.stderr)).toBe(true);
  });
});
