// One first sync in a fresh process, for the side-by-side figures that a long bench run cannot
// give: the cold time (no JIT warm-up, as a `kubesvc rules` user meets it), the heap the result
// keeps alive, and the process's peak RSS, measured from outside with `/usr/bin/time -f %M` as
// kube-proxy's test binary is measured.
//
// What a user runs is built JavaScript under plain `node` (the node agent and `kubesvc rules`
// run the packages' dist), so that is what is measured: this script bundles
// proxy-iptables-fresh-entry.ts with esbuild into a temporary folder (the workspace packages
// from their sources, as tsc compiles them into dist: same code, target ES2022, no type checks)
// and runs the bundle with plain `node`, once per run, with no flags: `kubesvc` and the node
// agent set none. The fresh process builds only the shape's inputs
// and makes the suite's `first sync, feed included` call on them (proxy-iptables-config.ts);
// nothing of tsx or of the suite is in it.
//
//   node_modules/.bin/tsx bench/src/proxy-iptables-fresh.ts SHAPE [--runs N] [--steps] [--node-flag F]… [--out DIR]
// --runs N      N fresh processes, one after another (default 1)
// --steps       each process also prints its memory at each step
// --node-flag F a further node/V8 flag for the fresh processes (to try one)
// --out DIR     write the bundle to DIR/fresh.mjs, print the command that runs it, and stop
// --peer BIN    before each of ours, two fresh runs of kube-proxy's test binary BIN (built by the
//               side-by-side scripts, docs/performance.md "Side by side with kube-proxy") on
//               the same shape, each `-test.benchtime 1x` with GOMAXPROCS=2 so that its timed
//               iteration is its first: `-test.bench Feed` (a fresh proxier fed the objects
//               through its change trackers) and `-test.bench InitialSync` (the first
//               syncProxyRules of a proxier fed them untimed); its peak RSS from /usr/bin/time as
//               ours. Our first sync converts the objects itself, so the like-for-like peer figure
//               is the two summed: the feed as a fresh process runs it, then the sync as it runs
//               after the feed. The runs' medians and both ratios are printed at the end.
// Before the runs it prints the machine's page-fault cost (the harness's pageFaultMicros) and
// the load average; `/usr/bin/time -f %M` gives each process's peak RSS.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { pageFaultMicros } from './harness.js';
import { median } from './median.js';

const args = process.argv.slice(2);
const shape = args.find((a, i) => !a.startsWith('--') && (i === 0 || !['--runs', '--node-flag', '--out', '--peer'].includes(args[i - 1] ?? ''))) ?? '10000x10';
const option = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};
const runs = Number(option('--runs') ?? '1');
const out = option('--out');
const peer = option('--peer');
const nodeFlags = args.flatMap((a, i) => (args[i - 1] === '--node-flag' ? [a] : []));

