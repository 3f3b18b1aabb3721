// matchByEdits against matchByKey: for arrays an event store made from the last call's (objects
// replaced in place, some taken out with the rest closing up, new keys appended), pairing by
// position and shifting by the Services that came and went must find what sorting every
// Service by key finds. The store here is a model of proxy-iptables' (sync/events.ts): one
// object per namespace/name, in the order a Map keyed by it keeps.
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { fc, test } from '@fast-check/vitest';
import { expect, it } from 'vitest';
import { matchByEdits, matchByKey, objectKey, type Matched, type StoreIndexes, type TrackedEntry, type TrackedState } from './changes.js';
import { makeService } from './model.fixtures.js';

type Keyed = Service | EndpointSlice;
const keyOf = (o: Keyed): string => objectKey(o.metadata.namespace, o.metadata.name);

/** A store's arrays and key index, changed as the event store changes them. */
class Store<T extends Keyed> {
  items: T[] = [];
  index = new Map<string, number>();
  put(object: T): void {
    const at = this.index.get(keyOf(object));
    if (at !== undefined) {
      this.items = this.items.slice();
      this.items[at] = object;
      return;
    }
    this.items = [...this.items, object];
    this.index = new Map(this.index).set(keyOf(object), this.items.length - 1);
  }
  delete(key: string): void {
    if (!this.index.has(key)) return;
    this.items = this.items.filter((o) => keyOf(o) !== key);
    this.index = new Map(this.items.map((o, i) => [keyOf(o), i]));
  }
}

// Few keys, so that a batch often touches a Service that has slices, and slices find their Service.
const NAMESPACES = ['a', 'default'];
const NAMES = ['web', 'Web', 'x1', 'x10'];
const SLICE_NAMES = ['s0', 's1', 's2', 's3'];

const serviceArb = fc.record({ ns: fc.constantFrom(...NAMESPACES), name: fc.constantFrom(...NAMES), port: fc.constantFrom(80, 443) });
/** A slice: its own name, the Service it names (or none), its family. */
const sliceArb = fc.record({
  ns: fc.constantFrom(...NAMESPACES),
  name: fc.constantFrom(...SLICE_NAMES),
  service: fc.option(fc.constantFrom(...NAMES), { nil: undefined, freq: 8 }),
  family: fc.constantFrom<'IPv4' | 'IPv6'>('IPv4', 'IPv4', 'IPv4', 'IPv6'),
  ip: fc.nat(250),
});
type Op =
  | { readonly kind: 'put-service'; readonly s: { ns: string; name: string; port: number } }
  | { readonly kind: 'delete-service'; readonly ns: string; readonly name: string }
  | { readonly kind: 'put-slice'; readonly l: { ns: string; name: string; service: string | undefined; family: 'IPv4' | 'IPv6'; ip: number } }
  | { readonly kind: 'delete-slice'; readonly ns: string; readonly name: string };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: serviceArb.map((s) => ({ kind: 'put-service' as const, s })) },
  { weight: 2, arbitrary: fc.record({ ns: fc.constantFrom(...NAMESPACES), name: fc.constantFrom(...NAMES) }).map((k) => ({ kind: 'delete-service' as const, ...k })) },
  { weight: 4, arbitrary: sliceArb.map((l) => ({ kind: 'put-slice' as const, l })) },
  { weight: 2, arbitrary: fc.record({ ns: fc.constantFrom(...NAMESPACES), name: fc.constantFrom(...SLICE_NAMES) }).map((k) => ({ kind: 'delete-slice' as const, ...k })) },
);

function buildSlice(l: { ns: string; name: string; service: string | undefined; family: 'IPv4' | 'IPv6'; ip: number }): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: l.ns, name: l.name, ...(l.service === undefined ? {} : { labels: { 'kubernetes.io/service-name': l.service } }) },
    addressType: l.family,
    endpoints: [{ addresses: [l.family === 'IPv4' ? `10.0.0.${l.ip}` : `fd00::${l.ip}`] }],
    ports: [{ name: 'p', port: 8080 }],
  };
}

function apply(services: Store<Service>, slices: Store<EndpointSlice>, op: Op): void {
  switch (op.kind) {
    case 'put-service':
      services.put(makeService(op.s.ns, op.s.name, { clusterIP: '10.0.0.1', ports: [{ name: 'p', port: op.s.port }] }));
      return;
    case 'delete-service':
      services.delete(objectKey(op.ns, op.name));
      return;
    case 'put-slice':
      slices.put(buildSlice(op.l));
      return;
    case 'delete-slice':
      slices.delete(objectKey(op.ns, op.name));
  }
}

/** The state a sync leaves after `matched`: its entries at their positions, the arrays it was given. */
function stateAfter(matched: Matched<TrackedEntry>, services: readonly Service[], slices: readonly EndpointSlice[]): TrackedState<TrackedEntry> {
  const entries: TrackedEntry[] = [];
  for (let pos = 0; pos < matched.count; pos++) {
    const c = matched.work.get(pos);
    const entry = c === undefined ? matched.base?.[pos] : { key: c.key, namespace: c.namespace, name: c.name, service: c.service, slices: c.slices };
    if (entry === undefined) throw new Error(`nothing at ${pos}`);
    entries.push(entry);
  }
  return { servicesIn: services, servicePos: matched.servicePos, slicesIn: slices, slicePos: matched.slicePos, entries };
}

