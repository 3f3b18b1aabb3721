// INV-STORE-WATCH and INV-STORE-LEASE on the memory backend and a virtual clock, over random
// sequences of puts, deletes, multi-key txns with compares, leases (grant, keepAlive, revoke,
// time passing), compactions and watches opened at random revisions. The store is checked
// against a naive model written here: a full copy of the key space per revision, an event list
// and a list of leases with their expiry times.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { virtualClock } from '../virtual-clock.js';
import { ErrCompacted } from '../errors.js';
import { compareKeys } from '../key-order.js';
import type { KeyValue, Store, TxnOp, Watch, WatchEvent } from '../types.js';
import { openMemoryStore } from './memory-store.js';

const KEYS = ['/a', '/a/1', '/a/2', '/a/10', '/b/1', '/b/2'];
const PREFIXES = ['/', '/a/', '/b/', '/a'];

type Command =
  | { readonly op: 'put'; readonly key: string; readonly value: string; readonly lease: number | undefined }
  | { readonly op: 'delete'; readonly key: string }
  | { readonly op: 'txn'; readonly guard: string; readonly guardHolds: boolean; readonly writes: readonly { readonly key: string; readonly del: boolean }[] }
  | { readonly op: 'grant'; readonly ttl: number }
  | { readonly op: 'keepAlive' | 'revoke'; readonly lease: number }
  | { readonly op: 'advance'; readonly ms: number }
  | { readonly op: 'compact'; readonly at: number }
  | { readonly op: 'watch'; readonly prefix: string; readonly at: number };

const keyArb = fc.constantFrom(...KEYS);
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('put' as const), key: keyArb, value: fc.string({ maxLength: 3 }), lease: fc.option(fc.nat(5), { nil: undefined }) }, { noNullPrototype: true }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), key: keyArb }, { noNullPrototype: true }) },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        op: fc.constant('txn' as const),
        guard: keyArb,
        guardHolds: fc.boolean(),
        writes: fc.uniqueArray(fc.record({ key: keyArb, del: fc.boolean() }, { noNullPrototype: true }), { selector: (w) => w.key, minLength: 1, maxLength: 4 }),
      },
      { noNullPrototype: true },
    ),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('grant' as const), ttl: fc.integer({ min: 1, max: 3 }) }, { noNullPrototype: true }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constantFrom('keepAlive' as const, 'revoke' as const), lease: fc.nat(5) }, { noNullPrototype: true }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 2500 }) }, { noNullPrototype: true }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('compact' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }, { noNullPrototype: true }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('watch' as const), prefix: fc.constantFrom(...PREFIXES), at: fc.double({ min: 0, max: 1, noNaN: true }) }, { noNullPrototype: true }) },
);

// Long enough sequences that leases expire between writes and watches replay deletes.
const commandsArb = fc.array(commandArb, { minLength: 5, maxLength: 60, size: 'large' });

interface ModelLease {
  readonly id: string;
  readonly ttl: number;
  expiresAt: number;
  /** Order of the last grant/keepAlive: timers due at the same time fire in that order. */
  armed: number;
  alive: boolean;
}

/** The naive model: a full copy of the key space at every revision. */
class Model {
  revision = 0;
  compacted = 0;
  now = 0;
  armed = 0;
  readonly states: Map<string, KeyValue>[] = [new Map()];
  readonly events: { readonly revision: number; readonly event: WatchEvent }[] = [];
  readonly leases: ModelLease[] = [];
  /** For INV-STORE-LEASE: each expiry or revoke, with the keys it held. */
  readonly expiries: { readonly lease: string; readonly revision: number; readonly keys: readonly string[] }[] = [];

  state(revision = this.revision): Map<string, KeyValue> {
    return this.states[revision] as Map<string, KeyValue>;
  }

  /** Applies one txn's writes as one revision (none if nothing changes). */
  write(ops: readonly { readonly key: string; readonly value?: string; readonly lease?: string }[]): void {
    const next = new Map(this.state());
    const revision = this.revision + 1;
    const events: WatchEvent[] = [];
    for (const op of ops) {
      const prev = next.get(op.key);
      if (op.value === undefined) {
        if (prev === undefined) continue;
        next.delete(op.key);
        events.push({ type: 'delete', kv: { key: op.key, value: '', createRevision: 0, modRevision: revision, version: 0 }, prevKv: prev });
      } else {
        const kv: KeyValue = {
          key: op.key,
          value: op.value,
          createRevision: prev?.createRevision ?? revision,
          modRevision: revision,
          version: (prev?.version ?? 0) + 1,
          ...(op.lease === undefined ? {} : { lease: op.lease }),
        };
        next.set(op.key, kv);
        events.push(prev === undefined ? { type: 'put', kv } : { type: 'put', kv, prevKv: prev });
      }
    }
    if (events.length === 0) return;
    this.revision = revision;
    this.states.push(next);
    for (const event of events) this.events.push({ revision, event });
  }

