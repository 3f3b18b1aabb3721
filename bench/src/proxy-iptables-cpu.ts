// CPU time per call of one proxy-iptables bench task, in one process, for A/B comparisons on a
// shared machine: wall-clock time moves with other processes' load, the process's own CPU time
// much less. Runs the task `calls` times and prints one JSON line: the CPU milliseconds of each
// call (user + system, all of the process's threads, so the GC's helper threads count), its
// wall milliseconds, and the young- and old-generation collections seen during the calls.
//
//   node_modules/.bin/tsx --conditions=@kubesvc/source bench/src/proxy-iptables-cpu.ts 'first sync, feed included (objects converted in the sync) 10000x10' 8
//
// Alternate two builds of this file in fresh processes (bundled with esbuild, one per commit)
// to compare them; the first call of a process is its cold one.
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { proxyIptablesSuite } from './proxy-iptables.js';

const taskName = process.argv[2] ?? 'first sync, feed included (objects converted in the sync) 10000x10';
const calls = Number(process.argv[3] ?? '8');
const task = proxyIptablesSuite().tasks.find((t) => t.name === taskName);
if (task === undefined) throw new Error(`no task named ${taskName}`);
if (!Number.isInteger(calls) || calls < 1 || calls > 1000) throw new Error('calls: an integer in 1..1000');

let scavenges = 0;
let majors = 0;
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++;
    else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
  }
});
observer.observe({ entryTypes: ['gc'] });

task.setup?.();
const cpuMs: number[] = [];
const wallMs: number[] = [];
let kept: unknown;
for (let i = 0; i < calls; i++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  kept = task.fn();
  const t1 = performance.now();
  const c1 = process.cpuUsage(c0);
  cpuMs.push((c1.user + c1.system) / 1000);
  wallMs.push(t1 - t0);
  kept = undefined;
}
// The observer reports asynchronously: let it run once before printing.
setTimeout(() => {
  observer.disconnect();
  if (kept !== undefined) throw new Error('unreachable');
  const round = (xs: number[]) => xs.map((x) => Math.round(x * 10) / 10);
  console.log(JSON.stringify({ task: taskName, cpuMs: round(cpuMs), wallMs: round(wallMs), scavenges, majors }));
}, 0);
