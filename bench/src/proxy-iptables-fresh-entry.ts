// The fresh process of proxy-iptables-fresh.ts: one first sync of one shape, as the suite's
// `first sync, feed included` task makes it (its inputs, its call and hand-off, from
// proxy-iptables-config.ts), then one line of figures. It is bundled into built JavaScript and
// run with plain `node` by proxy-iptables-fresh.ts; run through tsx it would carry tsx's own
// memory and loader.
//
//   node fresh.mjs SHAPE [--steps]
// --steps also prints the process's memory (RSS, V8 heap, outside V8's heap) at each step.
import { fullGC } from './full-gc.js';
import { firstSync } from './proxy-iptables-config.js';
import { cluster } from './proxy-shapes.js';

const MiB = 2 ** 20;
const shapeText = process.argv[2] ?? '10000x10';
const steps = process.argv.includes('--steps');
const match = /^(\d+)x(\d+)$/.exec(shapeText);
if (match === null) throw new Error(`a shape is N×M services × endpoints, as 10000x10; got ${shapeText}`);

function step(name: string): void {
  if (!steps) return;
  const m = process.memoryUsage();
  const mib = (n: number): string => (n / MiB).toFixed(1);
  console.log(`  ${name}: rss ${mib(m.rss)}, heap used ${mib(m.heapUsed)} of ${mib(m.heapTotal)}, external ${mib(m.external)} (array buffers ${mib(m.arrayBuffers)}) MiB; maxRSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
}

step('loaded');
const input = cluster({ services: Number(match[1]), endpoints: Number(match[2]) });
step('inputs built');
fullGC();
step('after a full GC');
const before = process.memoryUsage().heapUsed;
const faults0 = process.resourceUsage().minorPageFault;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const result = firstSync(input);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const faults = process.resourceUsage().minorPageFault - faults0;
const peak = process.memoryUsage().heapUsed;
step('after the first sync');
fullGC();
const retained = process.memoryUsage().heapUsed;
step('after a full GC');
if (result.stats.bytes === 0) throw new Error('nothing written');
console.log(
  `first sync ${shapeText} in a fresh process: ${ms.toFixed(1)} ms (CPU of all threads ${((cpu.user + cpu.system) / 1000).toFixed(1)} ms, ${faults} minor page faults); heap after it ${((peak - before) / MiB).toFixed(1)} MiB, ` +
    `retained with its result ${((retained - before) / MiB).toFixed(1)} MiB; ${result.stats.bytes} bytes; process maxRSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
);
