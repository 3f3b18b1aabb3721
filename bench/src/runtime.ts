// Bench suite "runtime": the store. Watch latency from a write to its event (memory and SQLite),
// one write of a Service-sized value (memory, SQLite, and a real single-member etcd), a list of
// 10,000 Services from SQLite, and the SQLite file's size for those Services before and after
// compaction.
//
// The SQLite database lives in a temporary folder made by the task's setup; metrics() (the last
// call the harness makes on a task) closes the store and removes the folder.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemoryStore, type Store, type WatchEvent } from '@kubesvc/store';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { openEtcdStore } from '@kubesvc/store/etcd';
import { startEtcd, type EtcdFixture } from '@kubesvc/testkit';
import type { BenchSuite, BenchTask } from './harness.js';
import { registryTasks } from './runtime-registry.js';

const SERVICES = 10_000;
const BATCH = 100;

/** A v1 Service as kubectl would store it: labels, the last-applied annotation, two ports. */
function serviceJson(i: number): string {
  const name = `svc-${i}`;
  const namespace = `ns-${i % 100}`;
  const clusterIP = `10.96.${(i >> 8) & 255}.${i & 255}`;
  const spec = {
    ports: [
      { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 },
      { name: 'metrics', protocol: 'TCP', port: 9090, targetPort: 9090 },
    ],
    selector: { app: name, tier: 'backend' },
    type: 'ClusterIP',
  };
  const applied = { apiVersion: 'v1', kind: 'Service', metadata: { labels: { app: name }, name, namespace }, spec };
  return JSON.stringify({
    kind: 'Service',
    apiVersion: 'v1',
    metadata: {
      name,
      namespace,
      uid: `6b1f${String(i).padStart(4, '0')}-2c3d-4e5f-8a9b-0c1d2e3f4a5b`,
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: name, 'app.kubernetes.io/part-of': 'bench' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(applied) + '\n' },
    },
    spec: {
      ...spec,
      clusterIP,
      clusterIPs: [clusterIP],
      sessionAffinity: 'None',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
    },
    status: { loadBalancer: {} },
  });
}

const key = (i: number) => `/registry/services/specs/ns-${i % 100}/svc-${i}`;

async function fill(store: Store, version: string): Promise<void> {
  for (let i = 0; i < SERVICES; i += BATCH) {
    const ops = [];
    for (let j = i; j < Math.min(SERVICES, i + BATCH); j++) ops.push({ kind: 'put' as const, key: key(j), value: serviceJson(j).replace('"status"', `"v":"${version}","status"`) });
    await store.txn([], ops);
  }
}

function fileBytes(path: string): number {
  let total = 0;
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      total += statSync(path + suffix).size;
    } catch {
      // absent: the WAL is checkpointed and removed when the store closes
    }
  }
  return total;
}

/** Write to event: put a key, then wait for the watch to deliver it. */
function watchLatencyTask(name: string, open: (dir: string) => Store): BenchTask {
  let dir = '';
  let store: Store | undefined;
  let iterator: AsyncIterator<WatchEvent> | undefined;
  let n = 0;
  const value = serviceJson(1);
  return {
    name,
    setup: () => {
      dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-store-'));
      store = open(dir);
      iterator = store.watch('/registry/services/')[Symbol.asyncIterator]();
    },
    fn: async () => {
      if (store === undefined || iterator === undefined) throw new Error('setup did not run');
      const k = `/registry/services/specs/default/latency-${n++ % 1000}`;
      await store.txn([], [{ kind: 'put', key: k, value }]);
      const next = await iterator.next();
      if (next.done === true || next.value.kv.key !== k) throw new Error('watch delivered the wrong event');
    },
    target: { medianMs: 2, source: 'the store design target: a write reaches watchers within 2 ms median' },
    metrics: () => {
      void store?.close();
      rmSync(dir, { recursive: true, force: true });
      return { writes: n };
    },
  };
}

