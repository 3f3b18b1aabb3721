// Bench suite "cli": `kubesvc rules` end to end on a cluster dump, and where its time goes.
//
// The target is the project's: a 10,000 Services × 10 endpoints dump, as `kubectl get
// svc,endpointslices -A -o json` writes it (88 MB), in under 1.5 s end to end: a new node process
// reading the file, decoding it, generating the rules and writing the 430,021-line text to a
// file. The end-to-end tasks spawn the compiled program (`packages/cli/dist/main.js`, what the
// published bin runs; the task's setup builds it with `tsc --build`) and, without a target, the
// checkout's bin (`bin/kubesvc.mjs` with KUBESVC_FROM_SOURCES=1, so that it loads the TypeScript
// sources through tsx even where the build is fresh).
//
// YAML is measured on a 1,000 × 10 dump (3.9 MB as `kubectl -o yaml` writes it): tinybench runs
// every task at least 21 times (16 warm-up runs and 5 timed), and one 10,000 × 10 YAML run takes
// tens of seconds. The phases show what dominates: api-types' parseManifests (the `yaml` package,
// YAML 1.1 as kubectl reads it) against js-yaml 4.1.0's load of the same text followed by the same
// decodeObject, which is what a faster parser would give.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decodeObject, parseManifests, printJSON, printYAML, type EndpointSlice, type KubeObject, type Result, type Service } from '@kubesvc/api-types';
import { generateRules, proxierConfig } from '@kubesvc/proxy-iptables';
import { loadKernel } from '@kubesvc/proxy-iptables/wasm';
import { load as jsYamlLoad } from 'js-yaml';
import type { BenchSuite, BenchTask } from './harness.js';
import { clusterDump } from './kubesvc-cli-dump.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const distMain = join(root, 'packages/cli/dist/main.js');
const checkoutBin = join(root, 'packages/cli/bin/kubesvc.mjs');
/**
 * The cli's dump reader, which the package keeps to itself (its public API is runCli and
 * buildProgram): the suite loads the module from the checkout by path, as it runs the built
 * program by path, with the shape it has there.
 */
interface DumpReader {
  readonly loadDump: (source: string, text: string) => Result<unknown>;
}
const dumpReaderModule = join(root, 'packages/cli/src/dump/load-dump.ts');
const RULES_ARGS = ['rules', '--node-name', 'node-1', '--node-ip', '192.168.0.2', '--cluster-cidr', '10.0.0.0/8'];

interface Files {
  readonly dir: string;
  readonly json10k: string;
  readonly json1k: string;
  readonly yaml1k: string;
  readonly out: string;
}

let files: Files | undefined;
let built = false;

function prepare(): Files {
  if (files !== undefined) return files;
  const dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-cli-'));
  const big = clusterDump(10_000, 10);
  const small = clusterDump(1_000, 10);
  files = { dir, json10k: join(dir, 'dump-10000x10.json'), json1k: join(dir, 'dump-1000x10.json'), yaml1k: join(dir, 'dump-1000x10.yaml'), out: join(dir, 'rules.txt') };
  writeFileSync(files.json10k, printJSON(big));
  writeFileSync(files.json1k, printJSON(small));
  writeFileSync(files.yaml1k, printYAML(small));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return files;
}

function buildDist(): void {
  if (built) return;
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '--build', join(root, 'packages/cli/tsconfig.lib.json')], { stdio: 'inherit', timeout: 600_000 });
  if (run.status !== 0) throw new Error('tsc --build packages/cli/tsconfig.lib.json failed');
  built = true;
}

/** One run of the command, its output in a file as `kubesvc rules -f dump > rules.txt` writes it. */
function runRules(entry: string, input: string): void {
  const { out } = prepare();
  const fd = openSync(out, 'w');
  try {
    const env = { ...process.env, KUBESVC_FROM_SOURCES: '1' };
    const run = spawnSync(process.execPath, [entry, ...RULES_ARGS, '-f', input], { stdio: ['ignore', fd, 'pipe'], timeout: 300_000, env });
    if (run.status !== 0) throw new Error(`kubesvc rules exited ${run.status}: ${run.stderr.toString()}`);
  } finally {
    closeSync(fd);
  }
}

