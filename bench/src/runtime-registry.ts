// Bench tasks of suite "runtime" for the registry: Service creates with ClusterIP allocation,
// one after another, on the memory store and on SQLite (synchronous=NORMAL). Each create is the
// whole request path after decoding: namespace check, defaulting, validation, the CAS on
// /registry/ranges/serviceips and the write of the Service.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemoryStore, openRegistry, openSqliteStore, systemClock, type Registry, type Store } from '@kubesvc/runtime';
import type { BenchTask } from './harness.js';

function service(i: number) {
  return {
    apiVersion: 'v1' as const,
    kind: 'Service' as const,
    metadata: { name: `svc-${i}`, labels: { app: `svc-${i}` } },
    spec: { selector: { app: `svc-${i}` }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
  };
}

function createTask(name: string, open: (dir: string) => Store, perSecond: number): BenchTask {
  let dir = '';
  let store: Store | undefined;
  let registry: Registry | undefined;
  let n = 0;
  return {
    name,
    setup: async () => {
      dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-registry-'));
      store = open(dir);
      // A /16: 65,534 addresses, more than a run creates.
      const r = await openRegistry({ store, clock: systemClock, seed: 1, serviceClusterIPRanges: ['10.96.0.0/16'] });
      if (!r.ok) throw new Error(r.error.message);
      registry = r.value;
      const ns = await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      if (!ns.ok) throw new Error(ns.error.message);
    },
    fn: async () => {
      if (registry === undefined) throw new Error('setup did not run');
      const r = await registry.create('services', 'default', service(n++));
      if (!r.ok) throw new Error(r.error.message);
    },
    target: { medianMs: 1000 / perSecond, source: `the registry design target: ${perSecond.toLocaleString('en-US')} Service creates with allocation per second, sequential` },
    metrics: () => {
      void store?.close();
      rmSync(dir, { recursive: true, force: true });
      return { creates: n };
    },
  };
}

/** The registry's tasks, added to suite "runtime". */
export function registryTasks(): BenchTask[] {
  return [
    createTask('registry: create a Service with ClusterIP allocation (memory)', () => openMemoryStore(), 20_000),
    createTask('registry: create a Service with ClusterIP allocation (sqlite)', (dir) => openSqliteStore({ path: join(dir, 'store.db') }), 2_000),
  ];
}
