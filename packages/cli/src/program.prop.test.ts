// INV-CLI-GARBAGE: whatever bytes come on standard input, every offline command ends with an
// exit code of 0, 1 or 2, and a failure is a one-line message naming the input, never a stack
// trace or an internal error. Run in-process (runCli with a CliIo of plain functions), so
// thousands of inputs take seconds; program.e2e.test.ts runs a sample through the real bin.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { shapeMutantArb } from '@kubesvc/testkit';
import { parse, stringify } from 'yaml';
import { expect } from 'vitest';
import type { CliIo } from './cli-io.js';
import { runCli } from './program.js';
import { FIXTURES, hasStackTrace } from './run-bin.fixtures.js';

interface Captured {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

async function run(args: readonly string[], stdin: Uint8Array): Promise<Captured> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
    readStdin: () => Promise.resolve(stdin),
    readFile: () => Promise.reject(Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' })),
    isDirectory: () => Promise.reject(Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' })),
    readDir: () => Promise.reject(Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' })),
    stderrIsTTY: false,
    env: {},
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

const COMMANDS: readonly (readonly string[])[] = [
  ['rules', '-f', '-'],
  ['rules', '-f', '-', '--kube-proxy-version', '1.8', '--save-view', 'legacy'],
  ['trace', '-f', '-', '--to', '10.96.0.1:443'],
  ['trace', '-f', '-', '--to', '10.96.0.1', '--proto', 'icmp', '-o', 'json'],
  ['dns', '-f', '-', 'kubernetes.default.svc.cluster.local'],
  ['dns', '-f', '-', '-x', '10.96.0.10'],
  ['env', '-f', '-', '-n', 'default'],
  ['validate', '-f', '-'],
  ['validate', '-f', '-', '-o', 'yaml'],
  ['ips', '-f', '-'],
  ['ips', '-f', '-', '--ip', '10.96.0.1'],
  ['doctor', '-f', '-', '-A', '--include-info', '-o', 'json'],
];

const encoder = new TextEncoder();
// JSON of anything fast-check makes: bigints as their digits (JSON has no bigint).
const json = (v: unknown): string => JSON.stringify(v, (_key, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)) ?? 'null';
const cluster = readFileSync(join(FIXTURES, 'cluster.yaml'), 'utf8');
// A v1.33 dump (ServiceCIDRs, IPAddresses), which `ips` reads another way.
const serviceCIDRs = readFileSync(join(FIXTURES, 'ips-service-cidrs.yaml'), 'utf8');

// Inputs: raw bytes; text; JSON and YAML of anything; and the cluster dumps with one part
// replaced or deleted, as JSON or YAML (the near misses a hand-edited dump makes).
const dumpObject = parse(cluster) as unknown;
const serviceCIDRObject = parse(serviceCIDRs) as unknown;
const inputArb: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 512 }),
  fc.string({ unit: 'binary', maxLength: 256 }).map((s) => encoder.encode(s)),
  fc.anything().map((v) => encoder.encode(json(v))),
  fc.anything().map((v) => encoder.encode(stringify(v))),
  shapeMutantArb(dumpObject).map((v) => encoder.encode(json(v))),
  shapeMutantArb(dumpObject).map((v) => encoder.encode(stringify(v))),
  fc.integer({ min: 0, max: cluster.length }).map((cut) => encoder.encode(cluster.slice(0, cut))),
  shapeMutantArb(serviceCIDRObject).map((v) => encoder.encode(stringify(v))),
  fc.integer({ min: 0, max: serviceCIDRs.length }).map((cut) => encoder.encode(serviceCIDRs.slice(0, cut))),
);

test.prop([fc.constantFrom(...COMMANDS), inputArb])(
  'INV-CLI-GARBAGE: arbitrary bytes on stdin end in exit 0, 1 or 2, and a failure is a message naming the input, never a stack trace',
  async (args, stdin) => {
    const { code, out, err } = await run(args, stdin);
    expect([0, 1, 2]).toContain(code);
    expect(err).not.toContain('internal error');
    expect(hasStackTrace(err)).toBe(false);
    if (code === 2) expect(err).toMatch(/^error: /);
    // dns and ips --ip answer "not found" with 1 and a report; trace answers a packet dropped or
    // rejected (a Service with no endpoints, say in a dump cut short) with 1 and its trace;
    // validate answers a bad object on stdout, as its report, and says on stderr how many were
    // invalid.
    // doctor answers an error-level finding with 1 and its report.
    const negativeAnswer =
      args[0] === 'dns' ||
      args.includes('--ip') ||
      (args[0] === 'trace' && !/(^|\n)error: /.test(err) && /^outcome \d+: (DROP|REJECT)/m.test(out)) ||
      (args[0] === 'doctor' && !/(^|\n)error: /.test(err) && /"severity": "error"/.test(out));
    if (code === 1 && !negativeAnswer) expect(err).toMatch(/(^|\n)error: -: /);
    if (code === 1 && args[0] === 'validate' && out !== '') expect(out).toMatch(/^-: |^file: "-"|"file": "-"/m);
  },
);
