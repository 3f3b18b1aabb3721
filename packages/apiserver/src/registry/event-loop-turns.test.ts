// Deleting many objects in one go (a namespace's contents, a collection delete) lets other
// work run in between: a setImmediate counter, standing in for the API's other clients, the
// DNS and the timers, keeps counting while the registry deletes. The store answers without
// ever leaving the microtask queue, so without the yields the counter would not move at all.
import type { KubeObject } from '@kubesvc/api-types';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemoryStore, type Store, virtualClock } from '@kubesvc/store';
import { openRegistry, type Registry } from './registry.js';

const SERVICES = 300;
let store: Store | undefined;

afterEach(async () => {
  await store?.close();
  store = undefined;
});

async function registryWith(services: number, eventLoopSliceMs: number): Promise<Registry> {
  store = openMemoryStore();
  const opened = await openRegistry({ store, clock: virtualClock(Date.UTC(2025, 0, 1)), seed: 9, serviceClusterIPRanges: ['10.96.0.0/22'], eventLoopSliceMs });
  if (!opened.ok) throw new Error(opened.error.message);
  const registry = opened.value;
  await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bulk' } });
  for (let i = 0; i < services; i++) {
    const created = await registry.create('services', 'bulk', { apiVersion: 'v1', kind: 'Service', metadata: { name: `s-${i}`, labels: { bulk: 'yes' } }, spec: { ports: [{ port: 80 }] } } as KubeObject);
    if (!created.ok) throw new Error(created.error.message);
  }
  return registry;
}

/** Runs `work` while a setImmediate loop counts its turns; returns the count and the work's value. */
async function countingTurns<T>(work: () => Promise<T>): Promise<{ turns: number; value: T }> {
  let turns = 0;
  let done = false;
  const tick = (): void => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const value = await work();
  done = true;
  return { turns, value };
}

describe('long deletes give the event loop turns', () => {
  it('finalizing a namespace of 300 Services yields between objects (slice 0: after each one)', async () => {
    const registry = await registryWith(SERVICES, 0);
    const terminating = await registry.delete('namespaces', '', 'bulk');
    expect(terminating.ok).toBe(true);
    const { turns, value } = await countingTurns(() => registry.finalizeNamespace('bulk'));
    expect(value.ok && value.value.deletedObjects).toBe(SERVICES);
    expect(turns).toBeGreaterThanOrEqual(SERVICES);
  });

  it('a collection delete of 300 Services yields between objects, and deletes them all', async () => {
    const registry = await registryWith(SERVICES, 0);
    const { turns, value } = await countingTurns(() => registry.deleteCollection('services', 'bulk'));
    expect(value.ok && value.value.items.length).toBe(SERVICES);
    expect(turns).toBeGreaterThanOrEqual(SERVICES);
    const left = await registry.list('services', 'bulk');
    expect(left.ok && left.value.items.length).toBe(0);
  });
});
