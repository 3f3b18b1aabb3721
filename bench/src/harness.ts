// The benchmark harness: runs suites of tinybench tasks, checks each task against its target,
// and produces a result that can be printed as a table and saved as JSON with the machine it
// ran on. Suites are registered in suites.ts and chosen by name on the command line.
import { arch, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { Bench } from 'tinybench';

export interface BenchTarget {
  /** The task's median latency must not exceed this. */
  readonly medianMs: number;
  /** Where the figure comes from, e.g. "0.5x kube-proxy v1.26 FullSync 10000x10 (179.4 ms)". */
  readonly source: string;
}

export interface BenchTask {
  readonly name: string;
  readonly fn: () => unknown;
  /** Runs once before the task is timed (building inputs is not part of the measurement). */
  readonly setup?: () => unknown;
  readonly target?: BenchTarget;
  /** Figures about the work itself (bytes, lines, heap), read after the task has run. */
  readonly metrics?: () => Readonly<Record<string, number>>;
}

export interface BenchSuite {
  /** What `npm run bench -- <name>` selects: by convention the package name without scope. */
  readonly name: string;
  readonly description: string;
  readonly tasks: readonly BenchTask[];
}

export interface RunOptions {
  /** Time spent sampling each task, in ms. */
  readonly timeMs: number;
  readonly warmupMs: number;
  /** Lower bound on samples per task, for slow tasks. */
  readonly minIterations: number;
}

export const DEFAULT_RUN_OPTIONS: RunOptions = { timeMs: 1000, warmupMs: 200, minIterations: 5 };

export interface TaskResult {
  readonly name: string;
  readonly samples: number;
  readonly meanMs: number;
  readonly medianMs: number;
  readonly p99Ms: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly opsPerSecond: number;
  readonly rmePercent: number;
  readonly target?: BenchTarget & { readonly met: boolean };
  readonly metrics: Readonly<Record<string, number>>;
  /**
   * Minor page faults per call of the task (the kernel's count for this process, warm-up and
   * timed calls together, divided by the calls): the fresh memory a call touches, which costs
   * pageFaultMicros each. Work the task's fn starts but does not finish (another thread's, a
   * timer's) is counted too, and so is the garbage collector's.
   */
  readonly minorFaultsPerCall: number;
}

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  /** What a first touch of a fresh 4 KiB page costs here, in µs (pageFaultMicros). */
  readonly pageFaultMicros: number;
  /** The 1-minute load average when the suite finished. */
  readonly load1: number;
}

/**
 * The cost of faulting in a fresh page: a 64 MiB buffer from outside the JavaScript heap
 * (allocUnsafeSlow: malloc, which maps it lazily at this size) is written one byte per 4 KiB
 * page, and the time is divided by the pages; the least of three runs. On a VM where this is
 * 15 µs rather than 2, code that builds fresh memory on every call loses to code that reuses
 * it, which is why every figure here is recorded beside it.
 */
export function pageFaultMicros(): number {
  const PAGE = 4096;
  const BYTES = 64 * 1024 * 1024;
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    const buffer = Buffer.allocUnsafeSlow(BYTES);
    const t0 = process.hrtime.bigint();
    for (let offset = 0; offset < BYTES; offset += PAGE) buffer[offset] = 1;
    const micros = Number(process.hrtime.bigint() - t0) / 1000 / (BYTES / PAGE);
    best = Math.min(best, micros);
  }
  return Math.round(best * 100) / 100;
}

export interface SuiteResult {
  readonly suite: string;
  readonly description: string;
  /** ISO 8601, when the suite finished. */
  readonly date: string;
  readonly machine: Machine;
  readonly options: RunOptions;
  readonly tasks: readonly TaskResult[];
}

