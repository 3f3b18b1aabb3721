// One first sync in a fresh process, for the side-by-side figures that a long bench run cannot
// give: the cold time (no JIT warm-up, as a `kubesvc rules` user meets it), the heap the result
// keeps alive, and the process's peak RSS (measure it from outside with `/usr/bin/time -v`, as
// kube-proxy's test binary is measured). It runs the suite's own `first sync` task of the shape
// (its inputs, its hand-off of the text) exactly once.
//
//   node_modules/.bin/tsx --conditions=@kubesvc/source bench/src/proxy-iptables-fresh.ts 10000x10
import { fullGC } from './full-gc.js';
import { proxyIptablesSuite } from './proxy-iptables.js';

const shape = process.argv[2] ?? '10000x10';
const task = proxyIptablesSuite().tasks.find((t) => t.name === `first sync, feed included (objects converted in the sync) ${shape}`);
if (task === undefined) throw new Error(`no first sync task for ${shape}`);
task.setup?.();
fullGC();
const before = process.memoryUsage().heapUsed;
const t0 = performance.now();
const result = task.fn();
const ms = performance.now() - t0;
const peak = process.memoryUsage().heapUsed;
fullGC();
const retained = process.memoryUsage().heapUsed;
if (result === undefined) throw new Error('nothing kept');
const MiB = 2 ** 20;
console.log(
  `first sync ${shape} in a fresh process: ${ms.toFixed(1)} ms; heap after it ${((peak - before) / MiB).toFixed(1)} MiB, ` +
    `retained with its result ${((retained - before) / MiB).toFixed(1)} MiB; process maxRSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`,
);