function putTask(name: string, open: (dir: string) => Store): BenchTask {
  let dir = '';
  let store: Store | undefined;
  let n = 0;
  const value = serviceJson(2);
  return {
    name,
    setup: () => {
      dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-store-'));
      store = open(dir);
    },
    fn: async () => {
      if (store === undefined) throw new Error('setup did not run');
      await store.txn([], [{ kind: 'put', key: `/registry/services/specs/default/put-${n++}`, value }]);
    },
    metrics: () => {
      void store?.close();
      rmSync(dir, { recursive: true, force: true });
      return { writes: n, valueBytes: value.length };
    },
  };
}

/** One put of a Service-sized value to a real single-member etcd: one Raft commit with its fsync. */
function etcdPutTask(): BenchTask {
  let etcd: EtcdFixture | undefined;
  let store: Store | undefined;
  let n = 0;
  const value = serviceJson(2);
  return {
    name: 'etcd: put one Service',
    setup: async () => {
      etcd = await startEtcd({ name: 'kubesvc-bench' });
      store = await openEtcdStore({ endpoints: [etcd.endpoint] });
    },
    fn: async () => {
      if (store === undefined) throw new Error('setup did not run');
      await store.txn([], [{ kind: 'put', key: `/registry/services/specs/default/put-${n++}`, value }]);
    },
    metrics: () => {
      const stop = etcd?.dispose;
      void store?.close().finally(() => stop?.());
      return { writes: n, valueBytes: value.length };
    },
  };
}

/**
 * List 10,000 Services from SQLite. The setup writes them, rewrites each once (so half the log
 * is superseded history), and measures the file before and after compacting that history.
 */
function listTask(): BenchTask {
  let dir = '';
  let path = '';
  let store: Store | undefined;
  const figures: Record<string, number> = {};
  return {
    name: `sqlite: list ${SERVICES.toLocaleString('en-US')} Services`,
    setup: async () => {
      dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-store-'));
      path = join(dir, 'store.db');
      let s = openSqliteStore({ path });
      await fill(s, 'a');
      await s.close();
      figures.bytesAfterCreate = fileBytes(path);
      s = openSqliteStore({ path });
      await fill(s, 'b');
      await s.close();
      figures.bytesAfterUpdate = fileBytes(path);
      s = openSqliteStore({ path });
      await s.compact(await s.revision());
      await s.close();
      figures.bytesAfterCompaction = fileBytes(path);
      store = openSqliteStore({ path });
      figures.valueBytes = serviceJson(5000).length;
    },
    fn: async () => {
      if (store === undefined) throw new Error('setup did not run');
      const r = await store.range('/registry/services/specs/');
      if (r.kvs.length !== SERVICES) throw new Error(`listed ${r.kvs.length} Services, not ${SERVICES}`);
    },
    target: { medianMs: 60, source: 'the store design target for the embedded default: 10,000 Services listed in 60 ms' },
    metrics: () => {
      void store?.close();
      rmSync(dir, { recursive: true, force: true });
      return figures;
    },
  };
}

export function runtimeSuite(): BenchSuite {
  const sqlite = (dir: string) => openSqliteStore({ path: join(dir, 'store.db') });
  const memory = () => openMemoryStore();
  return {
    name: 'runtime',
    description: 'the store: watch latency, writes, listing 10,000 Services from SQLite, and the SQLite file size before and after compaction',
    tasks: [
      watchLatencyTask('memory: watch latency, write to event', memory),
      watchLatencyTask('sqlite: watch latency, write to event', sqlite),
      putTask('memory: put one Service', memory),
      putTask('sqlite: put one Service (synchronous=NORMAL)', sqlite),
      putTask('sqlite: put one Service (synchronous=FULL)', (dir) => openSqliteStore({ path: join(dir, 'store.db'), synchronous: 'FULL' })),
      etcdPutTask(),
      listTask(),
      ...registryTasks(),
    ],
  };
}