const dir = out ?? mkdtempSync(join(tmpdir(), 'kubesvc-fresh-'));
mkdirSync(dir, { recursive: true });
const bundle = join(dir, 'fresh.mjs');
try {
  await build({
    entryPoints: [fileURLToPath(new URL('proxy-iptables-fresh-entry.ts', import.meta.url))],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'es2022',
    conditions: ['@kubesvc/source'],
    logLevel: 'warning',
  });
  const node = process.execPath;
  const command = [node, ...nodeFlags, bundle, shape, ...(args.includes('--steps') ? ['--steps'] : [])];
  if (out !== undefined) {
    console.log(command.join(' '));
  } else {
    // The child gets no NODE_OPTIONS: whatever loader ran this script stays out of it.
    const env = { ...process.env };
    delete env['NODE_OPTIONS'];
    const time = existsSync('/usr/bin/time');
    const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
    console.log(`page fault ${pageFaultMicros().toFixed(1)} µs; load average ${load()}`);
    /** The process's output, and its peak RSS in MiB from /usr/bin/time (undefined without it). */
    const timed = (argv: readonly string[], options: { env: NodeJS.ProcessEnv; cwd?: string }): { printed: string; rssMiB: number | undefined } => {
      const child = spawnSync(time ? '/usr/bin/time' : (argv[0] as string), time ? ['-f', 'peak RSS %M KiB', ...argv] : argv.slice(1), { ...options, encoding: 'utf8' });
      if (child.status !== 0) throw new Error(`${argv[0]} exited with ${child.status}: ${child.stderr}`);
      const kib = /^peak RSS (\d+) KiB$/m.exec(child.stderr);
      return { printed: child.stdout, rssMiB: kib === null ? undefined : Number(kib[1]) / 1024 };
    };
    const mib = (rss: number | undefined): string => (rss === undefined ? '? (no /usr/bin/time)' : rss.toFixed(1));
    /** One fresh run of the peer's benchmark `bench` on the shape: its first iteration's time in ms (NaN if not printed), and its peak RSS. */
    const peerRun = (bench: string): { ms: number; rssMiB: number | undefined } => {
      const { printed, rssMiB } = timed([peer as string, '-test.run', '^$', '-test.bench', bench, '-test.benchtime', '1x'], {
        env: { ...env, GOMAXPROCS: '2', PEER_SHAPES: shape },
        cwd: dirname(peer as string),
      });
      const line = printed.split('\n').find((l) => l.startsWith('Benchmark')) ?? '';
      const nsPerOp = /\s(\d+) ns\/op/.exec(line);
      return { ms: nsPerOp === null ? Number.NaN : Number(nsPerOp[1]) / 1e6, rssMiB };
    };
    const peerFeeds: number[] = [];
    const peerSyncs: number[] = [];
    const peerRss: number[] = [];
    const oursMs: number[] = [];
    const oursRss: number[] = [];
    for (let run = 0; run < runs; run++) {
      if (peer !== undefined) {
        const feed = peerRun('Feed');
        const initial = peerRun('InitialSync');
        peerFeeds.push(feed.ms);
        peerSyncs.push(initial.ms);
        if (initial.rssMiB !== undefined) peerRss.push(initial.rssMiB);
        console.log(
          `peer ${shape}, first iterations: Feed ${feed.ms.toFixed(1)} ms + InitialSync ${initial.ms.toFixed(1)} ms = ${(feed.ms + initial.ms).toFixed(1)} ms; ` +
            `InitialSync's peak RSS (/usr/bin/time %M) ${mib(initial.rssMiB)} MiB (load average ${load()})`,
        );
      }
      const ours = timed(command, { env });
      process.stdout.write(ours.printed);
      console.log(`  peak RSS (/usr/bin/time %M) ${mib(ours.rssMiB)} MiB`);
      const ms = /in a fresh process: ([\d.]+) ms/.exec(ours.printed);
      if (ms !== null) oursMs.push(Number(ms[1]));
      if (ours.rssMiB !== undefined) oursRss.push(ours.rssMiB);
    }
    if (peer !== undefined && oursMs.length > 0) {
      const ourMedian = median(oursMs);
      const feedMedian = median(peerFeeds);
      const syncMedian = median(peerSyncs);
      const sumMedian = median(peerFeeds.map((f, i) => f + (peerSyncs[i] as number)));
      console.log(
        `medians of ${oursMs.length} run(s): ours ${ourMedian.toFixed(1)} ms (the feed included); peer Feed ${feedMedian.toFixed(1)} ms, InitialSync ${syncMedian.toFixed(1)} ms, ` +
          `summed ${sumMedian.toFixed(1)} ms; ours ÷ (Feed + InitialSync) ${(ourMedian / sumMedian).toFixed(2)}, ours ÷ InitialSync alone ${(ourMedian / syncMedian).toFixed(2)}`,
      );
      if (oursRss.length > 0 && peerRss.length > 0) {
        console.log(`peak RSS medians: ours ${median(oursRss).toFixed(1)} MiB, peer's InitialSync ${median(peerRss).toFixed(1)} MiB, ratio ${(median(oursRss) / median(peerRss)).toFixed(2)}`);
      }
    }
  }
} finally {
  if (out === undefined) rmSync(dir, { recursive: true, force: true });
}
