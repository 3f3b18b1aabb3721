// Bench tasks of suite "runtime" for the registry: Service creates with ClusterIP allocation,
// one after another, on the memory store, on SQLite (synchronous=NORMAL) and on a real etcd
// (a single member started for the task, /usr/bin/etcd). Each create is the whole request path
// after decoding: namespace check, defaulting, validation, the allocation and the write of the
// Service, in one txn. With the default allocator (v1.33's: MultiCIDRServiceAllocator on,
// DisableAllocatorDualWrite off) the allocation writes an IPAddress object and the CAS on
// /registry/ranges/serviceips (the dual write); the tasks named "bitmap allocator" run the
// allocator of `--feature-gates MultiCIDRServiceAllocator=false`, the CAS alone. A second task
// per backend runs two registries on one store, creating at the same time, and counts the range
// CASes that lost (each one a retry).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClusterIPAllocation } from '@kubesvc/api-types';
import { openRegistry, type Registry } from '@kubesvc/apiserver';
import { openMemoryStore, systemClock, type Store } from '@kubesvc/store';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { openEtcdStore } from '@kubesvc/store/etcd';
import { startEtcd } from '@kubesvc/testkit';
import type { BenchTask } from './harness.js';

function service(name: string) {
  return {
    apiVersion: 'v1' as const,
    kind: 'Service' as const,
    metadata: { name, labels: { app: name } },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
  };
}

interface Opened {
  readonly store: Store;
  /** Closes the store and removes what open made (a folder, an etcd process). */
  readonly close: () => void;
}

type Open = () => Promise<Opened>;

interface CasCount {
  /** Txns with a compare on a /registry/ranges/ key. */
  cas: number;
  /** Of those, the ones whose compare failed: the registry reads the ranges again and retries. */
  lost: number;
}

/** The store, counting the compare-and-swaps on the range objects and the ones that lost. */
function countingCas(store: Store, count: CasCount): Store {
  return {
    backend: store.backend,
    get: (key, options) => store.get(key, options),
    range: (prefix, options) => store.range(prefix, options),
    txn: async (compares, onSuccess, onFailure) => {
      const r = await store.txn(compares, onSuccess, onFailure);
      if (compares.some((c) => c.key.startsWith('/registry/ranges/'))) {
        count.cas++;
        if (!r.succeeded) count.lost++;
      }
      return r;
    },
    watch: (prefix, options) => store.watch(prefix, options),
    grant: (ttl) => store.grant(ttl),
    keepAlive: (id) => store.keepAlive(id),
    revoke: (id) => store.revoke(id),
    compact: (revision) => store.compact(revision),
    revision: () => store.revision(),
    close: () => store.close(),
  };
}

/** The allocator of `--feature-gates MultiCIDRServiceAllocator=false`: the RangeAllocation's bitmap alone. */
const BITMAP: ClusterIPAllocation = { allocator: 'bitmap', dualWrite: false };

async function registryOn(store: Store, clusterIPAllocation?: ClusterIPAllocation): Promise<Registry> {
  // A /16: 65,534 addresses, more than a run creates.
  const r = await openRegistry({ store, clock: systemClock, seed: 1, serviceClusterIPRanges: ['10.96.0.0/16'], ...(clusterIPAllocation === undefined ? {} : { clusterIPAllocation }) });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

function createTask(name: string, open: Open, perSecond: number | undefined, clusterIPAllocation?: ClusterIPAllocation): BenchTask {
  let opened: Opened | undefined;
  let registry: Registry | undefined;
  const count: CasCount = { cas: 0, lost: 0 };
  let n = 0;
  return {
    name,
    setup: async () => {
      opened = await open();
      registry = await registryOn(countingCas(opened.store, count), clusterIPAllocation);
      const ns = await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      if (!ns.ok) throw new Error(ns.error.message);
    },
    fn: async () => {
      if (registry === undefined) throw new Error('setup did not run');
      const r = await registry.create('services', 'default', service(`svc-${n++}`));
      if (!r.ok) throw new Error(r.error.message);
    },
    ...(perSecond === undefined
      ? {}
      : { target: { medianMs: 1000 / perSecond, source: `the registry design target: ${perSecond.toLocaleString('en-US')} Service creates with allocation per second, sequential` } }),
    metrics: () => {
      opened?.close();
      return { creates: n, rangeCas: count.cas, rangeCasLost: count.lost };
    },
  };
}

/**
 * Two registries on one store (the same seed, so they draw the same addresses), each creating
 * one Service per iteration at the same time: one iteration is two creates.
 */
function contendedTask(name: string, open: Open): BenchTask {
  let opened: Opened | undefined;
  let registries: Registry[] = [];
  const count: CasCount = { cas: 0, lost: 0 };
  let n = 0;
  return {
    name,
    setup: async () => {
      opened = await open();
      const store = countingCas(opened.store, count);
      registries = [await registryOn(store), await registryOn(store)];
      const ns = await registries[0]?.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      if (ns?.ok !== true) throw new Error('namespace create failed');
    },
    fn: async () => {
      const i = n++;
      const results = await Promise.all(registries.map((registry, r) => registry.create('services', 'default', service(`r${r}-${i}`))));
      for (const result of results) if (!result.ok) throw new Error(result.error.message);
    },
    metrics: () => {
      opened?.close();
      return { creates: 2 * n, rangeCas: count.cas, rangeCasLost: count.lost };
    },
  };
}

const openMemory: Open = () => {
  const store = openMemoryStore();
  return Promise.resolve({ store, close: () => void store.close() });
};

const openSqlite: Open = () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-registry-'));
  const store = openSqliteStore({ path: join(dir, 'store.db') });
  return Promise.resolve({
    store,
    close: () => {
      void store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
};

const openEtcd: Open = async () => {
  const etcd = await startEtcd({ name: 'kubesvc-bench' });
  try {
    const store = await openEtcdStore({ endpoints: [etcd.endpoint] });
    return {
      store,
      close: () => {
        void store.close().finally(() => etcd.dispose());
      },
    };
  } catch (error) {
    await etcd.dispose();
    throw error;
  }
};

/** The registry's tasks, added to suite "runtime". */
export function registryTasks(): BenchTask[] {
  return [
    createTask('registry: create a Service with ClusterIP allocation (memory)', openMemory, 20_000),
    createTask('registry: create a Service with ClusterIP allocation (sqlite)', openSqlite, 2_000),
    createTask('registry: create a Service with ClusterIP allocation (etcd)', openEtcd, undefined),
    createTask('registry: create a Service with ClusterIP allocation, bitmap allocator (memory)', openMemory, 20_000, BITMAP),
    createTask('registry: create a Service with ClusterIP allocation, bitmap allocator (sqlite)', openSqlite, 2_000, BITMAP),
    contendedTask('registry: two registries creating at once, per pair of creates (memory)', openMemory),
    contendedTask('registry: two registries creating at once, per pair of creates (sqlite)', openSqlite),
    contendedTask('registry: two registries creating at once, per pair of creates (etcd)', openEtcd),
  ];
}
