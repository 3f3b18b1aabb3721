import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { main } from './cli.js';
import { formatResult, missedTargets, runSuite, type BenchSuite, type RunOptions } from './harness.js';

// Short sampling: these tests check the harness, not anyone's speed.
const quick: RunOptions = { timeMs: 20, warmupMs: 5, minIterations: 5 };

// Real work that takes well over a microsecond, so a zero target is always missed.
const work = () => {
  let sum = 0;
  for (let i = 0; i < 20_000; i++) sum += Math.sqrt(i);
  return sum;
};

const suite = (events: string[] = []): BenchSuite => ({
  name: 'demo',
  description: 'a synthetic suite',
  tasks: [
    {
      name: 'generous',
      setup: () => void events.push('setup generous'),
      fn: () => {
        if (events.at(-1) !== 'run generous') events.push('run generous');
        return work();
      },
      target: { medianMs: 60_000, source: 'a minute' },
      metrics: () => ({ lines: 43, bytes: 4500.5 }),
    },
    { name: 'impossible', fn: work, target: { medianMs: 0, source: 'zero time' } },
    { name: 'untargeted', fn: work },
  ],
});

describe('runSuite', () => {
  test('never runs an async task twice at once, from its first call on', async () => {
    let inFlight = 0;
    let most = 0;
    const result = await runSuite(
      {
        name: 'one-at-a-time',
        description: 'an async task that counts its calls in flight',
        tasks: [
          {
            name: 'async',
            fn: () => {
              inFlight++;
              most = Math.max(most, inFlight);
              return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
                inFlight--;
              });
            },
          },
        ],
      },
      quick,
    );
    expect(result.tasks[0]?.samples).toBeGreaterThanOrEqual(5);
    expect(most).toBe(1);
    expect(inFlight).toBe(0);
  });

  test('times every task, after its setup, and records targets and metrics', async () => {
    const events: string[] = [];
    const result = await runSuite(suite(events), quick);
    expect(events).toEqual(['setup generous', 'run generous']);
    expect(result.suite).toBe('demo');
    expect(result.tasks.map((t) => t.name)).toEqual(['generous', 'impossible', 'untargeted']);
    for (const t of result.tasks) {
      expect(t.samples).toBeGreaterThanOrEqual(5);
      expect(t.medianMs).toBeGreaterThan(0);
      expect(t.minMs).toBeLessThanOrEqual(t.medianMs);
      expect(t.medianMs).toBeLessThanOrEqual(t.maxMs);
    }
    expect(result.tasks[0]?.target).toEqual({ medianMs: 60_000, source: 'a minute', met: true });
    expect(result.tasks[0]?.metrics).toEqual({ lines: 43, bytes: 4500.5 });
    expect(result.tasks[1]?.target?.met).toBe(false);
    expect(result.tasks[2]?.target).toBeUndefined();
    expect(missedTargets([result])).toBe(1);
    expect(result.machine.cores).toBeGreaterThan(0);
    expect(result.machine.node).toBe(process.version);
    // A first touch of a fresh page costs something, and the figure is printed with the machine.
    expect(result.machine.pageFaultMicros).toBeGreaterThan(0);
    expect(Number.isFinite(result.machine.pageFaultMicros)).toBe(true);
    expect(Number.isNaN(Date.parse(result.date))).toBe(false);
  });

  test('the table has a row per task and names each missed target with its source', async () => {
    const text = formatResult(await runSuite(suite(), quick));
    const lines = text.split('\n');
    expect(lines[0]).toBe('demo: a synthetic suite');
    expect(lines[3]).toMatch(/^task\s+median ms\s+mean ms\s+p99 ms\s+ops\/s\s+±%\s+samples\s+faults\/op\s+target\s+metrics$/);
    expect(lines.find((l) => l.startsWith('generous'))).toMatch(/met \(≤ 60000\)\s+lines=43 bytes=4500\.50$/);
    expect(lines.find((l) => l.startsWith('impossible'))).toMatch(/MISSED \(≤ 0\.00e\+0\)/);
    expect(lines.at(-1)).toMatch(/^MISSED target: impossible median [\d.e+-]+ ms > 0\.00e\+0 ms \(zero time\)$/);
  });

  test('counts the fresh pages a call touches: a new 40 MiB buffer per call faults in most of its 10,240 pages, a reused one next to none', async () => {
    // Above 32 MiB, glibc's ceiling for its moving mmap threshold (DEFAULT_MMAP_THRESHOLD_MAX on
    // 64-bit), so every call's buffer is a mapping of its own, fresh however the earlier ones
    // were freed. An 8 MiB buffer was not: after a free glibc raises the threshold and serves the
    // next one from pages it kept, and one CI run counted 464 faults where 512 were asked for.
    const BYTES = 40 * 1024 * 1024;
    const PAGES = BYTES / 4096;
    const touch = (buffer: Buffer): number => {
      for (let offset = 0; offset < BYTES; offset += 4096) buffer[offset] = 1;
      return buffer.length;
    };
    const reused = Buffer.allocUnsafeSlow(BYTES);
    touch(reused);
    const result = await runSuite(
      {
        name: 'faults',
        description: '',
        tasks: [
          // allocUnsafeSlow at this size is malloc's mmap: fresh pages, faulted in on first touch
          // (transparent huge pages, when set to always, would fault in 2 MiB at a time).
          { name: 'fresh', fn: () => touch(Buffer.allocUnsafeSlow(BYTES)) },
          { name: 'reused', fn: () => touch(reused) },
        ],
      },
      quick,
    );
    const [fresh, again] = result.tasks;
    expect(fresh?.minorFaultsPerCall, 'fresh buffer').toBeGreaterThanOrEqual(PAGES / 2);
    expect(again?.minorFaultsPerCall, 'reused buffer').toBeLessThan(PAGES / 20);
  });

  test('a task that throws fails the suite, and an empty suite is refused', async () => {
    const broken: BenchSuite = {
      name: 'broken',
      description: '',
      tasks: [
        {
          name: 'throws',
          fn: () => {
            throw new Error('kaput');
          },
        },
      ],
    };
    await expect(runSuite(broken, quick)).rejects.toThrow(/kaput|did not complete/);
    await expect(runSuite({ name: 'empty', description: '', tasks: [] }, quick)).rejects.toThrow('suite "empty" has no tasks');
  });
});

