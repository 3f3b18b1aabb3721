// The store conformance suite: etcd v3's semantics, written against the Store interface only,
// registered once per backend by a small *.test.ts file. Every backend (memory, SQLite, etcd)
// must pass it unchanged.
//
// The suite assumes nothing about the store's starting revision or its other keys: each test
// works under its own key prefix and measures revisions from the revision it starts at, so a
// backend may share one server between tests. Time passes through the harness, so lease tests
// run on a virtual clock where the backend has one, and on real time with small TTLs otherwise.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeyValue, LeaseId, Store, TxnResult, Watch, WatchEvent } from './types.js';

export interface StoreHarness {
  readonly store: Store;
  /** Lets `ms` of the store's time pass: advance a virtual clock, or wait in real time. */
  elapse(ms: number): Promise<void>;
  /** Closes the store and removes what the harness made. */
  dispose(): Promise<void>;
  /**
   * Durable backends: closes the store and opens a new one on the same storage, which the
   * harness serves from then on. Absent for backends that keep nothing (the memory store).
   */
  reopen?(): Promise<Store>;
}

export interface ConformanceOptions {
  /** How long to wait to be sure that no further watch event comes. Default 50 ms. */
  readonly quietMs?: number;
  /** How long to wait for an expected watch event. Default 5000 ms. */
  readonly eventTimeoutMs?: number;
  /** The backend keeps its state across a close: the harness has reopen(), and the durability tests run. */
  readonly durable?: boolean;
}

/** Reads a watch with timeouts, keeping one pending next() across calls. */
export class WatchReader {
  private readonly iterator: AsyncIterator<WatchEvent>;
  private pending: Promise<IteratorResult<WatchEvent>> | undefined;

  constructor(
    readonly watch: Watch,
    private readonly timeoutMs: number,
  ) {
    this.iterator = watch[Symbol.asyncIterator]();
  }

  private nextWithin(ms: number): Promise<IteratorResult<WatchEvent> | 'timeout'> {
    this.pending ??= this.iterator.next();
    const pending = this.pending;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), ms);
    });
    return Promise.race([pending, timeout]).then(
      (result) => {
        clearTimeout(timer);
        if (result !== 'timeout') this.pending = undefined;
        return result;
      },
      (error: unknown) => {
        clearTimeout(timer);
        this.pending = undefined;
        throw error;
      },
    );
  }

  /** The next `n` events; fails if they do not come in time or the watch ends first. */
  async take(n: number): Promise<WatchEvent[]> {
    const events: WatchEvent[] = [];
    while (events.length < n) {
      const result = await this.nextWithin(this.timeoutMs);
      if (result === 'timeout') throw new Error(`watch: got ${events.length} of ${n} events within ${this.timeoutMs} ms`);
      if (result.done === true) throw new Error(`watch ended after ${events.length} of ${n} events`);
      events.push(result.value);
    }
    return events;
  }

  /** Resolves to 'quiet' if nothing comes within `ms`, 'ended' if the watch ends, else the event. */
  async peek(ms: number): Promise<WatchEvent | 'quiet' | 'ended'> {
    const result = await this.nextWithin(ms);
    if (result === 'timeout') return 'quiet';
    if (result.done === true) return 'ended';
    return result.value;
  }

  /** Rejects with what the watch's iterator throws (within the timeout). */
  async error(): Promise<unknown> {
    try {
      const result = await this.nextWithin(this.timeoutMs);
      return new Error(`watch: expected an error, got ${result === 'timeout' ? 'nothing' : JSON.stringify(result)}`);
    } catch (error) {
      return error;
    }
  }
}

/** The parts of an event a test compares: type, key, value, revisions, version, lease and prevKv's. */
export function eventSummary(event: WatchEvent): string {
  const kv = (x: KeyValue) => `${x.key}=${x.value}@c${x.createRevision}/m${x.modRevision}/v${x.version}${x.lease === undefined ? '' : `/l${x.lease}`}`;
  return `${event.type} ${kv(event.kv)}${event.prevKv === undefined ? '' : ` prev ${kv(event.prevKv)}`}`;
}

