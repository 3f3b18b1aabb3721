// The table model against the real iptables-nft-restore --noflush: sequences of restore texts
// are applied one after the other in a throwaway network namespace (`unshare -n`), and after
// every step iptables-nft-save must print what the model prints for its tables, and the real
// tool must refuse exactly the steps the model refuses. The sequences: hand-written steps
// that flush, delete and fail, and generated clusters synced one after the other the way
// kube-proxy does it (each text with `:CHAIN` + `-X CHAIN` for the service chains the
// previous text had and this one has not).
//
// Needs root (or CAP_SYS_ADMIN + CAP_NET_ADMIN), iptables 1.8.x (nft backend) and unshare
// (util-linux). When they are missing the tests FAIL, saying what to install; .ci/run installs them.
// @needs-root: runs the real iptables-nft-restore in a throwaway network namespace (unshare -n); testkit root-only.ts refuses a run without root that selects it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc } from '@fast-check/vitest';
import { endpointSliceArb, serviceArb } from '@kubesvc/testkit';
import { describe, expect, test } from 'vitest';
import { isServiceChainName } from '../chain-names.js';
import { generateRules } from '../backend.js';
import { clusterArb } from '../real-parser/clusters.fixtures.js';
import { applyRestore } from './apply-restore.js';
import { emptyTables, printTables } from './table-state.js';

type Family = 4 | 6;
const SPAWN_TIMEOUT_MS = 20_000;
const SEARCH_PATH = `${process.env['PATH'] ?? ''}:/usr/sbin:/sbin:/usr/bin:/bin`;
const prefix = (family: Family): string => (family === 6 ? 'ip6tables' : 'iptables');

function run(command: string, args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: SPAWN_TIMEOUT_MS, env: { ...process.env, PATH: SEARCH_PATH } });
  return { status: r.status, stdout: r.stdout, stderr: `${r.error === undefined ? '' : `${r.error.message}\n`}${r.stderr}` };
}

/** Why the check cannot run here, or undefined when it can. Probed once. */
const missing: string | undefined = (() => {
  const tools = ['unshare', 'iptables-nft-restore', 'iptables-nft-save', 'ip6tables-nft-restore', 'ip6tables-nft-save'];
  const absent = tools.filter((t) => run('sh', ['-c', `command -v ${t}`]).status !== 0);
  if (absent.length > 0) {
    return `the table-model check needs ${absent.join(', ')}, which are not installed. Install them (Debian/Ubuntu: apt-get install -y iptables util-linux); .ci/run installs them.`;
  }
  const probe = run('unshare', ['-n', 'sh', '-c', 'iptables-nft-save >/dev/null']);
  if (probe.status !== 0) {
    return `\`unshare -n\` with iptables failed (exit ${String(probe.status)}): ${probe.stderr.trim()}. The check needs root (or CAP_SYS_ADMIN and CAP_NET_ADMIN); CI runs as root.`;
  }
  return undefined;
})();

interface RealStep {
  readonly ok: boolean;
  readonly save: string;
}

