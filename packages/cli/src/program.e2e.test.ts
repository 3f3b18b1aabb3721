// The program as a whole through the real bin: help, usage errors, unreadable input, and the
// progress bar that only a terminal gets.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIN, FIXTURES, hasStackTrace, runBin, runCommand } from './run-bin.fixtures.js';

const CLUSTER = join(FIXTURES, 'cluster.yaml');

describe('kubesvc', () => {
  test('--help lists every offline command; each has its own --help; both exit 0', async () => {
    const top = await runBin(['--help']);
    expect(top.code).toBe(0);
    for (const name of ['rules', 'trace', 'dns', 'env', 'validate', 'ips', 'doctor']) expect(top.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    const rules = await runBin(['rules', '--help']);
    expect(rules.code).toBe(0);
    expect(rules.stdout).toMatch(/^Usage: kubesvc rules \[options\]/);
    expect(rules.stdout).toContain('--kube-proxy-version <version>');
  });

  test('usage errors exit 2: no command, an unknown one, a missing -f, a file that is not there', async () => {
    const none = await runBin([]);
    expect(none.code).toBe(2);
    const unknown = await runBin(['rulez']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("error: unknown command 'rulez'");
    expect(unknown.stderr).toContain('(Did you mean rules?)');
    const noFile = await runBin(['rules']);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toBe("error: required option '-f, --filename <file>' not specified\n");
    const missing = await runBin(['dns', '-f', '/nonexistent/dump.yaml', 'x']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('error: /nonexistent/dump.yaml: no such file\n');
  });

  test('input that does not decode exits 1, naming the file, the document and the field', async () => {
    const stream = 'apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: b, namespace: shop}\nspec:\n  ports: [{port: "80"}]\n';
    const run = await runBin(['rules', '-f', '-'], { stdin: stream });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('error: -: document 2 (Service shop/b): spec.ports[0].port: expected number, got string "80"\n');
  });

  test('INV-CLI-GARBAGE, through the bin: random bytes on stdin end in a message and exit 1, never a stack trace', async () => {
    // A fixed sample of bytes: a PNG header, invalid UTF-8, a NUL, YAML and JSON fragments.
    const garbage = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0x3a, 0x7b, 0x5b, 0x2d, 0x2d, 0x2d, 0x0a, 0x26, 0x2a]);
    for (const command of [['rules'], ['trace', '--to', '10.96.0.1:443'], ['dns', 'a.b'], ['env', '-n', 'x'], ['validate'], ['ips']]) {
      const [name = '', ...rest] = command;
      const run = await runBin([name, '-f', '-', ...rest], { stdin: garbage });
      expect(run.code, command.join(' ')).toBe(1);
      // 0x89 (PNG's first byte) cannot start a UTF-8 sequence: every command refuses the bytes before reading them.
      expect(run.stderr, command.join(' ')).toBe('error: -: not UTF-8 text: byte 0x89 at line 1, byte 1 of the line\n');
      expect(run.stdout, command.join(' ')).toBe('');
      expect(hasStackTrace(run.stderr)).toBe(false);
    }
  });
});

describe('the progress bar', () => {
  let dir: string;
  let large: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kubesvc-progress-'));
    large = join(dir, 'large.json');
    // A dump over the 1 MiB threshold: 2,000 Services with one endpoint each.
    const items = [];
    for (let i = 0; i < 2000; i++) {
      const ip = `10.96.${i >> 8}.${i & 255}`;
      items.push({ apiVersion: 'v1', kind: 'Service', metadata: { name: `svc-${i}`, namespace: 'bench', labels: { app: `svc-${i}`, 'app.kubernetes.io/part-of': 'bench' } }, spec: { clusterIP: ip, clusterIPs: [ip], ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }], selector: { app: `svc-${i}` } } });
      items.push({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: `svc-${i}-abcde`, namespace: 'bench', labels: { 'kubernetes.io/service-name': `svc-${i}` } }, addressType: 'IPv4', endpoints: [{ addresses: [`10.244.${i >> 8}.${i & 255}`], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'node-2' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] });
    }
    writeFileSync(large, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 4));
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  test('is never written when stderr is a pipe', async () => {
    const run = await runBin(['rules', '-f', large]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('svc-1999');
  });

  test('is drawn on a terminal (script(1) gives the command one), and only there', async () => {
    // script runs the command on a pseudo-terminal; stdout goes to /dev/null inside it, so what
    // script prints is what reached the terminal through stderr.
    const shell = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} rules -f ${JSON.stringify(large)} > /dev/null`;
    const run = await runCommand('script', ['-qec', shell, '/dev/null']);
    expect(run.code).toBe(0);
    // Every stage is drawn, in order, and the bar is cleared at the end.
    const stages = [...run.stdout.matchAll(/kubesvc \[[=-]+\] (\d)\/3 (\w+)/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(stages).toEqual(['0 parse', '1 rules', '2 write', '3 done']);
    const small = await runCommand('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} rules -f ${JSON.stringify(CLUSTER)} > /dev/null 2>&1`, '/dev/null']);
    expect(small.stdout).toBe('');
  });
});