  expire(lease: ModelLease): void {
    lease.alive = false;
    const keys = [...this.state().values()].filter((kv) => kv.lease === lease.id).map((kv) => kv.key).sort(compareKeys);
    this.write(keys.map((key) => ({ key })));
    this.expiries.push({ lease: lease.id, revision: this.revision, keys });
  }

  advance(ms: number): void {
    const until = this.now + ms;
    for (;;) {
      const due = this.leases.filter((l) => l.alive && l.expiresAt <= until).sort((a, b) => a.expiresAt - b.expiresAt || a.armed - b.armed)[0];
      if (due === undefined) break;
      this.now = Math.max(this.now, due.expiresAt);
      this.expire(due);
    }
    this.now = until;
  }
}

interface OpenWatch {
  readonly prefix: string;
  /** Also compare the replayed state with the store's own read at every revision (costly). */
  readonly readBack: boolean;
  /** The watch started after this revision, whose listed state is `listed`. */
  readonly after: number;
  readonly listed: readonly KeyValue[];
  readonly watch: Watch;
}

function pick<T>(list: readonly T[], index: number | undefined): T | undefined {
  return index === undefined || list.length === 0 ? undefined : list[index % list.length];
}

function between(lo: number, hi: number, at: number): number {
  return Math.min(hi, lo + Math.floor(at * (hi - lo + 1)));
}

/**
 * Every event queued on a memory watch. Delivery is synchronous, so the queue is complete, and
 * next() on a queued event returns a settled promise: it wins a race against another settled
 * promise listed after it, while a pending next() loses. Closing the watch then settles it.
 */
async function drain(watch: Watch): Promise<WatchEvent[]> {
  const iterator = watch[Symbol.asyncIterator]();
  const events: WatchEvent[] = [];
  for (;;) {
    const next = iterator.next();
    const result = await Promise.race([next, Promise.resolve('idle' as const)]);
    if (result === 'idle') {
      watch.close();
      await next;
      return events;
    }
    if (result.done === true) return events;
    events.push(result.value);
  }
}

const underPrefix = (prefix: string) => (kv: KeyValue) => kv.key.startsWith(prefix);
const sortedState = (state: Map<string, KeyValue>, prefix: string) => [...state.values()].filter(underPrefix(prefix)).sort((a, b) => compareKeys(a.key, b.key));

