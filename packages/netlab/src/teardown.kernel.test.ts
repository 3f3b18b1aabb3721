// Teardown leaves nothing behind — no namespace (`ip netns list`), no link (`ip link`), no
// process — whether the lab ends normally, fails while being built, dies of an uncaught
// exception, or is interrupted with Ctrl-C (SIGINT to lab-main.ts, run by node with tsx as one
// process, as `npm run lab` runs it under the tsx wrapper). Needs root, like every lab test (.ci/run).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { demoCluster, DEMO_SERVICES } from './cluster.js';
import { run, SEARCH_PATH } from './commands.js';
import { Lab } from './lab.js';
import { leftovers, processRunning } from './netns.js';

const workspaceRoot = fileURLToPath(new URL('../../../', import.meta.url));
const sourceIndex = pathToFileURL(fileURLToPath(new URL('./index.ts', import.meta.url))).href;
const labMain = fileURLToPath(new URL('./lab-main.ts', import.meta.url));
const CHILD_LIMIT_MS = 45_000;

interface ChildRun {
  readonly stdout: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * Runs a TypeScript file with node + tsx (one process, so a signal reaches the lab's process
 * itself). `onLine` sees each stdout line and may return a signal to send. Killed after
 * CHILD_LIMIT_MS whatever happens.
 */
function runTs(file: string, args: readonly string[], onLine: (line: string) => NodeJS.Signals | undefined = () => undefined): Promise<ChildRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@kubesvc/source', file, ...args], {
      cwd: workspaceRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: SEARCH_PATH },
    });
    let stdout = '';
    let partial = '';
    const limit = setTimeout(() => child.kill('SIGKILL'), CHILD_LIMIT_MS);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      partial += chunk;
      let nl = partial.indexOf('\n');
      while (nl >= 0) {
        const signal = onLine(partial.slice(0, nl));
        if (signal !== undefined) child.kill(signal);
        partial = partial.slice(nl + 1);
        nl = partial.indexOf('\n');
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.on('exit', (code, signal) => {
      clearTimeout(limit);
      resolve({ stdout, code, signal });
    });
  });
}

const prefixIn = (text: string): string => /\blab (kl[a-z0-9]{6})\b/.exec(text)?.[1] ?? '';

describe('teardown', () => {
  test('after a normal run: every namespace, link and process is gone, and a second teardown is harmless', async () => {
    const lab = await Lab.create({ backends: ['be0'] });
    const { prefix } = lab;
    const namespaces = [...lab.namespaceNames];
    try {
      expect(namespaces).toEqual([`${prefix}-node`, `${prefix}-client`, `${prefix}-be0`]);
      expect([...leftovers(prefix).namespaces].sort()).toEqual([...namespaces].sort());
      const { services, endpointSlices } = demoCluster([lab.pod('be0').ip], lab.nodeName);
      lab.sync(services, endpointSlices);
      const report = await lab.connect('client', { protocol: 'tcp', host: DEMO_SERVICES.web.clusterIP, port: 80, count: 5 });
      expect(report.counts).toEqual({ be0: 5 });
    } finally {
      await lab.teardown();
    }
    const pids = lab.pids;
    expect(pids.length).toBeGreaterThanOrEqual(2);
    expect(leftovers(prefix)).toEqual({ namespaces: [], links: [] });
    expect(pids.filter(processRunning)).toEqual([]);
    for (const ns of namespaces) expect(run(['ip', 'netns', 'exec', ns, 'true']).status).not.toBe(0);
    await lab.teardown();
    expect(leftovers(prefix)).toEqual({ namespaces: [], links: [] });
  });

  test('when building fails half-way: what was made is removed, and a namespace the lab did not make is left alone', async () => {
    const prefix = `kt${Math.random().toString(36).slice(2, 8).padEnd(6, '0')}`;
    // Someone else's namespace with the name the lab wants for its second backend.
    expect(run(['ip', 'netns', 'add', `${prefix}-be1`]).status).toBe(0);
    try {
      await expect(Lab.create({ prefix, backends: ['be0', 'be1'] })).rejects.toThrow(/ip netns add kt[a-z0-9]{6}-be1/);
      expect(leftovers(prefix)).toEqual({ namespaces: [`${prefix}-be1`], links: [] });
    } finally {
      run(['ip', 'netns', 'del', `${prefix}-be1`]);
    }
    expect(leftovers(prefix)).toEqual({ namespaces: [], links: [] });
  });

  test('when the process dies of an uncaught exception: the exit handler removes the lab', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesvc-netlab-'));
    try {
      const script = join(dir, 'crash.mts');
      writeFileSync(
        script,
        [
          `import { Lab } from ${JSON.stringify(sourceIndex)};`,
          `const lab = await Lab.create({ backends: ['be0'] });`,
          'console.log(`lab ${lab.prefix} pids ${lab.pids.join(",")}`);',
          `throw new Error('crash on purpose');`,
        ].join('\n'),
      );
      const child = await runTs(script, []);
      expect(child.stdout).toContain('crash on purpose');
      expect(child.code).not.toBe(0);
      const prefix = prefixIn(child.stdout);
      expect(prefix).not.toBe('');
      const pids = (/pids ([\d,]+)/.exec(child.stdout)?.[1] ?? '').split(',').map(Number);
      expect(pids).toHaveLength(1);
      expect(pids.filter(processRunning)).toEqual([]);
      expect(leftovers(prefix)).toEqual({ namespaces: [], links: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('on Ctrl-C: lab-main.ts (what `npm run lab` runs) interrupted with SIGINT during --hold removes every namespace, link and process, and exits 130', async () => {
    let prefix = '';
    const child = await runTs(labMain, ['--connections', '30', '--hold', '--hold-seconds', '30'], (line) => {
      if (prefix === '') prefix = prefixIn(line);
      return line.startsWith('Ctrl-C tears it down') ? 'SIGINT' : undefined;
    });
    expect(prefix).not.toBe('');
    expect(child.stdout).toContain('3 endpoints): 30 connections, 0 failed');
    expect(child.stdout).toContain('SIGINT: tearing the lab down');
    expect(child.stdout).toContain(`torn down: no namespace, link or process of ${prefix} is left`);
    expect(child.code).toBe(130);
    expect(leftovers(prefix)).toEqual({ namespaces: [], links: [] });
    // The backends' processes, whose pids the lab printed, are gone.
    const pids = [...child.stdout.matchAll(/pid (\d+)\)/g)].map((m) => Number(m[1]));
    expect(pids).toHaveLength(3);
    expect(pids.filter(processRunning)).toEqual([]);
  });

  test('`npm run lab -- --nodes 2` (lab-main.ts) prints the README\'s per-node NodePort answers, exits 0 and leaves nothing', async () => {
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    const documented = readme.split('\n').filter((line) => line.startsWith('  via node-'));
    expect(documented).toHaveLength(4);
    const child = await runTs(labMain, ['--nodes', '2', '--connections', '150']);
    const prefix = prefixIn(child.stdout);
    expect(prefix).not.toBe('');
    for (const line of documented) expect(child.stdout).toContain(line);
    expect(child.stdout).not.toContain('PROBLEM');
    expect(child.stdout).toContain(`torn down: no namespace, link or process of ${prefix} is left`);
    expect(child.code).toBe(0);
    expect(leftovers(prefix)).toEqual({ namespaces: [], links: [] });
  });

  test('`npm run lab -- --nodes 3` is refused with the choices, before anything is made', async () => {
    const child = await runTs(labMain, ['--nodes', '3']);
    expect(child.stdout).toContain('--nodes must be 1 or 2, not 3');
    expect(child.code).toBe(2);
  });
});
