// INV-SYS-DURABLE: real processes on a real SQLite file. A child (durable-child.fixtures.ts) runs creates
// and deletes and prints each acknowledged write; it is killed with SIGKILL at random moments
// and started again. After every kill the test opens the file itself, runs the repair loops
// three times, and checks: every acknowledged create not since deleted is there, every
// acknowledged delete is gone, no two Services share an IP or a node port, and the range
// objects hold exactly what the live Services hold (no leak survives the third run).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatIP, type RangeAllocation, type Service } from '@kubesvc/api-types';
import { allocatedIPs, ipAllocatorFromSnapshot } from '@kubesvc/ipallocator';
import { allocatedPorts, portAllocatorFromSnapshot } from '@kubesvc/portallocator';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { systemClock } from '@kubesvc/store';
import { createRegistry } from './registry.js';
import { NO_LEAKS, repairOnce } from './repair.js';
import { SERVICE_IPS_KEY, SERVICE_NODE_PORTS_KEY } from './resources.js';

const KILLS = 22;
const SOURCE = fileURLToPath(new URL('./durable-child.fixtures.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'kubesvc-durable-'));
// The child is bundled once, so that each restart costs a plain `node` start, not a TypeScript
// transform of the workspace (the kills must be many and the test short).
// Bundled under the workspace's node_modules/.cache, so that the bundle resolves better-sqlite3.
const cacheDir = fileURLToPath(new URL('../../../../node_modules/.cache', import.meta.url));
mkdirSync(cacheDir, { recursive: true });
const bundleDir = mkdtempSync(join(cacheDir, 'kubesvc-durable-'));
const CHILD = join(bundleDir, 'durable-child.mjs');
const children = new Set<ChildProcess>();

beforeAll(async () => {
  await build({
    entryPoints: [SOURCE],
    outfile: CHILD,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@kubesvc/source'],
    external: ['better-sqlite3'],
    // CommonJS dependencies get their require.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(" + JSON.stringify(SOURCE) + ');' },
    logLevel: 'silent',
  });
});

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  rmSync(bundleDir, { recursive: true, force: true });
});

interface Run {
  readonly lines: string[];
  readonly exited: Promise<void>;
}

/** Starts the child; resolves once it printed `ready`, so the kill lands inside the loop. */
function start(path: string, seed: number, first: number): Promise<{ child: ChildProcess; run: Run }> {
  const child = spawn(process.execPath, [CHILD, path, String(seed), String(first), '400'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const lines: string[] = [];
  let stderr = '';
  let buffered = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => {
    children.delete(child);
    resolve();
  }));
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout?.on('data', (d: Buffer) => {
      buffered += d.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        if (line === 'ready') resolve({ child, run: { lines, exited } });
      }
    });
    void exited.then(() => {
      if (!lines.includes('ready')) reject(new Error(`child exited before it was ready: ${stderr}`));
    });
  });
}

it('INV-SYS-DURABLE: acknowledged writes survive SIGKILL at random moments; after 3 repair runs no IP or port leaks', async () => {
  const path = join(dir, 'state.db');
  const live = new Set<string>(); // acknowledged creates, minus acknowledged deletes
  const deleted = new Set<string>();
  let next = 0;
  let seed = 7;
  let kills = 0;
  for (let round = 0; round < KILLS; round++) {
    const { child, run } = await start(path, seed++, next);
    // A random moment inside the loop: 5-60 ms after it started writing.
    await new Promise((r) => setTimeout(r, 5 + ((round * 37) % 56)));
    child.kill('SIGKILL');
    await run.exited;
    // Only a kill that landed inside the loop counts: a child that printed `done` had finished.
    if (!run.lines.includes('done')) kills++;
    for (const line of run.lines) {
      const [what, verb, name = ''] = line.split(' ');
      if (what === 'begin' && verb === 'create') next = Math.max(next, Number(name.slice(2)) + 1);
      // A delete in flight at the kill may or may not have happened: no longer a promise either way.
      if (what === 'begin' && verb === 'delete') live.delete(name);
      if (what !== 'ack') continue;
      if (verb === 'create') live.add(name);
      if (verb === 'delete') {
        live.delete(name);
        deleted.add(name);
      }
    }

    // The file as a restarted apiserver finds it.
    const store = openSqliteStore({ path, clock: systemClock });
    try {
      const opened = createRegistry({ store, clock: systemClock, seed: 1, serviceClusterIPRanges: ['10.96.0.0/22'], serviceNodePortRange: '30000-30999' });
      if (!opened.ok) throw new Error(opened.error.message);
      const registry = opened.value;
      let leaks = NO_LEAKS;
      for (let i = 0; i < 3; i++) {
        const r = await repairOnce(store, registry.net, leaks);
        expect(r.written).toBe(true);
        leaks = r.leaks;
      }
      const list = await registry.list<Service>('services', 'default');
      if (!list.ok) throw new Error(list.error.message);
      const names = new Set(list.value.items.map((s) => s.metadata.name ?? ''));
      for (const n of live) expect(names.has(n), `acknowledged create ${n} is missing after kill ${kills}`).toBe(true);
      for (const n of deleted) expect(names.has(n), `acknowledged delete ${n} came back after kill ${kills}`).toBe(false);
      const ips = list.value.items.map((s) => s.spec?.clusterIP ?? '');
      expect(new Set(ips).size).toBe(ips.length);
      const ports = list.value.items.flatMap((s) => (s.spec?.ports ?? []).map((p) => p.nodePort ?? 0).filter((p) => p !== 0));
      expect(new Set(ports).size).toBe(ports.length);
      const ipKv = (await store.get(SERVICE_IPS_KEY)).kv;
      const portKv = (await store.get(SERVICE_NODE_PORTS_KEY)).kv;
      const ipRange = ipKv === undefined ? undefined : ipAllocatorFromSnapshot(JSON.parse(ipKv.value) as RangeAllocation);
      const portRange = portKv === undefined ? undefined : portAllocatorFromSnapshot(JSON.parse(portKv.value) as RangeAllocation);
      const heldIPs = ipRange?.ok ? allocatedIPs(ipRange.value).map(formatIP) : [];
      const heldPorts = portRange?.ok ? allocatedPorts(portRange.value) : [];
      expect([...heldIPs].sort()).toEqual([...ips].sort());
      expect([...heldPorts].sort()).toEqual([...ports].sort());
    } finally {
      await store.close();
    }
  }
  expect(kills, 'kills that landed while the child was writing').toBeGreaterThanOrEqual(20);
  expect(live.size + deleted.size).toBeGreaterThan(0);
}, 120_000);