/** Runs the commands against the store and the model side by side; returns both, and the watches. */
async function run(commands: readonly Command[]): Promise<{ store: Store; model: Model; watches: OpenWatch[]; all: Watch }> {
  const clock = virtualClock(0);
  const store = openMemoryStore({ clock });
  const model = new Model();
  const all = store.watch('', { fromRevision: 1 });
  const watches: OpenWatch[] = [];
  for (const command of commands) {
    switch (command.op) {
      case 'put': {
        const lease = pick(model.leases, command.lease);
        const op: TxnOp = lease === undefined ? { kind: 'put', key: command.key, value: command.value } : { kind: 'put', key: command.key, value: command.value, lease: lease.id };
        if (lease !== undefined && !lease.alive) {
          await expect(store.txn([], [op])).rejects.toMatchObject({ _tag: 'ErrLeaseNotFound' });
        } else {
          await store.txn([], [op]);
          model.write([{ key: command.key, value: command.value, ...(lease === undefined ? {} : { lease: lease.id }) }]);
        }
        break;
      }
      case 'delete':
        await store.txn([], [{ kind: 'delete', key: command.key }]);
        model.write([{ key: command.key }]);
        break;
      case 'txn': {
        const version = model.state().get(command.guard)?.version ?? 0;
        const r = await store.txn(
          [{ key: command.guard, target: 'version', op: '=', value: command.guardHolds ? version : version + 1 }],
          command.writes.map((w): TxnOp => (w.del ? { kind: 'delete', key: w.key } : { kind: 'put', key: w.key, value: `t${model.revision}` })),
          [{ kind: 'get', key: command.guard }],
        );
        expect(r.succeeded).toBe(command.guardHolds);
        if (command.guardHolds) model.write(command.writes.map((w) => (w.del ? { key: w.key } : { key: w.key, value: `t${model.revision}` })));
        break;
      }
      case 'grant': {
        const lease = await store.grant(command.ttl);
        model.leases.push({ id: lease.id, ttl: command.ttl, expiresAt: model.now + command.ttl * 1000, armed: model.armed++, alive: true });
        break;
      }
      case 'keepAlive':
      case 'revoke': {
        const lease = pick(model.leases, command.lease);
        if (lease === undefined) break;
        if (!lease.alive) {
          await expect(command.op === 'revoke' ? store.revoke(lease.id) : store.keepAlive(lease.id)).rejects.toMatchObject({ _tag: 'ErrLeaseNotFound' });
        } else if (command.op === 'revoke') {
          await store.revoke(lease.id);
          model.expire(lease);
        } else {
          await store.keepAlive(lease.id);
          lease.expiresAt = model.now + lease.ttl * 1000;
          lease.armed = model.armed++;
        }
        break;
      }
      case 'advance':
        clock.advance(command.ms);
        model.advance(command.ms);
        break;
      case 'compact': {
        if (model.revision <= model.compacted) {
          await expect(store.compact(model.compacted)).rejects.toBeInstanceOf(ErrCompacted);
          break;
        }
        const at = between(model.compacted + 1, model.revision, command.at);
        await store.compact(at);
        model.compacted = at;
        break;
      }
      case 'watch': {
        // A list at revision r, then a watch from r + 1 (the events after r).
        const after = between(model.compacted, model.revision, command.at);
        // Revision 0 is the empty store before any write (a read "at 0" means "now" in etcd).
        const listed = after === 0 ? [] : (await store.range(command.prefix, { revision: after })).kvs;
        watches.push({ prefix: command.prefix, readBack: true, after, listed, watch: store.watch(command.prefix, { fromRevision: after + 1 }) });
        if (model.compacted > 0) {
          const tooOld = store.watch(command.prefix, { fromRevision: model.compacted });
          await expect(tooOld[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(ErrCompacted);
        }
        break;
      }
    }
    expect(await store.revision()).toBe(model.revision);
  }
  return { store, model, watches, all };
}

test.prop([commandsArb])(
  'INV-STORE-WATCH: a watch from revision r delivers exactly the events after r, in order, with prevKv; a list at r plus the watch equals the state at every later revision',
  async (commands) => {
    const { store, model, watches, all } = await run(commands);
    // Besides the watches opened along the way: a list and a watch at every revision still kept.
    for (let after = model.compacted; after <= model.revision; after++) {
      for (const prefix of PREFIXES) {
        const listed = after === 0 ? [] : (await store.range(prefix, { revision: after })).kvs;
        watches.push({ prefix, readBack: false, after, listed, watch: store.watch(prefix, { fromRevision: after + 1 }) });
      }
    }
    // The watch opened at the start (before anything was compacted) saw the whole history.
    expect(await drain(all)).toEqual(model.events.map((e) => e.event));
    for (const w of watches) {
      const events = await drain(w.watch);
      const expected = model.events.filter((e) => e.revision > w.after && e.event.kv.key.startsWith(w.prefix));
      expect(events).toEqual(expected.map((e) => e.event));
      expect(w.listed).toEqual(sortedState(model.state(w.after), w.prefix));
      // Replaying the events on the listed state reaches the model's state at every revision.
      const state = new Map(w.listed.map((kv) => [kv.key, kv]));
      let i = 0;
      for (let revision = w.after + 1; revision <= model.revision; revision++) {
        for (; i < events.length && (events[i] as WatchEvent).kv.modRevision === revision; i++) {
          const event = events[i] as WatchEvent;
          if (event.type === 'put') state.set(event.kv.key, event.kv);
          else state.delete(event.kv.key);
        }
        const replayed = sortedState(state, w.prefix);
        expect(replayed).toEqual(sortedState(model.state(revision), w.prefix));
        if (w.readBack && revision >= model.compacted) expect(replayed).toEqual((await store.range(w.prefix, { revision })).kvs);
      }
      expect(i).toBe(events.length);
    }
    expect((await store.range('')).kvs).toEqual(sortedState(model.state(), ''));
    await store.close();
  },
);

test.prop([commandsArb])(
  'INV-STORE-LEASE: the keys of an expired or revoked lease are gone, and each left exactly one watch delete, all in one revision',
  async (commands) => {
    const { store, model, watches, all } = await run(commands);
    for (const w of watches) w.watch.close();
    const events = await drain(all);
    for (const expiry of model.expiries) {
      if (expiry.keys.length === 0) continue;
      if (expiry.revision - 1 >= model.compacted) {
        const before = (await store.range('', { revision: expiry.revision - 1 })).kvs;
        expect(before.filter((kv) => kv.lease === expiry.lease).map((kv) => kv.key)).toEqual(expiry.keys);
      }
      for (const key of expiry.keys) {
        // Gone at the expiry's revision (and not brought back by anyone with this lease since).
        expect(model.state(expiry.revision).has(key)).toBe(false);
        if (expiry.revision >= model.compacted) expect((await store.get(key, { revision: expiry.revision })).kv).toBeUndefined();
        const current = (await store.get(key)).kv;
        expect(current?.lease).not.toBe(expiry.lease);
      }
      // The expiry's revision holds exactly one delete per key, each with the lease in prevKv.
      const atExpiry = events.filter((e) => e.kv.modRevision === expiry.revision);
      expect(atExpiry.map((e) => [e.type, e.kv.key, e.prevKv?.lease])).toEqual(expiry.keys.map((key) => ['delete', key, expiry.lease]));
    }
    // No key is left on a lease that no longer lives.
    const dead = new Set(model.leases.filter((l) => !l.alive).map((l) => l.id));
    for (const kv of (await store.range('')).kvs) expect(kv.lease === undefined || !dead.has(kv.lease)).toBe(true);
    await store.close();
  },
);
