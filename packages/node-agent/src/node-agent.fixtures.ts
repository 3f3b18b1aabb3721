// Test support for the node agent: a real store, the registry and an informer, and the real
// clients (dig, curl) run without blocking the event loop (the servers answer from this process).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EndpointSlice, KubeObject, Service } from '@kubesvc/api-types';
import { type Clock, openMemoryStore, type Store } from '@kubesvc/store';
import { startInformer, type Informer } from '@kubesvc/runtime';
import { openRegistry, type Registry, type ResourceName } from '@kubesvc/apiserver';
import { openSqliteStore } from '@kubesvc/store/sqlite';

export const SERVICE_CIDR = '10.96.0.0/24';

export interface TestCluster {
  readonly store: Store;
  readonly registry: Registry;
  readonly informer: Informer;
  /** A temporary folder, removed by close(). */
  readonly dir: string;
  close(): Promise<void>;
}

/** A SQLite (default) or memory store, the registry with the default namespace, and an informer. */
export async function openTestCluster(clock: Clock, backend: 'sqlite' | 'memory' = 'sqlite', resources: readonly ResourceName[] = ['services', 'endpointslices', 'namespaces', 'pods']): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'kubesvc-node-agent-'));
  const store = backend === 'sqlite' ? openSqliteStore({ path: join(dir, 'kubesvc.db'), clock }) : openMemoryStore({ clock });
  try {
    const opened = await openRegistry({ store, clock, seed: 7, serviceClusterIPRanges: [SERVICE_CIDR], serviceNodePortRange: '30000-32767' });
    if (!opened.ok) throw new Error(opened.error.message);
    const registry = opened.value;
    await must(registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }));
    const informer = await startInformer({ store, resources });
    return {
      store,
      registry,
      informer,
      dir,
      async close() {
        informer.stop();
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The value of a registry result, or a thrown error with its Status message. */
export async function must<T>(result: Promise<{ ok: true; value: T } | { ok: false; error: unknown }>): Promise<T> {
  const r = await result;
  if (!r.ok) throw new Error(`registry refused: ${JSON.stringify(r.error)}`);
  return r.value;
}

/** The store revision of an object the registry returned. */
export function revisionOf(object: KubeObject): number {
  return Number((object as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ?? '0');
}

export function service(name: string, spec: NonNullable<Service['spec']>, namespace = 'default'): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec };
}

export function endpointSlice(serviceName: string, ips: readonly string[], ports: NonNullable<EndpointSlice['ports']>, options: { name?: string; namespace?: string; hostnames?: readonly string[] } = {}): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: options.name ?? `${serviceName}-1`, namespace: options.namespace ?? 'default', labels: { 'kubernetes.io/service-name': serviceName } },
    addressType: 'IPv4',
    endpoints: ips.map((ip, i) => ({ addresses: [ip], conditions: { ready: true }, ...(options.hostnames?.[i] !== undefined ? { hostname: options.hostnames[i] } : {}) })),
    ports,
  };
}

export interface CommandOutput {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command without blocking the event loop; a non-zero exit is a result, not an error. */
export function runCommand(file: string, args: readonly string[], timeoutMs = 15_000): Promise<CommandOutput> {
  return new Promise((resolve, reject) => {
    execFile(file, [...args], { encoding: 'utf8', timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') reject(error);
      else resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
    });
  });
}

/** dig against the agent's server, one try; the answer section's records, whitespace collapsed. */
export async function dig(port: number, ...args: string[]): Promise<{ readonly out: string; readonly status: string; readonly answers: readonly string[] }> {
  const { stdout, stderr } = await runCommand('dig', ['@127.0.0.1', '-p', String(port), '+time=1', '+tries=1', ...args]);
  const out = `${stdout}${stderr}`;
  const section = /;; ANSWER SECTION:\n([\s\S]*?)\n\n/.exec(out)?.[1] ?? '';
  return {
    out,
    status: /status: ([A-Z]+)/.exec(out)?.[1] ?? 'no answer',
    answers: section
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split(/\s+/).join(' ')),
  };
}

/** Polls `probe` every `everyMs` until it returns a value or `withinMs` passes (then undefined). */
export async function poll<T>(probe: () => Promise<T | undefined>, withinMs: number, everyMs = 10): Promise<T | undefined> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() >= deadline) return undefined;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