export function describeMachine(): Machine {
  const cpuList = cpus();
  return {
    cpu: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${platform()} ${release()} ${arch()}`,
    node: process.version,
    pageFaultMicros: pageFaultMicros(),
    load1: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

export async function runSuite(suite: BenchSuite, options: RunOptions = DEFAULT_RUN_OPTIONS): Promise<SuiteResult> {
  if (suite.tasks.length === 0) throw new Error(`suite "${suite.name}" has no tasks`);
  const results: TaskResult[] = [];
  // One Bench per task so that each task's setup runs right before it and its garbage does
  // not land in another task's samples.
  for (const task of suite.tasks) {
    await task.setup?.();
    const bench = new Bench({
      name: `${suite.name}/${task.name}`,
      time: options.timeMs,
      warmupTime: options.warmupMs,
      iterations: options.minIterations,
      throws: true,
    });
    let calls = 0;
    const fn = task.fn;
    // tinybench finds out whether a function is async by calling it once and not awaiting what
    // it returns, unless told: that call ran beside the warm-up's first, so an async task had two
    // calls in flight at its start (the etcd watch task took the other call's event and failed).
    // One call here, awaited, tells; it is one more warm-up call, before the faults are counted.
    const first = fn();
    const isAsync = typeof (first as { then?: unknown } | null)?.then === 'function';
    if (isAsync) await first;
    bench.add(
      task.name,
      () => {
        calls++;
        return fn();
      },
      { async: isAsync },
    );
    const faultsBefore = process.resourceUsage().minorPageFault;
    await bench.run();
    const faults = process.resourceUsage().minorPageFault - faultsBefore;
    const [result] = bench.results;
    if (result === undefined || result.state !== 'completed') {
      throw new Error(`task "${suite.name}/${task.name}" did not complete (${result?.state ?? 'no result'})`);
    }
    const { latency, throughput } = result;
    results.push({
      name: task.name,
      samples: latency.samplesCount,
      meanMs: latency.mean,
      medianMs: latency.p50,
      p99Ms: latency.p99,
      minMs: latency.min,
      maxMs: latency.max,
      opsPerSecond: throughput.mean,
      rmePercent: latency.rme,
      ...(task.target ? { target: { ...task.target, met: latency.p50 <= task.target.medianMs } } : {}),
      metrics: task.metrics?.() ?? {},
      minorFaultsPerCall: calls === 0 ? 0 : Math.round((faults / calls) * 10) / 10,
    });
  }
  return {
    suite: suite.name,
    description: suite.description,
    date: new Date().toISOString(),
    machine: describeMachine(),
    options,
    tasks: results,
  };
}

const formatMs = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms >= 0.001 ? ms.toFixed(4) : ms.toExponential(2));
const formatOps = (ops: number) => (ops >= 100 ? Math.round(ops).toLocaleString('en-US') : ops.toFixed(2));

/** A plain-text table: one row per task, then one line per missed target. */
export function formatResult(result: SuiteResult): string {
  const header = ['task', 'median ms', 'mean ms', 'p99 ms', 'ops/s', '±%', 'samples', 'faults/op', 'target', 'metrics'];
  const rows = result.tasks.map((t) => [
    t.name,
    formatMs(t.medianMs),
    formatMs(t.meanMs),
    formatMs(t.p99Ms),
    formatOps(t.opsPerSecond),
    t.rmePercent.toFixed(1),
    String(t.samples),
    String(t.minorFaultsPerCall),
    t.target ? `${t.target.met ? 'met' : 'MISSED'} (≤ ${formatMs(t.target.medianMs)})` : '',
    Object.entries(t.metrics)
      .map(([k, v]) => `${k}=${Number.isInteger(v) ? v : v.toFixed(2)}`)
      .join(' '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 0 || i >= 8 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const m = result.machine;
  const out = [
    `${result.suite}: ${result.description}`,
    `${result.date}  ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}, node ${m.node}, page fault ${m.pageFaultMicros} µs, load ${m.load1}`,
    '',
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
  ];
  for (const t of result.tasks) {
    if (t.target && !t.target.met) {
      out.push(`MISSED target: ${t.name} median ${formatMs(t.medianMs)} ms > ${formatMs(t.target.medianMs)} ms (${t.target.source})`);
    }
  }
  return out.join('\n');
}

export function missedTargets(results: readonly SuiteResult[]): number {
  return results.reduce((n, r) => n + r.tasks.filter((t) => t.target && !t.target.met).length, 0);
}
