// `-o json|yaml|jsonpath=` on `rules` and `trace`, `-o name|wide` where objects are listed, and kubesvc as a kubectl plugin
// (`kubectl kubesvc ...` finds `kubectl-kubesvc` on PATH), through the real bin.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { BIN, FIXTURES, runBin, runCommand } from '../run-bin.fixtures.js';

const KUBERNETES_2017 = join(FIXTURES, 'kubernetes-2017.yaml');
const TOPOLOGY = join(FIXTURES, 'topology.yaml');
const INVALID = join(FIXTURES, 'invalid.yaml');

describe('-o json, yaml and jsonpath', () => {
  test('rules -o json gives the text kube-proxy writes and, per table, its chains and rules in order', async () => {
    const text = await runBin(['rules', '-f', KUBERNETES_2017, '--kube-proxy-version', '1.8', '--cluster-cidr', '172.16.0.0/16']);
    const json = await runBin(['rules', '-f', KUBERNETES_2017, '--kube-proxy-version', '1.8', '--cluster-cidr', '172.16.0.0/16', '-o', 'json']);
    expect(json.code).toBe(0);
    const data = JSON.parse(json.stdout) as { proxyMode: string; text: string; tables: { table: string; chains: string[]; rules: { chain: string; rule: string }[] }[] };
    expect(data.proxyMode).toBe('iptables');
    expect(data.text).toBe(text.stdout);
    expect(data.tables.map((t) => t.table)).toEqual(['filter', 'nat']);
    const nat = data.tables[1];
    // Every -A line of the text, in order, with the chain it appends to.
    const appended = text.stdout.slice(text.stdout.indexOf('*nat')).split('\n').filter((l) => l.startsWith('-A '));
    expect(nat?.rules.map((r) => r.rule)).toEqual(appended);
    expect(nat?.rules.find((r) => r.rule.includes('--dport 443'))?.chain).toBe('KUBE-SERVICES');
    expect(nat?.chains).toContain('KUBE-SVC-NPX46M4PTMTKRN6Y');
  });

  test('rules -o jsonpath walks the same data; a format kubesvc has not is refused with the allowed ones', async () => {
    const r = await runBin(['rules', '-f', KUBERNETES_2017, '--kube-proxy-version', '1.8', '-o', 'jsonpath={.tables[*].table}']);
    expect(r).toMatchObject({ code: 0, stdout: 'filter nat' });
    const bad = await runBin(['rules', '-f', KUBERNETES_2017, '-o', 'wide']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('error: unable to match a printer suitable for the output format "wide", allowed formats are: json,jsonpath,text,yaml\n');
  });

  test('trace -o jsonpath prints the outcomes\' probabilities as kubectl prints a list', async () => {
    const r = await runBin(['trace', '-f', TOPOLOGY, '--from-node', 'node-a', '--to', '10.96.0.20:80', '-o', 'jsonpath={range .outcomes[*]}{.destination} {.probability.kernel}{"\\n"}{end}']);
    expect(r.code).toBe(0);
    const json = JSON.parse((await runBin(['trace', '-f', TOPOLOGY, '--from-node', 'node-a', '--to', '10.96.0.20:80', '-o', 'json'])).stdout) as { outcomes: { destination: string; probability: { kernel: string } }[] };
    expect(r.stdout).toBe(json.outcomes.map((o) => `${o.destination} ${o.probability.kernel}\n`).join(''));
  });
});

describe('-o name and -o wide', () => {
  test('validate -o name: kind/name of each object checked, as kubectl names it; -o wide adds the message', async () => {
    const names = await runBin(['validate', '-f', INVALID, '-o', 'name']);
    expect(names).toMatchObject({ code: 1, stdout: 'service/web\nservice/api\nservice/db\n' });
    const wide = await runBin(['validate', '-f', INVALID, '-o', 'wide']);
    expect(wide.stdout.split('\n')[0]).toBe('DOCUMENT   KIND      NAMESPACE   NAME   RESULT    ERRORS   MESSAGE');
    expect(wide.stdout.split('\n')[3]).toMatch(/^3 +Service +shop +db +invalid +1 +does not decode$/);
  });

  test('ips -o name: the Services holding a ClusterIP; doctor -o name: those with a problem', async () => {
    const ips = await runBin(['ips', '-f', KUBERNETES_2017, '-o', 'name']);
    expect(ips).toMatchObject({ code: 0, stdout: 'service/kubernetes\n' });
    const doctor = await runBin(['doctor', '-f', join(FIXTURES, 'doctor-healthy.yaml'), '-A', '-o', 'name']);
    expect(doctor).toMatchObject({ code: 0, stdout: '' });
  });

  test("trace --all-nodes -o wide adds each node's IPs; a format a command has not is kubectl's refusal, the allowed ones sorted", async () => {
    const wide = await runBin(['trace', '-f', TOPOLOGY, '--to', '10.96.50.10:80', '--all-nodes', '-o', 'wide']);
    expect(wide.code).toBe(0);
    const lines = wide.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/ WHY +NODE IPS$/);
    expect(lines.slice(1).map((l) => [l.split(/ +/)[0], l.split(/ +/).at(-1)])).toEqual([
      ['node-a', '192.168.10.1'],
      ['node-a', '192.168.10.1'],
      ['node-b', '192.168.10.2'],
      ['node-b', '192.168.10.2'],
      ['node-c', '192.168.10.3'],
      ['node-c', '192.168.10.3'],
    ]);
    const one = await runBin(['trace', '-f', TOPOLOGY, '--to', '10.96.50.10:80', '-o', 'wide']);
    expect(one).toMatchObject({ code: 2, stdout: '', stderr: 'error: unable to match a printer suitable for the output format "wide", allowed formats are: json,jsonpath,table,text,yaml\n' });
    const version = await runBin(['version', '-o', 'wide']);
    expect(version).toMatchObject({ code: 2, stdout: '', stderr: 'error: unable to match a printer suitable for the output format "wide", allowed formats are: json,text,yaml\n' });
    const lookup = await runBin(['ips', '-f', KUBERNETES_2017, '--ip', '10.96.0.1', '-o', 'name']);
    expect(lookup).toMatchObject({ code: 2, stdout: '', stderr: 'error: unable to match a printer suitable for the output format "name", allowed formats are: json,table,yaml\n' });
  });
});

describe('kubectl kubesvc', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-plugin-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('kubectl runs kubesvc as its plugin when kubectl-kubesvc is on PATH', async () => {
    symlinkSync(BIN, join(dir, 'kubectl-kubesvc'));
    const env = { PATH: `${dir}:${process.env['PATH'] ?? ''}`, HOME: dir };
    const version = await runCommand('/usr/bin/kubectl', ['kubesvc', '--version'], { env });
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^kubesvc v\d+\.\d+\.\d+ \(Kubernetes v1\.33 semantics/);
    const listed = await runCommand('/usr/bin/kubectl', ['plugin', 'list', '--name-only'], { env });
    expect(listed.stdout).toContain('kubectl-kubesvc');
    // The doctor on a healthy dump, through kubectl: nothing wrong, exit 0.
    const doctor = await runCommand('/usr/bin/kubectl', ['kubesvc', 'doctor', '-f', join(FIXTURES, 'doctor-healthy.yaml'), '-A', '-o', 'json'], { env });
    expect(doctor.code).toBe(0);
    expect((JSON.parse(doctor.stdout) as { findings: unknown[] }).findings).toEqual([]);
  });
});