/** What a match says of each position: the Service, its slices and the previous entry (by key). */
function byPosition(matched: Matched<TrackedEntry>): { key: string; service: Service; slices: readonly EndpointSlice[]; previous: string | undefined }[] {
  const out = [];
  for (let pos = 0; pos < matched.count; pos++) {
    const c = matched.work.get(pos);
    const base = matched.base?.[pos];
    if (c !== undefined) out.push({ key: c.key, service: c.service, slices: c.slices, previous: c.previous?.key });
    else if (base !== undefined) out.push({ key: base.key, service: base.service, slices: base.slices, previous: base.key });
    else throw new Error(`nothing at ${pos}`);
  }
  return out;
}

test.prop([fc.array(opArb, { maxLength: 25 }), fc.array(fc.array(opArb, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 5 }), fc.constantFrom<4 | 6>(4, 6)])(
  'INV-PROXY-EDITS: matching an event store’s arrays by their edits finds what matching by key finds, and answers whenever no key went and came back in one batch',
  (initial, batches, family) => {
    const services = new Store<Service>();
    const slices = new Store<EndpointSlice>();
    for (const op of initial) apply(services, slices, op);
    let state = stateAfter(matchByKey<TrackedEntry>(undefined, services.items, slices.items, family), services.items, slices.items);
    for (const [b, batch] of batches.entries()) {
      const before = { services: new Set(services.index.keys()), slices: new Set(slices.index.keys()) };
      const sliceIds = new Map(slices.items.map((s) => [keyOf(s), s]));
      const deleted = { services: new Set<string>(), slices: new Set<string>() };
      for (const op of batch) {
        if (op.kind === 'delete-service' && services.index.has(objectKey(op.ns, op.name))) deleted.services.add(objectKey(op.ns, op.name));
        if (op.kind === 'delete-slice' && slices.index.has(objectKey(op.ns, op.name))) deleted.slices.add(objectKey(op.ns, op.name));
        apply(services, slices, op);
      }
      const indexes: StoreIndexes = { services: services.index, slices: slices.index };
      const edits = matchByEdits(state, services.items, slices.items, indexes, family);
      const keyed = matchByKey(state, services.items, slices.items, family);
      // It declines only for a key that went and came back, or a slice that now feeds another Service or family.
      const cameBack = [...deleted.services].some((k) => services.index.has(k)) || [...deleted.slices].some((k) => slices.index.has(k));
      const moved = slices.items.some((s) => {
        const old = sliceIds.get(keyOf(s));
        return old !== undefined && before.slices.has(keyOf(s)) && !deleted.slices.has(keyOf(s)) && (old.addressType !== s.addressType || old.metadata.labels?.['kubernetes.io/service-name'] !== s.metadata.labels?.['kubernetes.io/service-name']);
      });
      if (!cameBack && !moved) expect(edits, `batch ${b}: matchByEdits declined`).toBeDefined();
      if (edits !== undefined) {
        expect(edits.count, `batch ${b}: entries`).toBe(keyed.count);
        expect([...edits.servicePos], `batch ${b}: service positions`).toEqual([...keyed.servicePos]);
        expect([...edits.slicePos], `batch ${b}: slice positions`).toEqual([...keyed.slicePos]);
        expect(edits.removed.map((e) => e.key), `batch ${b}: removed`).toEqual(keyed.removed.map((e) => e.key));
        const a = byPosition(edits);
        const k = byPosition(keyed);
        expect(a.map((x) => [x.key, x.previous]), `batch ${b}: keys and previous entries`).toEqual(k.map((x) => [x.key, x.previous]));
        for (let pos = 0; pos < a.length; pos++) {
          expect(a[pos]?.service === k[pos]?.service, `batch ${b}: the Service at ${pos}`).toBe(true);
          const sa = a[pos]?.slices ?? [];
          const sk = k[pos]?.slices ?? [];
          expect(sa.length === sk.length && sa.every((s, i) => s === sk[i]), `batch ${b}: the slices at ${pos}`).toBe(true);
        }
      }
      state = stateAfter(edits ?? keyed, services.items, slices.items);
    }
  },
);

it('keeps a Service’s slices in input order: one replaced where it stood, one that came after it, one gone', () => {
  const services = new Store<Service>();
  const slices = new Store<EndpointSlice>();
  apply(services, slices, { kind: 'put-service', s: { ns: 'a', name: 'web', port: 80 } });
  for (const name of ['s0', 's1']) apply(services, slices, { kind: 'put-slice', l: { ns: 'a', name, service: 'web', family: 'IPv4', ip: 1 } });
  const state = stateAfter(matchByKey<TrackedEntry>(undefined, services.items, slices.items, 4), services.items, slices.items);
  apply(services, slices, { kind: 'delete-slice', ns: 'a', name: 's0' });
  apply(services, slices, { kind: 'put-slice', l: { ns: 'a', name: 's1', service: 'web', family: 'IPv4', ip: 2 } });
  apply(services, slices, { kind: 'put-slice', l: { ns: 'a', name: 's2', service: 'web', family: 'IPv4', ip: 3 } });
  const edits = matchByEdits(state, services.items, slices.items, { services: services.index, slices: slices.index }, 4);
  const candidate = edits?.work.get(0);
  expect(candidate?.slices.map((s) => `${s.metadata.name} ${s.endpoints?.[0]?.addresses[0]}`)).toEqual(['s1 10.0.0.2', 's2 10.0.0.3']);
  expect(candidate?.previous).toBe(state.entries[0]);
  expect([...(edits?.slicePos ?? [])]).toEqual([0, 0]);
});
