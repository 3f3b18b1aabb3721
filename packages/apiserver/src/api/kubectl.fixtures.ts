// The real kubectl (/usr/bin/kubectl) against a fresh API server per test: a memory store, a
// registry with `default`, TLS with a new certificate, Table printing, and a kubeconfig in a
// temp folder; each kubectl run gets its own cache dir. Registers its vitest hooks.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { openMemoryStore, type Store, systemClock } from '@kubesvc/store';
import { openRegistry, type Registry } from '../registry/registry.js';
import { kubeconfigYaml } from './kubeconfig.js';
import { generateServingCertificate, type ServingCertificate } from './serving-cert.js';
import { startApiServer, type ApiServer } from './server.js';
import { printTable } from './table/index.js';
import type { ContainerRuntime } from './container-runtime.js';

const KUBECTL = '/usr/bin/kubectl';

export interface KubectlRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface KubectlHarness {
  /** The current test's registry. */
  registry(): Registry;
  kubectl(...args: string[]): Promise<KubectlRun>;
  /** kubectl with `input` on its standard input. */
  kubectlWithInput(input: string, ...args: string[]): Promise<KubectlRun>;
  /** The kubeconfig's path and the environment kubectl runs with (for a kubectl the test starts itself). */
  env(): { readonly KUBECONFIG: string; readonly HOME: string };
  /** Writes `text` to `name` in the test's temp folder and gives its path. */
  file(name: string, text: string): Promise<string>;
}

export interface KubectlHarnessOptions {
  /** The API server's ContainerRuntime (default: its own, filesContainerRuntime). */
  readonly containerRuntime?: () => ContainerRuntime;
}

export function kubectlHarness(name: string, seed: number, options: KubectlHarnessOptions = {}): KubectlHarness {
  const token = `kubectl-${name}-token`;
  let tls: ServingCertificate;
  let dir = '';
  let store: Store | undefined;
  let registry: Registry | undefined;
  let server: ApiServer | undefined;

  beforeAll(async () => {
    tls = await generateServingCertificate();
  });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), `kubesvc-kubectl-${name}-`));
    store = openMemoryStore();
    const opened = await openRegistry({ store, clock: systemClock, seed, serviceClusterIPRanges: ['10.96.0.0/24'] });
    if (!opened.ok) throw new Error(opened.error.message);
    registry = opened.value;
    await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    const containerRuntime = options.containerRuntime?.();
    server = await startApiServer({ registry, token, tls, tables: printTable, ...(containerRuntime === undefined ? {} : { containerRuntime }) });
    await writeFile(join(dir, 'config'), kubeconfigYaml(server.url, tls.cert, token));
  });

  afterEach(async () => {
    await server?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const runKubectl = async (input: string | undefined, args: readonly string[]): Promise<KubectlRun> => {
    const cache = await mkdtemp(join(dir, 'cache-'));
    return new Promise((resolve) => {
      const child = execFile(
        KUBECTL,
        [`--cache-dir=${cache}`, ...args],
        { env: { ...process.env, KUBECONFIG: join(dir, 'config'), HOME: dir }, timeout: 20_000, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
      );
      if (input !== undefined) child.stdin?.end(input);
    });
  };

  return {
    registry() {
      if (registry === undefined) throw new Error('no registry: the harness runs inside a test');
      return registry;
    },
    async file(name: string, text: string): Promise<string> {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    },
    kubectl(...args: string[]): Promise<KubectlRun> {
      return runKubectl(undefined, args);
    },
    kubectlWithInput(input: string, ...args: string[]): Promise<KubectlRun> {
      return runKubectl(input, args);
    },
    env() {
      return { KUBECONFIG: join(dir, 'config'), HOME: dir };
    },
  };
}