function sizeMetrics(input: () => string): () => Record<string, number> {
  return () => ({ inputMiB: Math.round((statSync(input()).size / 2 ** 20) * 10) / 10, outputMiB: Math.round((statSync(prepare().out).size / 2 ** 20) * 10) / 10 });
}

function readText(path: string): string {
  return spawnSync('cat', [path], { maxBuffer: 2 ** 30, encoding: 'utf8' }).stdout;
}

let json10kText = '';
let yaml1kText = '';
let objects: { services: Service[]; slices: EndpointSlice[] } = { services: [], slices: [] };

function split(list: readonly KubeObject[]): { services: Service[]; slices: EndpointSlice[] } {
  return { services: list.filter((o): o is Service => o.kind === 'Service'), slices: list.filter((o): o is EndpointSlice => o.kind === 'EndpointSlice') };
}

const config = (() => {
  const checked = proxierConfig({ kernel: loadKernel(), nodeName: 'node-1', nodeIPs: ['192.168.0.2'], localDetector: { kind: 'cidr', cidr: '10.0.0.0/8' } });
  if (!checked.ok) throw new Error(checked.error.message);
  return checked.value;
})();

export async function cliSuite(): Promise<BenchSuite> {
  const { loadDump } = (await import(pathToFileURL(dumpReaderModule).href)) as DumpReader;
  const tasks: BenchTask[] = [
    {
      name: 'rules 10000x10 JSON, end to end (node dist/main.js)',
      setup: () => {
        prepare();
        buildDist();
      },
      fn: () => runRules(distMain, prepare().json10k),
      target: { medianMs: 1500, source: 'the project: a 10,000 x 10 JSON dump in under 1.5 s end to end' },
      metrics: sizeMetrics(() => prepare().json10k),
    },
    {
      name: 'rules 10000x10 JSON, end to end (bin/kubesvc.mjs in a checkout, tsx)',
      setup: prepare,
      fn: () => runRules(checkoutBin, prepare().json10k),
    },
    {
      name: 'read 10000x10 JSON: JSON.parse alone',
      setup: () => {
        json10kText = readText(prepare().json10k);
      },
      fn: () => JSON.parse(json10kText) as unknown,
    },
    {
      name: "read 10000x10 JSON: the cli's loadDump (one-document fast path)",
      fn: () => {
        const dump = loadDump('dump.json', json10kText);
        if (!dump.ok) throw new Error(dump.error.message);
      },
    },
    {
      name: 'read 10000x10 JSON: parseManifests',
      fn: () => {
        const parsed = parseManifests(json10kText, { tolerant: true });
        if (!parsed.ok) throw new Error(parsed.error.message);
        objects = split(parsed.value.objects);
      },
    },
    {
      name: 'generateRules 10000x10 (decoded objects to restore text)',
      fn: () => generateRules(objects.services, objects.slices, config).restoreText.length,
    },
    {
      name: 'rules 1000x10 JSON, end to end (node dist/main.js)',
      setup: buildDist,
      fn: () => runRules(distMain, prepare().json1k),
      metrics: sizeMetrics(() => prepare().json1k),
    },
    {
      name: 'rules 1000x10 YAML, end to end (node dist/main.js)',
      setup: buildDist,
      fn: () => runRules(distMain, prepare().yaml1k),
      metrics: sizeMetrics(() => prepare().yaml1k),
    },
    {
      name: 'read 1000x10 YAML: parseManifests (yaml 2.9.1, YAML 1.1)',
      setup: () => {
        yaml1kText = readText(prepare().yaml1k);
      },
      fn: () => {
        const parsed = parseManifests(yaml1kText, { tolerant: true });
        if (!parsed.ok) throw new Error(parsed.error.message);
      },
    },
    {
      name: 'read 1000x10 YAML: js-yaml 4.1.0 load + decodeObject',
      fn: () => {
        const list = jsYamlLoad(yaml1kText) as { items: unknown[] };
        for (const item of list.items) if (!decodeObject(item).ok) throw new Error('an item did not decode');
      },
    },
  ];
  return { name: 'cli', description: 'kubesvc rules end to end on cluster dumps (JSON and YAML), and its phases', tasks };
}