export function describeStoreConformance(backend: string, open: () => Promise<StoreHarness>, options: ConformanceOptions = {}): void {
  const quietMs = options.quietMs ?? 50;
  const eventTimeoutMs = options.eventTimeoutMs ?? 5000;
  let counter = 0;

  describe(`Store conformance: ${backend}`, () => {
    let h: StoreHarness;
    let store: Store;
    let p: string;
    let base: number;
    const watches: Watch[] = [];

    beforeEach(async () => {
      h = await open();
      store = h.store;
      p = `/conformance/${process.pid}-${counter++}/`;
      base = await store.revision();
    });

    afterEach(async () => {
      for (const w of watches.splice(0)) w.close();
      await h.dispose();
    });

    const put = (key: string, value: string, lease?: LeaseId): Promise<TxnResult> =>
      store.txn([], [lease === undefined ? { kind: 'put', key, value } : { kind: 'put', key, value, lease }]);
    const del = (key: string): Promise<TxnResult> => store.txn([], [{ kind: 'delete', key }]);
    const value = async (key: string): Promise<string | undefined> => (await store.get(key)).kv?.value;
    const reader = (prefix: string, fromRevision?: number): WatchReader => {
      const w = store.watch(prefix, fromRevision === undefined ? {} : { fromRevision });
      watches.push(w);
      return new WatchReader(w, eventTimeoutMs);
    };
    const keysOf = (kvs: readonly KeyValue[]) => kvs.map((kv) => kv.key);

    describe('keys and revisions', () => {
      it('a put creates the key at the next revision with version 1', async () => {
        const r = await put(`${p}a`, 'one');
        expect(r.succeeded).toBe(true);
        expect(r.revision).toBe(base + 1);
        expect(r.results).toEqual([{ kind: 'put' }]);
        const got = await store.get(`${p}a`);
        expect(got.kv).toMatchObject({ key: `${p}a`, value: 'one', createRevision: base + 1, modRevision: base + 1, version: 1 });
        expect(got.kv?.lease).toBeUndefined();
        expect(got.revision).toBe(base + 1);
        expect(await store.revision()).toBe(base + 1);
      });

      it('each put to a key bumps the revision and version, keeps createRevision and returns the previous value', async () => {
        await put(`${p}a`, 'one');
        await put(`${p}other`, 'x');
        const r = await put(`${p}a`, 'two');
        expect(r.revision).toBe(base + 3);
        expect(r.results[0]).toMatchObject({ kind: 'put', prevKv: { value: 'one', modRevision: base + 1, version: 1 } });
        expect((await store.get(`${p}a`)).kv).toMatchObject({ value: 'two', createRevision: base + 1, modRevision: base + 3, version: 2 });
        await put(`${p}a`, 'two');
        expect((await store.get(`${p}a`)).kv).toMatchObject({ value: 'two', createRevision: base + 1, modRevision: base + 4, version: 3 });
      });

      it('a get of a missing key has no kv and reports the current revision', async () => {
        await put(`${p}a`, 'one');
        const got = await store.get(`${p}missing`);
        expect(got.kv).toBeUndefined();
        expect(got.revision).toBe(base + 1);
      });

      it('a delete bumps the revision and returns the old value; a later put starts again at version 1 with a new createRevision', async () => {
        await put(`${p}a`, 'one');
        await put(`${p}a`, 'two');
        const d = await del(`${p}a`);
        expect(d.revision).toBe(base + 3);
        expect(d.results).toEqual([{ kind: 'delete', deleted: 1, prevKv: expect.objectContaining({ key: `${p}a`, value: 'two', version: 2 }) }]);
        expect(await value(`${p}a`)).toBeUndefined();
        await put(`${p}a`, 'three');
        expect((await store.get(`${p}a`)).kv).toMatchObject({ value: 'three', createRevision: base + 4, modRevision: base + 4, version: 1 });
      });

      it('deleting a missing key writes nothing: the revision does not move', async () => {
        await put(`${p}a`, 'one');
        const d = await del(`${p}missing`);
        expect(d.succeeded).toBe(true);
        expect(d.results).toEqual([{ kind: 'delete', deleted: 0 }]);
        expect(d.revision).toBe(base + 1);
        expect(await store.revision()).toBe(base + 1);
      });

      it('an empty value is a value: the key exists', async () => {
        await put(`${p}empty`, '');
        expect((await store.get(`${p}empty`)).kv).toMatchObject({ value: '', version: 1 });
      });
    });

    describe('txn', () => {
      it('all the writes of one txn share one revision, and its ops run in order (a get sees an earlier put)', async () => {
        const r = await store.txn(
          [],
          [
            { kind: 'get', key: `${p}a` },
            { kind: 'put', key: `${p}a`, value: '1' },
            { kind: 'put', key: `${p}b`, value: '2' },
            { kind: 'get', key: `${p}a` },
            { kind: 'delete', key: `${p}missing` },
          ],
        );
        expect(r.revision).toBe(base + 1);
        expect(r.results.map((x) => x.kind)).toEqual(['get', 'put', 'put', 'get', 'delete']);
        expect(r.results[0]).toEqual({ kind: 'get' });
        expect(r.results[3]).toMatchObject({ kind: 'get', kv: { value: '1', modRevision: base + 1 } });
        expect(r.results[4]).toEqual({ kind: 'delete', deleted: 0 });
        const both = await store.range(p);
        expect(both.kvs.map((kv) => [kv.key, kv.modRevision])).toEqual([
          [`${p}a`, base + 1],
          [`${p}b`, base + 1],
        ]);
      });

      it('a txn whose branch only reads does not move the revision', async () => {
        await put(`${p}a`, '1');
        const r = await store.txn([], [{ kind: 'get', key: `${p}a` }]);
        expect(r.revision).toBe(base + 1);
        expect(r.results).toEqual([{ kind: 'get', kv: expect.objectContaining({ value: '1' }) }]);
        expect(await store.revision()).toBe(base + 1);
      });

      it('compares on an existing key: value, modRevision, createRevision and version with each operator', async () => {
        await put(`${p}a`, 'm');
        await put(`${p}a`, 'm');
        // a: value m, createRevision base+1, modRevision base+2, version 2
        const holds = async (compare: Parameters<Store['txn']>[0][number]) => (await store.txn([compare], [])).succeeded;
        const k = `${p}a`;
        expect(await holds({ key: k, target: 'value', op: '=', value: 'm' })).toBe(true);
        expect(await holds({ key: k, target: 'value', op: '!=', value: 'm' })).toBe(false);
        expect(await holds({ key: k, target: 'value', op: '<', value: 'n' })).toBe(true);
        expect(await holds({ key: k, target: 'value', op: '>', value: 'l' })).toBe(true);
        expect(await holds({ key: k, target: 'value', op: '>', value: 'm' })).toBe(false);
        expect(await holds({ key: k, target: 'modRevision', op: '=', value: base + 2 })).toBe(true);
        expect(await holds({ key: k, target: 'modRevision', op: '<', value: base + 2 })).toBe(false);
        expect(await holds({ key: k, target: 'modRevision', op: '>', value: base + 1 })).toBe(true);
        expect(await holds({ key: k, target: 'createRevision', op: '=', value: base + 1 })).toBe(true);
        expect(await holds({ key: k, target: 'createRevision', op: '!=', value: base + 1 })).toBe(false);
        expect(await holds({ key: k, target: 'version', op: '=', value: 2 })).toBe(true);
        expect(await holds({ key: k, target: 'version', op: '<', value: 3 })).toBe(true);
        expect(await holds({ key: k, target: 'version', op: '>', value: 2 })).toBe(false);
      });

      it('compares on a missing key: revisions and version are 0, and any compare on its value fails', async () => {
        const holds = async (compare: Parameters<Store['txn']>[0][number]) => (await store.txn([compare], [])).succeeded;
        const k = `${p}missing`;
        expect(await holds({ key: k, target: 'createRevision', op: '=', value: 0 })).toBe(true);
        expect(await holds({ key: k, target: 'modRevision', op: '=', value: 0 })).toBe(true);
        expect(await holds({ key: k, target: 'version', op: '=', value: 0 })).toBe(true);
        expect(await holds({ key: k, target: 'version', op: '>', value: 0 })).toBe(false);
        expect(await holds({ key: k, target: 'value', op: '=', value: '' })).toBe(false);
        expect(await holds({ key: k, target: 'value', op: '!=', value: 'x' })).toBe(false);
        expect(await holds({ key: k, target: 'value', op: '>', value: '' })).toBe(false);
      });

      it('create-if-absent (createRevision = 0) succeeds once; the second runs the failure branch and sees the winner', async () => {
        const create = (v: string) =>
          store.txn([{ key: `${p}lock`, target: 'createRevision', op: '=', value: 0 }], [{ kind: 'put', key: `${p}lock`, value: v }], [{ kind: 'get', key: `${p}lock` }]);
        const first = await create('first');
        const second = await create('second');
        expect(first.succeeded).toBe(true);
        expect(second.succeeded).toBe(false);
        expect(second.revision).toBe(base + 1);
        expect(second.results).toEqual([{ kind: 'get', kv: expect.objectContaining({ value: 'first', version: 1 }) }]);
      });

      it('compare-and-swap on modRevision: a stale writer fails and changes nothing', async () => {
        const created = await put(`${p}obj`, 'v1');
        const cas = (rev: number, v: string) => store.txn([{ key: `${p}obj`, target: 'modRevision', op: '=', value: rev }], [{ kind: 'put', key: `${p}obj`, value: v }]);
        expect((await cas(created.revision, 'v2')).succeeded).toBe(true);
        const stale = await cas(created.revision, 'v3');
        expect(stale.succeeded).toBe(false);
        expect(stale.results).toEqual([]);
        expect(await value(`${p}obj`)).toBe('v2');
        expect(await store.revision()).toBe(base + 2);
      });

      it('all compares must hold', async () => {
        await put(`${p}a`, '1');
        const r = await store.txn(
          [
            { key: `${p}a`, target: 'value', op: '=', value: '1' },
            { key: `${p}b`, target: 'version', op: '>', value: 0 },
          ],
          [{ kind: 'put', key: `${p}c`, value: 'yes' }],
          [{ kind: 'put', key: `${p}c`, value: 'no' }],
        );
        expect(r.succeeded).toBe(false);
        expect(await value(`${p}c`)).toBe('no');
      });

      it('a branch that writes one key twice is refused whole, with etcd\'s duplicate-key error', async () => {
        await expect(
          store.txn(
            [],
            [
              { kind: 'put', key: `${p}a`, value: '1' },
              { kind: 'delete', key: `${p}a` },
            ],
          ),
        ).rejects.toMatchObject({ _tag: 'ErrDuplicateKey', message: 'etcdserver: duplicate key given in txn request' });
        expect(await value(`${p}a`)).toBeUndefined();
        expect(await store.revision()).toBe(base);
      });

      it('a put on a lease that does not exist is refused and writes nothing', async () => {
        await expect(put(`${p}a`, '1', '987654321')).rejects.toMatchObject({ _tag: 'ErrLeaseNotFound', message: 'etcdserver: requested lease not found' });
        expect(await value(`${p}a`)).toBeUndefined();
        expect(await store.revision()).toBe(base);
      });
    });

    describe('values given as bytes, and large values', () => {
      const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
      // 256 KiB of JSON-like text: long runs of one letter (a range object's base64 of zero
      // bytes), some varied text and characters outside ASCII, so a backend that stores it in
      // another form (compressed, in pieces) has to bring every part back.
      const large = (seed: number): string => {
        const parts: string[] = [];
        for (let i = 0, length = 0; length < 256 * 1024; i++) {
          const run = 'A'.repeat(4000 + ((i * 7919 + seed) % 300));
          const mark = `/${seed}:${i}:é☃𝄞/`;
          parts.push(run, mark);
          length += run.length + mark.length;
        }
        return parts.join('');
      };

      it('a writer may reuse its bytes once the txn settled: the stored value, its event and a later prevKv keep the text put', async () => {
        const w = reader(p);
        const buffer = utf8('{"v":"first"}');
        await store.txn([], [{ kind: 'put', key: `${p}a`, value: buffer }]);
        // The writer's next value, written into the same buffer before anything read the first.
        buffer.set(utf8('{"v":"other"}'));
        expect(await value(`${p}a`)).toBe('{"v":"first"}');
        await store.txn([], [{ kind: 'put', key: `${p}a`, value: buffer }]);
        buffer.fill(0x41);
        expect((await w.take(2)).map(eventSummary)).toEqual([
          `put ${p}a={"v":"first"}@c${base + 1}/m${base + 1}/v1`,
          `put ${p}a={"v":"other"}@c${base + 1}/m${base + 2}/v2 prev ${p}a={"v":"first"}@c${base + 1}/m${base + 1}/v1`,
        ]);
        expect(await value(`${p}a`)).toBe('{"v":"other"}');
      });

      it('a put of UTF-8 bytes reads back as its text, characters outside ASCII included', async () => {
        const w = reader(p);
        const r = await store.txn([], [{ kind: 'put', key: `${p}a`, value: utf8('{"name":"é☃𝄞"}') }]);
        expect(r.succeeded).toBe(true);
        expect(await value(`${p}a`)).toBe('{"name":"é☃𝄞"}');
        await store.txn([], [{ kind: 'put', key: `${p}a`, value: utf8('two') }]);
        expect((await w.take(2)).map(eventSummary)).toEqual([
          `put ${p}a={"name":"é☃𝄞"}@c${base + 1}/m${base + 1}/v1`,
          `put ${p}a=two@c${base + 1}/m${base + 2}/v2 prev ${p}a={"name":"é☃𝄞"}@c${base + 1}/m${base + 1}/v1`,
        ]);
      });

      it('a large value, as text or as bytes, comes back whole through get, range, a txn get, a value compare, prevKv and watch events', async () => {
        const one = large(1);
        const two = large(2);
        const w = reader(p);
        await put(`${p}text`, one);
        const bytes = utf8(two);
        const r = await store.txn([{ key: `${p}text`, target: 'value', op: '=', value: one }], [{ kind: 'put', key: `${p}bytes`, value: bytes }, { kind: 'get', key: `${p}text` }]);
        expect(r.succeeded).toBe(true);
        expect(r.results[1]).toMatchObject({ kind: 'get', kv: { value: one } });
        // The caller may reuse its buffer once the txn settled: what was stored stays.
        bytes.fill(0x41);
        expect(await value(`${p}bytes`)).toBe(two);
        expect((await store.range(p)).kvs.map((kv) => kv.value)).toEqual([two, one]);
        const swapped = await store.txn([], [{ kind: 'put', key: `${p}text`, value: two }]);
        expect(swapped.results[0]).toMatchObject({ kind: 'put', prevKv: { value: one, version: 1 } });
        const live = await w.take(3);
        expect(live.map((e) => [e.kv.key, e.kv.value, e.prevKv?.value])).toEqual([
          [`${p}text`, one, undefined],
          [`${p}bytes`, two, undefined],
          [`${p}text`, two, one],
        ]);
        const replayed = await reader(p, base + 1).take(3);
        expect(replayed.map((e) => [e.kv.key, e.kv.value, e.prevKv?.value])).toEqual(live.map((e) => [e.kv.key, e.kv.value, e.prevKv?.value]));
        // A spread copies the text, as for any other KeyValue.
        expect({ ...(await store.get(`${p}text`)).kv }).toMatchObject({ key: `${p}text`, value: two, version: 2 });
      });
    });

    describe('range', () => {
      const seed = async () => {
        // Inserted out of order; byte order puts '/' (0x2f) before letters and 'a' before 'ab'.
        for (const k of ['b', 'a/2', 'ab', 'a', 'a/1', 'c', 'a/10']) await put(`${p}${k}`, k);
        await put(`${p.slice(0, -1)}x`, 'outside the prefix');
      };

      it('returns exactly the keys under the prefix, in byte order', async () => {
        await seed();
        const r = await store.range(p);
        expect(keysOf(r.kvs)).toEqual(['a', 'a/1', 'a/10', 'a/2', 'ab', 'b', 'c'].map((k) => p + k));
        expect(r.more).toBe(false);
        expect(r.revision).toBe(base + 8);
        expect(keysOf((await store.range(`${p}a/`)).kvs)).toEqual(['a/1', 'a/10', 'a/2'].map((k) => p + k));
        expect(keysOf((await store.range(`${p}a`)).kvs)).toEqual(['a', 'a/1', 'a/10', 'a/2', 'ab'].map((k) => p + k));
        expect((await store.range(`${p}zzz`)).kvs).toEqual([]);
      });

      it('orders keys by their UTF-8 bytes where JavaScript orders them otherwise: U+E000 before U+1D11E', async () => {
        // In UTF-16, 𝄞 (U+1D11E) is the surrogate pair D834 DD1E and sorts before U+E000; in
        // UTF-8 (F0 9D 84 9E against EE 80 80) it sorts after, and etcd orders by bytes.
        await put(`${p}b`, '1');
        await put(`${p}\u{1d11e}`, '2');
        await put(`${p}\ue000`, '3');
        await put(`${p}a`, '4');
        const order = ['a', 'b', '\ue000', '\u{1d11e}'].map((k) => p + k);
        expect(keysOf((await store.range(p)).kvs)).toEqual(order);
        // From a continue key between the two: the walk starts at the right place.
        expect(keysOf((await store.range(p, { continueKey: `${p}\ue000` })).kvs)).toEqual(order.slice(2));
        expect(keysOf((await store.range(p, { limit: 3 })).kvs)).toEqual(order.slice(0, 3));
      });

      it('leaves deleted keys out', async () => {
        await seed();
        await del(`${p}a/1`);
        expect(keysOf((await store.range(`${p}a/`)).kvs)).toEqual([`${p}a/10`, `${p}a/2`]);
      });

      it('pages with limit and continueKey: the pages together are the whole list, and only the last says no more', async () => {
        await seed();
        const all = keysOf((await store.range(p)).kvs);
        const pages: string[][] = [];
        let continueKey: string | undefined;
        for (let i = 0; i < 10; i++) {
          const page = await store.range(p, continueKey === undefined ? { limit: 3 } : { limit: 3, continueKey });
          pages.push(keysOf(page.kvs));
          if (!page.more) break;
          // A list's continue token resumes just after the last key: append a zero byte.
          continueKey = `${page.kvs.at(-1)?.key ?? ''}\u0000`;
        }
        expect(pages.map((x) => x.length)).toEqual([3, 3, 1]);
        expect(pages.flat()).toEqual(all);
      });

      it('a limit equal to the number of keys says no more; 0 means no limit', async () => {
        await seed();
        expect((await store.range(p, { limit: 7 })).more).toBe(false);
        expect((await store.range(p, { limit: 6 })).more).toBe(true);
        expect((await store.range(p, { limit: 0 })).kvs).toHaveLength(7);
      });

      it('reads the state as it was at an earlier revision', async () => {
        await put(`${p}a`, 'a1'); // base+1
        await put(`${p}b`, 'b1'); // base+2
        await put(`${p}a`, 'a2'); // base+3
        await del(`${p}b`); // base+4
        await put(`${p}c`, 'c1'); // base+5
        const at = async (revision: number) => (await store.range(p, { revision })).kvs.map((kv) => `${kv.key.slice(p.length)}=${kv.value}/v${kv.version}`);
        expect(await at(base + 1)).toEqual(['a=a1/v1']);
        expect(await at(base + 2)).toEqual(['a=a1/v1', 'b=b1/v1']);
        expect(await at(base + 3)).toEqual(['a=a2/v2', 'b=b1/v1']);
        expect(await at(base + 4)).toEqual(['a=a2/v2']);
        expect(await at(base + 5)).toEqual(['a=a2/v2', 'c=c1/v1']);
        expect((await store.get(`${p}b`, { revision: base + 3 })).kv).toMatchObject({ value: 'b1', modRevision: base + 2 });
        expect((await store.get(`${p}b`, { revision: base + 4 })).kv).toBeUndefined();
        expect((await store.get(`${p}a`, { revision: base + 2 })).kv?.value).toBe('a1');
        const paged = await store.range(p, { revision: base + 3, limit: 1, continueKey: `${p}a\u0000` });
        expect(keysOf(paged.kvs)).toEqual([`${p}b`]);
      });

      it('a read at a future revision fails with ErrFutureRevision', async () => {
        await put(`${p}a`, '1');
        await expect(store.range(p, { revision: base + 2 })).rejects.toMatchObject({ _tag: 'ErrFutureRevision' });
        await expect(store.get(`${p}a`, { revision: base + 5 })).rejects.toMatchObject({ _tag: 'ErrFutureRevision' });
      });
    });

    describe('watch', () => {
      it('delivers live puts and deletes under its prefix, in order, with prevKv', async () => {
        const w = reader(p);
        await put(`${p}a`, '1');
        await put(`${p.slice(0, -1)}-other/a`, 'not mine');
        await put(`${p}a`, '2');
        await del(`${p}a`);
        await del(`${p}a`);
        const events = await w.take(3);
        expect(events.map(eventSummary)).toEqual([
          `put ${p}a=1@c${base + 1}/m${base + 1}/v1`,
          `put ${p}a=2@c${base + 1}/m${base + 3}/v2 prev ${p}a=1@c${base + 1}/m${base + 1}/v1`,
          `delete ${p}a=@c0/m${base + 4}/v0 prev ${p}a=2@c${base + 1}/m${base + 3}/v2`,
        ]);
        expect(await w.peek(quietMs)).toBe('quiet');
      });

      it('without fromRevision it starts after the current revision', async () => {
        await put(`${p}before`, '1');
        const w = reader(p);
        await put(`${p}after`, '2');
        expect((await w.take(1)).map((e) => e.kv.key)).toEqual([`${p}after`]);
        expect(await w.peek(quietMs)).toBe('quiet');
      });

      it('from a revision: the history from that revision on, then live events, in revision order', async () => {
        await put(`${p}a`, '1'); // base+1
        await put(`${p}b`, '1'); // base+2
        await put(`${p}a`, '2'); // base+3
        await del(`${p}b`); // base+4
        const w = reader(p, base + 2);
        await put(`${p}c`, '1'); // base+5
        const events = await w.take(4);
        expect(events.map((e) => [e.type, e.kv.key.slice(p.length), e.kv.modRevision])).toEqual([
          ['put', 'b', base + 2],
          ['put', 'a', base + 3],
          ['delete', 'b', base + 4],
          ['put', 'c', base + 5],
        ]);
        expect(events[1]?.prevKv).toMatchObject({ value: '1', modRevision: base + 1 });
        expect(events[2]?.prevKv).toMatchObject({ key: `${p}b`, value: '1', modRevision: base + 2, version: 1 });
        expect(await w.peek(quietMs)).toBe('quiet');
      });

      it('from a future revision: nothing below it, then the events from it on', async () => {
        // upstream: etcd server/storage/mvcc/watchable_store.go watch() (a startRev above the
        // current revision makes minRev), watcherGroup notify skips events below a watcher's minRev.
        const w = reader(p, base + 3);
        await put(`${p}a`, '1'); // base+1
        await put(`${p}b`, '1'); // base+2
        await put(`${p}c`, '1'); // base+3
        await del(`${p}a`); // base+4
        const events = await w.take(2);
        expect(events.map((e) => `${e.type} ${e.kv.key.slice(p.length)}@${e.kv.modRevision}`)).toEqual([`put c@${base + 3}`, `delete a@${base + 4}`]);
        expect(await w.peek(quietMs)).toBe('quiet');
      });

      it('the events of one txn share its revision and come in the order of its ops', async () => {
        await put(`${p}z`, 'old');
        const w = reader(p);
        await store.txn(
          [],
          [
            { kind: 'put', key: `${p}z`, value: 'new' },
            { kind: 'put', key: `${p}m`, value: '1' },
            { kind: 'delete', key: `${p}nothing` },
            { kind: 'put', key: `${p}a`, value: '1' },
          ],
        );
        const events = await w.take(3);
        expect(events.map((e) => `${e.type} ${e.kv.key.slice(p.length)}@${e.kv.modRevision}`)).toEqual([`put z@${base + 2}`, `put m@${base + 2}`, `put a@${base + 2}`]);
        expect(events[0]?.prevKv?.value).toBe('old');
        expect(await w.peek(quietMs)).toBe('quiet');
      });

      it('a failed txn and a delete of a missing key produce no event', async () => {
        await put(`${p}a`, '1');
        const w = reader(p);
        await store.txn([{ key: `${p}a`, target: 'value', op: '=', value: 'nope' }], [{ kind: 'put', key: `${p}a`, value: '2' }]);
        await del(`${p}missing`);
        expect(await w.peek(quietMs)).toBe('quiet');
      });

      it('two watches on overlapping prefixes each get their own events', async () => {
        const all = reader(p);
        const sub = reader(`${p}sub/`);
        await put(`${p}sub/a`, '1');
        await put(`${p}top`, '1');
        expect((await all.take(2)).map((e) => e.kv.key)).toEqual([`${p}sub/a`, `${p}top`]);
        expect((await sub.take(1)).map((e) => e.kv.key)).toEqual([`${p}sub/a`]);
        expect(await sub.peek(quietMs)).toBe('quiet');
      });

      it('close() ends the iteration, and breaking out of for-await closes the watch', async () => {
        const w = reader(p);
        await put(`${p}a`, '1');
        expect((await w.take(1))[0]?.kv.key).toBe(`${p}a`);
        w.watch.close();
        expect(await w.peek(quietMs)).toBe('ended');

        const loop = store.watch(p);
        watches.push(loop);
        const seen: string[] = [];
        const done = (async () => {
          for await (const event of loop) {
            seen.push(event.kv.value);
            if (seen.length === 2) break;
          }
        })();
        await put(`${p}a`, '2');
        await put(`${p}a`, '3');
        await put(`${p}a`, '4');
        await done;
        expect(seen).toEqual(['2', '3']);
        const after = await loop[Symbol.asyncIterator]().next();
        expect(after.done).toBe(true);
      });
    });

    describe('compaction', () => {
      const history = async () => {
        await put(`${p}a`, '1'); // base+1
        await put(`${p}b`, '1'); // base+2
        await put(`${p}a`, '2'); // base+3
        await del(`${p}b`); // base+4
        await put(`${p}c`, '1'); // base+5
      };

      it('reads below the compacted revision fail with ErrCompacted; at it and above they still work', async () => {
        await history();
        await store.compact(base + 3);
        await expect(store.range(p, { revision: base + 2 })).rejects.toMatchObject({ _tag: 'ErrCompacted', message: 'etcdserver: mvcc: required revision has been compacted' });
        await expect(store.get(`${p}a`, { revision: base + 1 })).rejects.toMatchObject({ _tag: 'ErrCompacted' });
        expect((await store.range(p, { revision: base + 3 })).kvs.map((kv) => `${kv.key.slice(p.length)}=${kv.value}`)).toEqual(['a=2', 'b=1']);
        expect((await store.range(p, { revision: base + 4 })).kvs.map((kv) => `${kv.key.slice(p.length)}=${kv.value}`)).toEqual(['a=2']);
        expect((await store.range(p)).kvs.map((kv) => `${kv.key.slice(p.length)}=${kv.value}/c${kv.createRevision}/v${kv.version}`)).toEqual([
          `a=2/c${base + 1}/v2`,
          `c=1/c${base + 5}/v1`,
        ]);
      });

      it('a watch from below the compacted revision fails with ErrCompacted; one from after it replays what is left', async () => {
        await history();
        await store.compact(base + 3);
        const old = reader(p, base + 1);
        expect(await old.error()).toMatchObject({ _tag: 'ErrCompacted', message: 'etcdserver: mvcc: required revision has been compacted' });
        // Stricter than etcd, which lets a watch start at the compacted revision (docs/deviations.md).
        expect(await reader(p, base + 3).error()).toMatchObject({ _tag: 'ErrCompacted' });
        const w = reader(p, base + 4);
        const events = await w.take(2);
        expect(events.map((e) => `${e.type} ${e.kv.key.slice(p.length)}@${e.kv.modRevision}`)).toEqual([`delete b@${base + 4}`, `put c@${base + 5}`]);
        expect(events[0]?.prevKv).toMatchObject({ value: '1', modRevision: base + 2 });
      });

      it('the history after a compaction keeps prevKv that points before it', async () => {
        await put(`${p}a`, '1'); // base+1
        await put(`${p}a`, '2'); // base+2
        await put(`${p}a`, '3'); // base+3
        await store.compact(base + 2);
        const [event] = await reader(p, base + 3).take(1);
        expect(event && eventSummary(event)).toBe(`put ${p}a=3@c${base + 1}/m${base + 3}/v3 prev ${p}a=2@c${base + 1}/m${base + 2}/v2`);
      });

      it('compacting a future revision fails with ErrFutureRevision; compacting again at or below fails with ErrCompacted', async () => {
        await history();
        await expect(store.compact(base + 6)).rejects.toMatchObject({ _tag: 'ErrFutureRevision' });
        await store.compact(base + 3);
        await expect(store.compact(base + 3)).rejects.toMatchObject({ _tag: 'ErrCompacted' });
        await expect(store.compact(base + 2)).rejects.toMatchObject({ _tag: 'ErrCompacted' });
        await store.compact(base + 5);
        expect(await store.revision()).toBe(base + 5);
        await put(`${p}d`, '1');
        expect(await store.revision()).toBe(base + 6);
      });

      it('a compaction at the current revision keeps the current state and the next revision number', async () => {
        await history();
        await store.compact(base + 5);
        expect(keysOf((await store.range(p)).kvs)).toEqual([`${p}a`, `${p}c`]);
        const r = await put(`${p}b`, 'again');
        expect(r.revision).toBe(base + 6);
        expect((await store.get(`${p}b`)).kv).toMatchObject({ createRevision: base + 6, version: 1 });
        expect((await store.get(`${p}a`)).kv).toMatchObject({ createRevision: base + 1, version: 2 });
      });
    });

    describe('leases', () => {
      it('grant returns an id and the TTL; a key put on it carries the lease', async () => {
        const lease = await store.grant(5);
        expect(lease.ttlSeconds).toBeGreaterThanOrEqual(5);
        expect(lease.id).toMatch(/^[0-9]+$/);
        const other = await store.grant(5);
        expect(other.id).not.toBe(lease.id);
        await put(`${p}a`, '1', lease.id);
        expect((await store.get(`${p}a`)).kv?.lease).toBe(lease.id);
        const r = await store.range(p);
        expect(r.kvs[0]?.lease).toBe(lease.id);
      });

      it('expiry deletes the lease\'s keys, all in one revision, each a watch delete event with prevKv', async () => {
        const lease = await store.grant(1);
        await put(`${p}b`, 'b', lease.id); // base+1
        await put(`${p}a`, 'a', lease.id); // base+2
        await put(`${p}keep`, 'k'); // base+3
        const w = reader(p);
        await h.elapse(lease.ttlSeconds * 1000 + 700);
        const events = await w.take(2);
        expect(events.map((e) => `${e.type} ${e.kv.key.slice(p.length)}@${e.kv.modRevision}`).sort()).toEqual([`delete a@${base + 4}`, `delete b@${base + 4}`]);
        expect(events.map((e) => e.prevKv?.lease)).toEqual([lease.id, lease.id]);
        expect(await w.peek(quietMs)).toBe('quiet');
        expect(keysOf((await store.range(p)).kvs)).toEqual([`${p}keep`]);
        expect(await store.revision()).toBe(base + 4);
        await expect(store.keepAlive(lease.id)).rejects.toMatchObject({ _tag: 'ErrLeaseNotFound' });
        await expect(put(`${p}c`, 'c', lease.id)).rejects.toMatchObject({ _tag: 'ErrLeaseNotFound' });
      });

      it('keepAlive renews the TTL from now', async () => {
        const lease = await store.grant(2);
        const ttlMs = lease.ttlSeconds * 1000;
        await put(`${p}a`, '1', lease.id);
        await h.elapse(ttlMs * 0.6);
        expect(await store.keepAlive(lease.id)).toMatchObject({ id: lease.id, ttlSeconds: lease.ttlSeconds });
        await h.elapse(ttlMs * 0.6);
        expect(await value(`${p}a`)).toBe('1');
        await h.elapse(ttlMs * 0.6 + 700);
        expect(await value(`${p}a`)).toBeUndefined();
      });

      it('revoke deletes the keys at once, in one revision; a second revoke fails with ErrLeaseNotFound', async () => {
        const lease = await store.grant(60);
        await put(`${p}a`, '1', lease.id);
        await put(`${p}b`, '1', lease.id);
        const w = reader(p);
        await store.revoke(lease.id);
        expect(keysOf((await store.range(p)).kvs)).toEqual([]);
        expect(await store.revision()).toBe(base + 3);
        const events = await w.take(2);
        expect(events.map((e) => `${e.type} ${e.kv.key.slice(p.length)}@${e.kv.modRevision}`).sort()).toEqual([`delete a@${base + 3}`, `delete b@${base + 3}`]);
        await expect(store.revoke(lease.id)).rejects.toMatchObject({ _tag: 'ErrLeaseNotFound', message: 'etcdserver: requested lease not found' });
      });

      it('revoking a lease with no keys writes nothing', async () => {
        const lease = await store.grant(60);
        await put(`${p}a`, '1');
        await store.revoke(lease.id);
        expect(await store.revision()).toBe(base + 1);
      });

      it('a put without the lease detaches the key, so the lease no longer deletes it', async () => {
        const lease = await store.grant(60);
        await put(`${p}a`, '1', lease.id);
        await put(`${p}b`, '1', lease.id);
        await put(`${p}a`, '2');
        await del(`${p}b`);
        expect((await store.get(`${p}a`)).kv?.lease).toBeUndefined();
        const before = await store.revision();
        await store.revoke(lease.id);
        expect(await value(`${p}a`)).toBe('2');
        expect(await store.revision()).toBe(before);
      });

      it('keepAlive and revoke of an unknown lease fail with ErrLeaseNotFound', async () => {
        await expect(store.keepAlive('123456789')).rejects.toMatchObject({ _tag: 'ErrLeaseNotFound' });
        await expect(store.revoke('123456789')).rejects.toMatchObject({ _tag: 'ErrLeaseNotFound' });
      });
    });

    describe('close', () => {
      it('after close, operations fail with ErrStoreClosed and open watches end', async () => {
        await put(`${p}a`, '1');
        const w = reader(p);
        await store.close();
        expect(await w.peek(quietMs * 4)).toBe('ended');
        await expect(store.get(`${p}a`)).rejects.toMatchObject({ _tag: 'ErrStoreClosed' });
        await expect(put(`${p}b`, '1')).rejects.toMatchObject({ _tag: 'ErrStoreClosed' });
        await expect(store.grant(5)).rejects.toMatchObject({ _tag: 'ErrStoreClosed' });
        await expect(store.revision()).rejects.toMatchObject({ _tag: 'ErrStoreClosed' });
        expect(await new WatchReader(store.watch(p), eventTimeoutMs).error()).toMatchObject({ _tag: 'ErrStoreClosed' });
      });
    });

    if (options.durable === true) describe('durability', () => {
      const reopen = (): Promise<Store> => {
        if (h.reopen === undefined) throw new Error(`${backend}: a durable backend's harness must have reopen()`);
        return h.reopen();
      };

      it('reopening keeps keys, history, the revision and the compacted revision (durable backends)', async () => {
        await put(`${p}a`, '1'); // base+1
        await put(`${p}a`, '2'); // base+2
        await put(`${p}b`, '1'); // base+3
        await del(`${p}b`); // base+4
        await store.compact(base + 2);
        store = await reopen();
        expect(await store.revision()).toBe(base + 4);
        expect((await store.get(`${p}a`)).kv).toMatchObject({ value: '2', createRevision: base + 1, modRevision: base + 2, version: 2 });
        expect(keysOf((await store.range(p, { revision: base + 3 })).kvs)).toEqual([`${p}a`, `${p}b`]);
        await expect(store.range(p, { revision: base + 1 })).rejects.toMatchObject({ _tag: 'ErrCompacted' });
        expect((await put(`${p}c`, '1')).revision).toBe(base + 5);
        const events = await new WatchReader(store.watch(p, { fromRevision: base + 3 }), eventTimeoutMs).take(3);
        expect(events.map((e) => `${e.type} ${e.kv.key.slice(p.length)}@${e.kv.modRevision}`)).toEqual([`put b@${base + 3}`, `delete b@${base + 4}`, `put c@${base + 5}`]);
      });

      it('reopening keeps a large value and one given as bytes (durable backends)', async () => {
        const big = `{"data":"${'A'.repeat(200 * 1024)}é"}`;
        await put(`${p}big`, big);
        await store.txn([], [{ kind: 'put', key: `${p}bytes`, value: new TextEncoder().encode('small é') }]);
        store = await reopen();
        expect(await value(`${p}big`)).toBe(big);
        expect(await value(`${p}bytes`)).toBe('small é');
      });

      it('reopening keeps leases: their keys stay, keepAlive works, and they still expire', async () => {
        const lease = await store.grant(1);
        await put(`${p}a`, '1', lease.id);
        store = await reopen();
        expect((await store.get(`${p}a`)).kv?.lease).toBe(lease.id);
        await store.keepAlive(lease.id);
        const fresh = await store.grant(30);
        expect(fresh.id).not.toBe(lease.id);
        await h.elapse(lease.ttlSeconds * 1000 + 700);
        expect(await value(`${p}a`)).toBeUndefined();
        await expect(store.keepAlive(lease.id)).rejects.toMatchObject({ _tag: 'ErrLeaseNotFound' });
      });
    });
  });
}
