// Bench suite "ha": Service creates with ClusterIP allocation by 1 and by 3 registries at once
// (each registry is what one apiserver runs; on etcd each has its own client connection, as
// separate kube-apiserver processes would), on the memory store, SQLite and a real etcd
// (/usr/bin/etcd, one member started by the task through testkit's startEtcd); and the watch
// latency through etcd, from a put to its event. The creates count the registry's range CASes
// and the ones that lost (Registry.rangeCasStats): each lost one is a re-read and another commit.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRegistry, type Registry } from '@kubesvc/apiserver';
import { openMemoryStore, systemClock, type Store, type WatchEvent } from '@kubesvc/store';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { openEtcdStore } from '@kubesvc/store/etcd';
import { startEtcd, type EtcdFixture } from '@kubesvc/testkit';
import type { BenchSuite, BenchTask } from './harness.js';

type Backend = 'memory' | 'sqlite' | 'etcd';

interface Opened {
  /** One store per registry: the same object for memory and SQLite, a client each for etcd. */
  readonly stores: readonly Store[];
  close(): Promise<void>;
}

async function open(backend: Backend, registries: number): Promise<Opened> {
  if (backend === 'memory') {
    const store = openMemoryStore();
    return { stores: Array.from({ length: registries }, () => store), close: () => store.close() };
  }
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-ha-'));
    const store = openSqliteStore({ path: join(dir, 'store.db') });
    return {
      stores: Array.from({ length: registries }, () => store),
      close: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const etcd = await startEtcd({ name: 'kubesvc-bench' });
  const stores: Store[] = [];
  try {
    for (let i = 0; i < registries; i++) stores.push(await openEtcdStore({ endpoints: [etcd.endpoint] }));
  } catch (error) {
    await etcd.dispose();
    throw error;
  }
  return {
    stores,
    close: async () => {
      for (const s of stores) await s.close();
      await etcd.dispose();
    },
  };
}

function service(name: string) {
  return { apiVersion: 'v1' as const, kind: 'Service' as const, metadata: { name }, spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] } };
}

/** One iteration: every registry creates one Service, all at once. */
function createTask(backend: Backend, count: number): BenchTask {
  let opened: Opened | undefined;
  let registries: Registry[] = [];
  let n = 0;
  return {
    name: `${count} registr${count === 1 ? 'y' : 'ies'} creating at once, per round of ${count} create${count === 1 ? '' : 's'} (${backend})`,
    setup: async () => {
      opened = await open(backend, count);
      registries = [];
      for (const [i, store] of opened.stores.entries()) {
        const r = await openRegistry({ store, clock: systemClock, seed: 1 + i, serviceClusterIPRanges: ['10.96.0.0/16'] });
        if (!r.ok) throw new Error(r.error.message);
        registries.push(r.value);
      }
      const ns = await registries[0]?.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      if (ns?.ok !== true) throw new Error('namespace create failed');
    },
    fn: async () => {
      const i = n++;
      const results = await Promise.all(registries.map((registry, r) => registry.create('services', 'default', service(`r${r}-${i}`))));
      for (const result of results) if (!result.ok) throw new Error(result.error.message);
    },
    metrics: () => {
      const stats = registries.map((r) => r.rangeCasStats());
      const attempts = stats.reduce((a, s) => a + s.attempts, 0);
      const conflicts = stats.reduce((a, s) => a + s.conflicts, 0);
      void opened?.close();
      return { creates: count * n, rangeCas: attempts, rangeCasLost: conflicts, lostPerCreate: n === 0 ? 0 : Math.round((conflicts / (count * n)) * 100) / 100 };
    },
  };
}

/** Write to event through etcd: put a key, then wait for the watch to deliver it. */
function etcdWatchTask(): BenchTask {
  let etcd: EtcdFixture | undefined;
  let store: Store | undefined;
  let iterator: AsyncIterator<WatchEvent> | undefined;
  let n = 0;
  return {
    name: 'etcd: watch latency, write to event',
    setup: async () => {
      etcd = await startEtcd({ name: 'kubesvc-bench' });
      store = await openEtcdStore({ endpoints: [etcd.endpoint] });
      iterator = store.watch('/registry/services/')[Symbol.asyncIterator]();
    },
    fn: async () => {
      if (store === undefined || iterator === undefined) throw new Error('setup did not run');
      const k = `/registry/services/specs/default/latency-${n++ % 1000}`;
      await store.txn([], [{ kind: 'put', key: k, value: '{"kind":"Service"}' }]);
      const next = await iterator.next();
      if (next.done === true || next.value.kv.key !== k) throw new Error('watch delivered the wrong event');
    },
    metrics: () => {
      const e = etcd;
      void store?.close().finally(() => e?.dispose());
      return { writes: n };
    },
  };
}

export function haSuite(): BenchSuite {
  const backends: Backend[] = ['memory', 'sqlite', 'etcd'];
  return {
    name: 'ha',
    description: 'several apiservers on one store: creates with allocation by 1 and 3 registries on memory, SQLite and etcd, with the range CASes lost; watch latency through etcd',
    tasks: [...backends.flatMap((b) => [createTask(b, 1), createTask(b, 3)]), etcdWatchTask()],
  };
}