describe('the bench command line', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const io = () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-'));
    dirs.push(dir);
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, dir, io: { out: (l: string) => void out.push(l), err: (l: string) => void err.push(l), resultsDir: dir } };
  };
  const other: BenchSuite = { name: 'other', description: 'another suite', tasks: [{ name: 't', fn: work }] };

  test('says so when no suite is registered yet', async () => {
    const { out, io: cli } = io();
    expect(await main([], [], cli)).toBe(0);
    expect(out).toEqual(['No benchmark suites are registered yet (bench/src/suites.ts).']);
    expect(await main(['proxy-iptables'], [], cli)).toBe(2);
  });

  test('--list names every suite', async () => {
    const { out, io: cli } = io();
    expect(await main(['--list'], [{ name: 'demo', load: () => suite() }, { name: 'other', load: () => other }], cli)).toBe(0);
    expect(out).toEqual([`${'demo'.padEnd(24)} a synthetic suite`, `${'other'.padEnd(24)} another suite`]);
  });

  test('runs only the suites named, prints the table and writes the JSON', async () => {
    const { out, dir, io: cli } = io();
    expect(await main(['other', '--time', '20', '--warmup', '5'], [{ name: 'demo', load: () => suite() }, { name: 'other', load: () => other }], cli)).toBe(0);
    expect(out[0]?.split('\n')[0]).toBe('other: another suite');
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^other-\d{4}-\d\d-\d\dT.*\.json$/);
    const saved = JSON.parse(readFileSync(join(dir, files[0] ?? ''), 'utf8'));
    expect(saved).toMatchObject({ suite: 'other', options: { timeMs: 20, warmupMs: 5 }, tasks: [{ name: 't' }] });
    expect(out).toContain(`results written to ${join(dir, files[0] ?? '')}`);
  });

  test('a missed target is reported, and fails the run only with --strict', async () => {
    const { out, io: cli } = io();
    expect(await main(['--time', '20', '--warmup', '5'], [{ name: 'demo', load: () => suite() }], cli)).toBe(0);
    expect(out).toContain('1 task(s) missed their target.');
    expect(await main(['--time', '20', '--warmup', '5', '--strict'], [{ name: 'demo', load: () => suite() }], io().io)).toBe(1);
  });

  test('bad input is refused with a clear message', async () => {
    const a = io();
    expect(await main(['nope'], [{ name: 'demo', load: () => suite() }], a.io)).toBe(2);
    expect(a.err).toEqual(['bench: no suite named "nope"; registered: demo']);
    const b = io();
    expect(await main(['--time', 'soon'], [{ name: 'demo', load: () => suite() }], b.io)).toBe(2);
    expect(b.err).toEqual(['bench: --time takes a whole number of milliseconds above 0, got "soon"']);
    const c = io();
    expect(await main(['--fast'], [{ name: 'demo', load: () => suite() }], c.io)).toBe(2);
    expect(c.err[0]).toMatch(/^bench: Unknown option '--fast'/);
    await expect(main([], [{ name: 'demo', load: () => suite() }, { name: 'demo', load: () => suite() }], io().io)).rejects.toThrow('two bench suites are named "demo"');
    await expect(main(['demo'], [{ name: 'demo', load: () => other }], io().io)).rejects.toThrow('the bench suite registered as "demo" calls itself "other"');
  });

  test('loads only the suites a run names', async () => {
    const loaded: string[] = [];
    const entry = (name: string, s: () => BenchSuite) => ({ name, load: () => (loaded.push(name), s()) });
    expect(await main(['other', '--time', '20', '--warmup', '5'], [entry('demo', () => suite()), entry('other', () => other)], io().io)).toBe(0);
    expect(loaded).toEqual(['other']);
  });
});