/** Applies each text with `--noflush` in one fresh namespace and reads the tables back after each. */
function realSequence(texts: readonly string[], family: Family): RealStep[] {
  const dir = mkdtempSync(join(tmpdir(), 'kubesvc-restore-model-'));
  try {
    const files = texts.map((text, i) => {
      const file = join(dir, `step-${i}.rules`);
      writeFileSync(file, text);
      return file;
    });
    const p = prefix(family);
    const script = `for f in "$@"; do ${p}-nft-restore --noflush < "$f" 2>/dev/null; echo "@@rc $?"; ${p}-nft-save | grep -v '^#'; echo "@@end"; done`;
    const r = run('unshare', ['-n', 'sh', '-c', script, 'sh', ...files]);
    expect(r.status, r.stderr).toBe(0);
    const steps: RealStep[] = [];
    for (const chunk of r.stdout.split('@@end\n').slice(0, -1)) {
      const [head = '', ...rest] = chunk.split('\n');
      steps.push({ ok: head === '@@rc 0', save: rest.join('\n') });
    }
    expect(steps).toHaveLength(texts.length);
    return steps;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function expectModelMatchesReal(texts: readonly string[], family: Family): void {
  if (missing !== undefined) throw new Error(`REAL IPTABLES CHECK CANNOT RUN: ${missing}`);
  const real = realSequence(texts, family);
  let tables = emptyTables(family);
  texts.forEach((text, i) => {
    const result = applyRestore(tables, text, { noflush: true });
    const step = real[i];
    expect(result.ok, `step ${i}: model ${result.ok ? 'accepted' : `refused (${result.ok ? '' : result.error.message})`}, real ${step?.ok === true ? 'accepted' : 'refused'}:\n${text}`).toBe(step?.ok);
    tables = result.ok ? result.value : result.error.tables;
    expect(printTables(tables), `tables after step ${i}`).toBe(step?.save);
  });
}

const lines = (...l: string[]): string => l.map((x) => `${x}\n`).join('');

test('hand-written --noflush steps: loads, flushes, deletions and refusals', () => {
  expectModelMatchesReal(
    [
      lines('*filter', ':INPUT DROP [0:0]', ':A - [0:0]', ':B - [0:0]', '-A A -j B', '-A B -j ACCEPT', '-A INPUT -j A', 'COMMIT', '*nat', ':N - [0:0]', '-A N -j RETURN', 'COMMIT'),
      lines('*filter', '-X B', 'COMMIT'),
      lines('*filter', ':B - [0:0]', '-X B', 'COMMIT'),
      lines('*filter', ':A - [0:0]', ':B - [0:0]', '-X B', 'COMMIT'),
      lines('*filter', '-X NOPE', 'COMMIT'),
      lines('*filter', ':INPUT ACCEPT [0:0]', ':E - [0:0]', '-A E -j ACCEPT', ':E - [0:0]', '-A E -j DROP', 'COMMIT'),
      lines('*filter', ':Y - [0:0]', 'COMMIT', '*nat', ':M - [0:0]', '-A NOPE -j RETURN', 'COMMIT'),
      lines('*filter', ':Q - [0:0]', '-X Q', '-A E -j Q', 'COMMIT'),
      lines('*nat', 'COMMIT'),
      lines('*filter', '-N E', 'COMMIT'),
      lines('*nat', ':N - [0:0]', '-I N -j RETURN', '-I N 1 -j ACCEPT', 'COMMIT'),
    ],
    4,
  );
});

/** The nat text with `:C - [0:0]` and `-X C` for the stale service chains, before its COMMIT. */
function withDeletions(text: string, stale: readonly string[]): string {
  if (stale.length === 0) return text;
  const natStart = text.indexOf('*nat\n');
  const commit = text.indexOf('COMMIT\n', natStart);
  const declare = stale.map((c) => `:${c} - [0:0]\n`).join('');
  const remove = stale.map((c) => `-X ${c}\n`).join('');
  const rulesStart = text.indexOf('\n-A ', natStart) + 1 || commit;
  return text.slice(0, rulesStart) + declare + text.slice(rulesStart, commit) + remove + text.slice(commit);
}

function natChains(text: string): Set<string> {
  const nat = text.slice(text.indexOf('*nat\n'));
  return new Set([...nat.matchAll(/^:(\S+) /gm)].map((m) => m[1] ?? ''));
}

describe('generated clusters synced one after the other, stale service chains deleted', () => {
  for (const family of [4, 6] as const) {
    test(`IPv${family}`, () => {
      const clusters = fc.sample(clusterArb(serviceArb(), endpointSliceArb(), family), { seed: 6_060 + family, numRuns: 8 });
      const texts: string[] = [];
      let previous = new Set<string>();
      const last = clusters.at(-1);
      // Finally every service goes: all service chains are deleted.
      const steps = last === undefined ? clusters : [...clusters, { ...last, services: [], slices: [] }];
      for (const cluster of steps) {
        const text = generateRules(cluster.services, cluster.slices, cluster.config).restoreText;
        const current = natChains(text);
        texts.push(withDeletions(text, [...previous].filter((c) => isServiceChainName(c) && !current.has(c))));
        previous = current;
      }
      // The corpus deletes chains.
      expect(texts.join('')).toMatch(/^-X KUBE-SEP-/m);
      expectModelMatchesReal(texts, family);
    });
  }
});
