// `kubesvc doctor` through the real bin, on the checked-in dumps: exit codes and the JSON.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, hasStackTrace, runBin } from '../run-bin.fixtures.js';

const HEALTHY = join(FIXTURES, 'doctor-healthy.yaml');
const PROBLEMS = join(FIXTURES, 'doctor.yaml');

interface JsonFinding {
  readonly code: string;
  readonly severity: string;
  readonly service: string;
  readonly summary: string;
  readonly evidence: readonly string[];
  readonly reason: string;
  readonly command: string;
}

function findingsOf(stdout: string): JsonFinding[] {
  return (JSON.parse(stdout) as { findings: JsonFinding[] }).findings;
}

describe('kubesvc doctor', () => {
  it('a healthy dump: exit 0, "no problem found" per Service, and no findings as JSON', async () => {
    const text = await runBin(['doctor', '-f', HEALTHY]);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('Service default/kubernetes\n  no problem found\n\nService default/web\n  no problem found\n\n2 Services checked: 0 errors, 0 warnings, 0 notes\n');
    const json = await runBin(['doctor', '-f', HEALTHY, '-A', '-o', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ findings: [] });
  });

  it('the problems dump: exit 1, each finding with its fields', async () => {
    const run = await runBin(['doctor', '-f', PROBLEMS, '-n', 'shop', '-o', 'json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const findings = findingsOf(run.stdout);
    expect(findings.map((f) => `${f.service} ${f.severity} ${f.code}`)).toEqual([
      'shop/api warning PodsNotReady',
      'shop/api note TargetPortNotExposed',
      'shop/cart error TargetPortNotExposed',
      'shop/db error HeadlessNameMissing',
      'shop/edge warning EndpointsDisagree',
      'shop/edge warning NoLocalEndpoints',
      'shop/edge note AffinityTimeoutShort',
      'shop/legacy error EndpointsDisagree',
      'shop/web error SelectorMatchesNoPod',
    ]);
    for (const f of findings) {
      expect(Object.keys(f).sort()).toEqual(['code', 'command', 'evidence', 'reason', 'service', 'severity', 'summary']);
      expect(f.evidence.length).toBeGreaterThan(0);
    }
    const edge = findings.find((f) => f.code === 'NoLocalEndpoints');
    expect(edge?.evidence).toContain('NodePort 30080/TCP: dropped on node-b DROP (shop/edge:http has no local endpoints)');
    expect(edge?.command).toBe(`kubesvc trace -f ${PROBLEMS} --all-nodes --node-port --to :30080`);
  });

  it('only warnings and notes: exit 0', async () => {
    const run = await runBin(['doctor', '-f', PROBLEMS, '-n', 'shop', 'edge', 'api']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Service shop\/api\n {2}warning PodsNotReady: 1 of 2 selected pods are not ready\n/);
    expect(run.stdout).toMatch(/\n2 Services checked: 0 errors, 3 warnings, 2 notes\n$/);
  });

  it('--dns-name with --from: the search, as a finding about the Service that answers', async () => {
    const run = await runBin(['doctor', '-f', PROBLEMS, '-n', 'shop', 'api', '--dns-name', 'web.shop', '--from', 'tools/debug', '-o', 'json']);
    const ndots = findingsOf(run.stdout).find((f) => f.code === 'NdotsExpansion');
    expect(ndots?.service).toBe('shop/web');
    expect(ndots?.severity).toBe('note');
    expect(ndots?.evidence).toContain('2. web.shop.svc.cluster.local. answer');
  });

  it.each([
    ['an unknown output format', 2, ['-o', 'yaml'], /^error: unable to match a printer suitable for the output format "yaml", allowed formats are: json,name,text$/m],
    ['-n with -A', 2, ['-n', 'shop', '-A'], /^error: -n and -A both choose the namespaces: give one$/m],
    ['--dns-name without --from', 2, ['--dns-name', 'web'], /^error: --dns-name and --from go together/m],
    ['a Service the namespace has not', 1, ['-n', 'shop', 'nope'], /^error: .*doctor\.yaml: no Service "nope" in namespace shop$/m],
    ['a --from pod the input has not', 1, ['--dns-name', 'web', '--from', 'tools/ghost'], /^error: .*doctor\.yaml: --from: no pod tools\/ghost in the input$/m],
  ] as const)('refuses %s (exit %i)', async (_what, code, args, message) => {
    const run = await runBin(['doctor', '-f', PROBLEMS, ...args]);
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(message);
    expect(hasStackTrace(run.stderr)).toBe(false);
    expect(run.stdout).toBe('');
  });

  it('a file that does not exist: exit 2', async () => {
    const run = await runBin(['doctor', '-f', join(FIXTURES, 'no-such-file.yaml')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no such file/);
  });
});
