// `kubesvc version` (and `--version`), `kubesvc status` and `kubesvc down`: what this kubesvc is,
// whether a `kubesvc up` runs on a data dir and where it serves, and stopping it as Ctrl-C
// does (SIGTERM: it removes its endpoint and lease, stops the controllers, closes the store).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { ErrNotFound, inputError, usageError } from '../cli-error.js';
import { formatData } from '../output/output-format.js';
import { outputFormat } from '../output/printer.js';
import { parseGoDuration } from '../up/duration.js';
import { UP_DEFAULTS } from '../up/up-defaults.js';
import { isKubesvcProcess, readUpStatus, UP_STATUS_FILE, type UpStatus } from '../up/up-status.js';
import type { CliCommand, CommandContext } from './command.js';

/** The Kubernetes release whose behaviour kubesvc follows. */
export const KUBERNETES_VERSION = 'v1.33';

/** This package's version, from its package.json (one level above src/ and dist/). */
export function kubesvcVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return `v${(JSON.parse(text) as { version: string }).version}`;
}

export function versionLine(): string {
  return `kubesvc ${kubesvcVersion()} (Kubernetes ${KUBERNETES_VERSION} semantics, Node.js ${process.version})\n`;
}

const FORMATS = ['text', 'json', 'yaml'] as const;

export const versionCommand: CliCommand = {
  name: 'version',
  register(program: Command, context: CommandContext): void {
    program.version(versionLine().trimEnd(), '--version', 'print the version and exit');
    program
      .command('version')
      .summary('print the version of kubesvc and of the Kubernetes it follows')
      .option('-o, --output <format>', 'output format: text, json or yaml', 'text')
      .action((options: { output: string }) => {
        const output = outputFormat(options.output, FORMATS);
        const data = { kubesvcVersion: kubesvcVersion(), kubernetesVersion: KUBERNETES_VERSION, nodeVersion: process.version };
        context.io.out(output === 'text' ? versionLine() : formatData(output, data));
      });
  },
};

/** The running `kubesvc up` of a data dir, or why there is none. */
function running(dataDir: string): { readonly status?: UpStatus; readonly why: string } {
  const path = join(dataDir, UP_STATUS_FILE);
  const read = readUpStatus(path);
  if (read.kind === 'absent') return { why: `kubesvc is not running on ${resolve(dataDir)} (no ${path})` };
  if (read.kind === 'invalid') throw inputError(`${path}: ${read.why}`);
  if (!isKubesvcProcess(read.status.pid)) return { why: `kubesvc is not running on ${resolve(dataDir)}: pid ${read.status.pid} of ${path} is gone (it did not stop cleanly)` };
  return { status: read.status, why: '' };
}

function statusText(s: UpStatus): string {
  const rows: [string, string][] = [
    ['data dir', s.dataDir],
    ['API server', `${s.apiURL}  (advertised as ${s.advertiseAddress})`],
    ['kubeconfig', s.kubeconfig],
    ['cluster DNS', s.dns ?? 'none'],
    ['kube-proxy', `${s.proxyMode}${s.rules === undefined ? '' : `  (rules in ${s.rules})`}`],
    ['nodes', s.nodes.join(', ')],
  ];
  for (const n of s.nodeRules ?? []) rows.push(['kube-proxy', `${n.node}  (rules in ${n.rules})`]);
  return `kubesvc is running (pid ${s.pid}, since ${s.startedAt})\n${rows.map(([k, v]) => `  ${k.padEnd(13)}${v}`).join('\n')}\n`;
}

export const statusCommand: CliCommand = {
  name: 'status',
  register(program: Command, context: CommandContext): void {
    program
      .command('status')
      .summary('whether a kubesvc up runs on a data dir, and where it serves')
      .option('--data-dir <dir>', 'the data dir of the kubesvc up', UP_DEFAULTS.dataDir)
      .option('-o, --output <format>', 'output format: text, json or yaml', 'text')
      .action((options: { dataDir: string; output: string }) => {
        const output = outputFormat(options.output, FORMATS);
        const { status, why } = running(options.dataDir);
        if (status === undefined) throw new ErrNotFound(why);
        context.io.out(output === 'text' ? statusText(status) : formatData(output, { status }));
      });
  },
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const downCommand: CliCommand = {
  name: 'down',
  register(program: Command, context: CommandContext): void {
    program
      .command('down')
      .summary('stop the kubesvc up of a data dir, as Ctrl-C does, and wait until it has stopped')
      .option('--data-dir <dir>', 'the data dir of the kubesvc up', UP_DEFAULTS.dataDir)
      .option('--timeout <duration>', 'how long to wait for it to stop before giving up', '60s')
      .action(async (options: { dataDir: string; timeout: string }) => {
        const timeoutMs = parseGoDuration(options.timeout);
        if (timeoutMs === undefined || timeoutMs <= 0) throw usageError(`--timeout must be a positive duration, such as 60s, not "${options.timeout}"`);
        const { status, why } = running(options.dataDir);
        if (status === undefined) {
          // Nothing to stop is not a failure: `down` twice is `down` once.
          context.io.err(`${why}\n`);
          return;
        }
        process.kill(status.pid, 'SIGTERM');
        const deadline = Date.now() + timeoutMs;
        while (isKubesvcProcess(status.pid)) {
          if (Date.now() > deadline) throw inputError(`kubesvc (pid ${status.pid}) has not stopped within ${options.timeout}; it is still shutting down, or stuck (kill -9 ${status.pid} ends it without cleanup)`);
          await sleep(100);
        }
        context.io.out(`kubesvc (pid ${status.pid}, ${status.dataDir}) stopped\n`);
      });
  },
};
