// Concurrent Service creates share range writes (Registry.allocate batches the allocations of
// one event-loop turn). What a client sees must be what sequential creates give: distinct
// ClusterIPs, every one recorded in the stored RangeAllocation, and a refused plan refused alone
// with upstream's message.
import { formatIP, type RangeAllocation, type Service } from '@kubesvc/api-types';
import { allocatedIPs, ipAllocatorFromSnapshot } from '@kubesvc/ipallocator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { type RangeResult, type Store, virtualClock, type Watch } from '@kubesvc/store';
import { openRegistry, type Registry } from './registry.js';
import { SERVICE_IPS_KEY } from './resources.js';

let dir: string;
let store: Store;
let registry: Registry;
let rangeWatch: Watch | undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kubesvc-alloc-batch-'));
  const clock = virtualClock(Date.UTC(2026, 0, 2, 3, 4, 5));
  store = openSqliteStore({ path: join(dir, 'store.db'), clock });
  const r = await openRegistry({ store, clock, seed: 11, serviceClusterIPRanges: ['10.96.0.0/12'] });
  if (!r.ok) throw new Error(r.error.message);
  registry = r.value;
  const ns = await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  if (!ns.ok) throw new Error(ns.error.message);
});

afterEach(async () => {
  rangeWatch?.close();
  rangeWatch = undefined;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function svc(name: string, clusterIP?: string): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], ...(clusterIP === undefined ? {} : { clusterIP }) } };
}

async function storedIPs(): Promise<string[]> {
  const { kv } = await store.get(SERVICE_IPS_KEY);
  if (kv === undefined) throw new Error('no range object');
  const a = ipAllocatorFromSnapshot(JSON.parse(kv.value) as RangeAllocation);
  if (!a.ok) throw new Error('unreadable range');
  return allocatedIPs(a.value).map(formatIP).sort();
}

describe('concurrent Service creates', () => {
  it('get distinct ClusterIPs, all in the stored range, in fewer range writes than creates', async () => {
    let rangeWrites = 0;
    rangeWatch = store.watch(SERVICE_IPS_KEY, { fromRevision: (await store.revision()) + 1 });
    const counting = (async () => {
      for await (const e of rangeWatch) if (e.kv.key === SERVICE_IPS_KEY) rangeWrites++;
    })();
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => registry.create<Service>('services', 'default', svc(`s-${i}`))));
    const ips = results.map((r) => {
      if (!r.ok) throw new Error(r.error.message);
      return r.value.spec?.clusterIP ?? '';
    });
    expect(new Set(ips).size).toBe(16);
    expect(await storedIPs()).toEqual([...ips].sort());
    rangeWatch.close();
    await counting;
    expect(rangeWrites).toBeGreaterThanOrEqual(1);
    expect(rangeWrites).toBeLessThan(16);
  });

  it('refuse a requested ClusterIP that an earlier create of the same turn took, and only that create', async () => {
    const [first, second, third] = await Promise.all([
      registry.create<Service>('services', 'default', svc('a', '10.96.0.10')),
      registry.create<Service>('services', 'default', svc('b', '10.96.0.10')),
      registry.create<Service>('services', 'default', svc('c')),
    ]);
    expect(first?.ok && first.value.spec?.clusterIP).toBe('10.96.0.10');
    expect(second?.ok).toBe(false);
    if (second?.ok === false) {
      expect(second.error.message).toBe(
        'Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
      );
    }
    expect(third?.ok).toBe(true);
    const c = third?.ok ? (third.value.spec?.clusterIP ?? '') : '';
    expect(await storedIPs()).toEqual(['10.96.0.10', c].sort());
    expect((await registry.get('services', 'default', 'b')).ok).toBe(false);
  });

  it('a release that takes the cached ranges while an allocation from them awaits the ServiceCIDRs: the RangeAllocation marks exactly the IPs in use', async () => {
    // The registry flips the bits of a range write in the cached view's bitmap in place, and
    // hands the store the JSON's bytes, which SQLite reads at its group commit a turn later. An
    // allocation awaits the ServiceCIDRs between taking the cached view and writing; a delete's
    // release can take the same view meanwhile. Here the ServiceCIDRs' read is held until the
    // release's txn is queued, so the allocation resumes before that txn is written: if it
    // flipped its bits in the bytes the release handed over, the release would write them.
    let hold: { readonly reached: () => void; readonly released: Promise<void> } | undefined;
    let onRangeWrite: (() => void) | undefined;
    const gated = new Proxy(store, {
      get(target, name, receiver) {
        if (name === 'range') {
          return async (prefix: string, options?: Parameters<Store['range']>[1]): Promise<RangeResult> => {
            const h = prefix === '/registry/servicecidrs/' ? hold : undefined;
            if (h !== undefined) {
              hold = undefined;
              h.reached();
              await h.released;
            }
            return target.range(prefix, options);
          };
        }
        if (name === 'txn') {
          return (...args: Parameters<Store['txn']>) => {
            const result = target.txn(...args);
            if (args[1].some((op) => op.kind === 'put' && op.key === SERVICE_IPS_KEY)) {
              const f = onRangeWrite;
              onRangeWrite = undefined;
              f?.();
            }
            return result;
          };
        }
        const value: unknown = Reflect.get(target, name, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const clock = virtualClock(Date.UTC(2026, 0, 2, 3, 4, 5));
    const opened = await openRegistry({ store: gated, clock, seed: 12, serviceClusterIPRanges: ['10.96.0.0/12'] });
    if (!opened.ok) throw new Error(opened.error.message);
    const r = opened.value;
    for (const name of ['a', 'b', 'c']) {
      const created = await r.create<Service>('services', 'default', svc(name));
      if (!created.ok) throw new Error(created.error.message);
    }
    let release = (): void => undefined;
    const reached = new Promise<void>((resolve) => {
      hold = { reached: resolve, released: new Promise<void>((open) => (release = open)) };
    });
    const creating = r.create<Service>('services', 'default', svc('n'));
    await reached;
    onRangeWrite = release;
    const deleted = await r.delete('services', 'default', 'a');
    if (!deleted.ok) throw new Error(deleted.error.message);
    const created = await creating;
    if (!created.ok) throw new Error(created.error.message);
    expect(hold).toBeUndefined();
    expect(onRangeWrite).toBeUndefined();
    const services = await r.list<Service>('services', 'default');
    if (!services.ok) throw new Error(services.error.message);
    const inUse = services.value.items.map((s) => s.spec?.clusterIP ?? '').sort();
    expect(inUse).toHaveLength(3);
    expect(await storedIPs()).toEqual(inUse);
  });
});
