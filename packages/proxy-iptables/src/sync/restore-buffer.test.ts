// The restore buffer a caller keeps between syncs: it grows geometrically and keeps what was
// written, writes UTF-8, and a sync written into it gives the bytes of the same sync into a
// fresh buffer (INV-IPT-BUFFER), with no new memory for the text once it is large enough.
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { generateRules } from '../backend.js';
import { validConfig, withoutKernel } from '../proxier-config.fixtures.js';
import { RestoreBuffer, sync, type SyncResult, type SyncState } from './index.js';
import { buildService, buildSlice, configArb, initialArb, opArb, type ServiceGen } from './sync-gen.fixtures.js';

const decoder = new TextDecoder('utf-8', { fatal: true });
const ascii = (text: string): number[] => Array.from(text, (c) => c.charCodeAt(0));

describe('RestoreBuffer', () => {
  it('doubles its capacity when a write needs more, keeping the bytes written', () => {
    const buffer = new RestoreBuffer(16);
    buffer.write('*filter\n');
    expect(buffer.capacity).toBe(16);
    buffer.write(':KUBE-SERVICES - [0:0]\n');
    expect(buffer.capacity).toBe(32);
    expect(buffer.length).toBe(31);
    expect(Array.from(buffer.view())).toEqual(ascii('*filter\n:KUBE-SERVICES - [0:0]\n'));
    buffer.write('x'.repeat(100));
    // More than twice 32 is needed: exactly what is needed.
    expect(buffer.capacity).toBe(131);
  });

  it('starts over at reset, keeping its capacity, and counts the texts started', () => {
    const buffer = new RestoreBuffer(16);
    expect(buffer.reset()).toBe(1);
    buffer.write('COMMIT\n'.repeat(10));
    const capacity = buffer.capacity;
    expect(buffer.reset()).toBe(2);
    expect(buffer.generation).toBe(2);
    expect(buffer.length).toBe(0);
    buffer.write('*nat\n');
    expect(buffer.capacity).toBe(capacity);
    expect(Array.from(buffer.view())).toEqual(ascii('*nat\n'));
  });

  it('writes text outside ASCII as UTF-8, growing past a reserve made for one byte per character', () => {
    const buffer = new RestoreBuffer(16);
    buffer.write('-A é ');
    buffer.write('ns/café:p80 ✓ 😀\n');
    // é is c3 a9, ✓ is e2 9c 93, 😀 is f0 9f 98 80.
    expect(Array.from(buffer.view())).toEqual([
      ...ascii('-A '), 0xc3, 0xa9, ...ascii(' ns/caf'), 0xc3, 0xa9, ...ascii(':p80 '), 0xe2, 0x9c, 0x93, 0x20, 0xf0, 0x9f, 0x98, 0x80, 0x0a,
    ]);
  });

  it('writes parts, short ones gathered and long ones alone, in their order (writeAll)', () => {
    const parts = ['a\n', 'b'.repeat(2000), 'c'.repeat(10), ...Array.from({ length: 5000 }, (_, i) => `-A KUBE-SERVICES ${i}\n`), 'd'.repeat(40000), 'é'];
    const buffer = new RestoreBuffer(16);
    buffer.writeAll(parts);
    expect(new TextDecoder().decode(buffer.view())).toBe(parts.join(''));
    expect(buffer.length).toBe(parts.join('').length + 1);
  });

  it('appends bytes', () => {
    const buffer = new RestoreBuffer(16);
    buffer.write('ab');
    buffer.writeBytes(new Uint8Array([0x63, 0x64]));
    expect(Array.from(buffer.view())).toEqual(ascii('abcd'));
  });

  it('appends ranges of bytes, short and long, growing as it must (writeRange)', () => {
    const source = new Uint8Array(2000).map((_, i) => 0x41 + (i % 26));
    const buffer = new RestoreBuffer(16);
    buffer.writeRange(source, 3, 7);
    buffer.writeRange(source, 0, 0);
    buffer.writeRange(source, 100, 1900);
    buffer.writeRange(source, 1990, 2000);
    expect(buffer.length).toBe(4 + 1800 + 10);
    expect(Array.from(buffer.view())).toEqual([...source.subarray(3, 7), ...source.subarray(100, 1900), ...source.subarray(1990, 2000)]);
    expect(Array.from(buffer.view().subarray(0, 4))).toEqual(ascii('DEFG'));
  });
});

function shape(n: number, m: number): { services: Service[]; slices: EndpointSlice[] } {
  const services: Service[] = [];
  const slices: EndpointSlice[] = [];
  for (let i = 0; i < n; i++) {
    services.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'ns', name: `svc${i}` },
      spec: { type: 'ClusterIP', clusterIP: `172.30.0.${i + 1}`, ports: [{ name: 'p80', port: 80, protocol: 'TCP' }] },
    });
    slices.push({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { namespace: 'ns', name: `svc${i}-0`, labels: { 'kubernetes.io/service-name': `svc${i}` } },
      addressType: 'IPv4',
      endpoints: Array.from({ length: m }, (_, j) => ({ addresses: [`10.128.${i}.${j + 1}`], conditions: { ready: true }, nodeName: `node-${j}` })),
      ports: [{ name: 'p80', port: 8080, protocol: 'TCP' }],
    });
  }
  return { services, slices };
}

const CONFIG = validConfig({ nodeName: 'node-a', nodeIPs: ['192.168.0.2'], localDetector: { kind: 'cidr', cidr: '10.0.0.0/8' } });

describe('a sync into a buffer of the caller', () => {
  for (const [name, config] of [
    ['with the kernel', CONFIG],
    ['without the kernel', withoutKernel(CONFIG)],
  ] as const) {
    it(`writes generateRules' text, and a later full resync writes it again into the same memory (${name})`, () => {
      const { services, slices } = shape(20, 3);
      const expected = generateRules(services, slices, config).restoreText;
      const buffer = new RestoreBuffer(64);
      const first = sync(undefined, services, slices, config, { buffer });
      expect(first.restoreText).toBe(expected);
      expect(first.restoreBytes.length).toBe(first.stats.bytes);
      const second = sync(first.state, services, slices, config, { full: true, buffer });
      expect(new TextDecoder().decode(second.restoreBytes)).toBe(expected);
      const third = sync(second.state, services, slices, config, { full: true, buffer });
      expect(new TextDecoder().decode(third.restoreBytes)).toBe(expected);
      // No new memory for the text: the same bytes written over.
      expect(third.restoreBytes.buffer).toBe(second.restoreBytes.buffer);
      expect(third.restoreBytes.byteOffset).toBe(0);
    });
  }

  it('refuses to give a text the next sync wrote over, and gives it when read before', () => {
    const { services, slices } = shape(3, 2);
    const buffer = new RestoreBuffer();
    const first = sync(undefined, services, slices, withoutKernel(CONFIG), { buffer });
    const changed = shape(3, 1);
    const read = sync(first.state, changed.services, changed.slices, withoutKernel(CONFIG), { buffer });
    const text = read.restoreText;
    const next = sync(read.state, services, slices, withoutKernel(CONFIG), { buffer });
    expect(read.restoreText).toBe(text);
    const unread = sync(next.state, changed.services, changed.slices, withoutKernel(CONFIG), { buffer });
    sync(unread.state, services, slices, withoutKernel(CONFIG), { buffer });
    expect(() => unread.restoreText).toThrow(/written over by a later sync/);
  });

  it('writes names outside ASCII as UTF-8, stats.bytes long', () => {
    const { services, slices } = shape(2, 2);
    const named = services.map((s) => ({ ...s, metadata: { ...s.metadata, namespace: 'café' } }));
    const namedSlices = slices.map((s) => ({ ...s, metadata: { ...s.metadata, namespace: 'café' } }));
    const expected = generateRules(named, namedSlices, CONFIG).restoreText;
    const result = sync(undefined, named, namedSlices, CONFIG, { buffer: new RestoreBuffer(16) });
    expect(Array.from(result.restoreBytes)).toEqual(Array.from(new TextEncoder().encode(expected)));
    expect(result.stats.bytes).toBe(result.restoreBytes.length);
    expect(result.restoreBytes.length).toBeGreaterThan(expected.length);
  });
});

/** A Service of `endpoints` endpoints (10.200.0.1 on), whose text alone is larger than a block of the state (render-bytes.ts). */
function bigService(endpoints: number): { service: Service; slice: EndpointSlice } {
  return {
    service: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'big', name: 'many' },
      spec: { type: 'ClusterIP', clusterIP: '172.31.0.1', ports: [{ name: 'p80', port: 80, protocol: 'TCP' }] },
    },
    slice: {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { namespace: 'big', name: 'many-0', labels: { 'kubernetes.io/service-name': 'many' } },
      addressType: 'IPv4',
      endpoints: Array.from({ length: endpoints }, (_, k) => ({ addresses: [`10.200.${(k + 1) >> 8}.${(k + 1) & 255}`], conditions: { ready: true } })),
      ports: [{ name: 'p80', port: 8080, protocol: 'TCP' }],
    },
  };
}

describe('the text a sync keeps per Service, as ranges of blocks of bytes', () => {
  for (const [name, config] of [
    ['with the kernel', CONFIG],
    ['without the kernel', withoutKernel(CONFIG)],
  ] as const) {
    it(`gives generateRules' text from Services over several blocks and one larger than a block: first sync, cached and re-rendered resyncs, partial sync (${name})`, () => {
      const { services, slices } = shape(250, 20);
      const big = bigService(10000);
      services.push(big.service);
      slices.push(big.slice);
      const expected = generateRules(services, slices, config).restoreText;
      const first = sync(undefined, services, slices, config);
      // Several blocks of 1 MiB; the big Service alone takes more than two.
      expect(first.stats.bytes).toBeGreaterThan(3 << 20);
      expect(first.restoreText).toBe(expected);
      const buffer = new RestoreBuffer();
      const cached = sync(first.state, services, slices, config, { full: true, buffer });
      expect(cached.restoreText).toBe(expected);
      // A setting no line shows: every Service rendered again, no chain stale.
      const other = { ...config, largeClusterThreshold: config.largeClusterThreshold - 1 };
      const rerendered = sync(cached.state, services, slices, other, { buffer });
      expect(rerendered.stats.chainsDeleted).toBe(0);
      expect(rerendered.restoreText).toBe(generateRules(services, slices, other).restoreText);
      // One Service's endpoints changed: the partial text writes it whole and the others' KUBE-SERVICES rules.
      const changed = slices.slice();
      changed[200] = shape(201, 4).slices[200] as EndpointSlice;
      const partial = sync(rerendered.state, services, changed, other, { buffer });
      const text = partial.restoreText;
      expect(partial.stats.full).toBe(false);
      expect(partial.stats.chainsDeleted).toBe(16);
      expect(text.match(/^-A KUBE-SERVICES .*--dport 80 .*-j KUBE-SVC-/gm)?.length).toBe(251);
      expect(text.match(/^:KUBE-SEP-/gm)?.length).toBe(4 + 16);
      expect(text.match(/^-X KUBE-SEP-/gm)?.length).toBe(16);
      const resync = sync(partial.state, services, changed, other, { full: true, buffer });
      expect(resync.restoreText).toBe(generateRules(services, changed, other).restoreText);
    });
  }
});

/** The pieces joined, decoded. */
function joined(chunks: readonly Uint8Array[]): string {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return decoder.decode(all);
}

describe('a sync given no buffer', () => {
  for (const [name, config] of [
    ['with the kernel', CONFIG],
    ['without the kernel', withoutKernel(CONFIG)],
  ] as const) {
    it(`hands out its text as views of the bytes its state keeps, which later syncs do not write over (${name})`, () => {
      const { services, slices } = shape(250, 20);
      const expected = generateRules(services, slices, config).restoreText;
      const first = sync(undefined, services, slices, config);
      const chunks = first.restoreChunks;
      // Several blocks of the state: one piece per region of each block, not one copied text.
      expect(first.stats.bytes).toBeGreaterThan(1 << 20);
      expect(chunks.length).toBeGreaterThan(3);
      expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(first.stats.bytes);
      expect(joined(chunks)).toBe(expected);
      // The joined bytes, and the text decoded from them.
      expect(first.restoreBytes.length).toBe(first.stats.bytes);
      expect(decoder.decode(first.restoreBytes)).toBe(expected);
      expect(first.restoreText).toBe(expected);

      // A partial sync of one changed slice: its pieces of the unchanged Services are views of the
      // same memory as the first sync's (their bytes were never copied).
      const changed = slices.slice();
      changed[100] = shape(101, 4).slices[100] as EndpointSlice;
      const buffer = new RestoreBuffer();
      const partial = sync(first.state, services, changed, config);
      expect(partial.stats.full).toBe(false);
      const firstMemory = new Set(chunks.map((c) => c.buffer));
      expect(partial.restoreChunks.filter((c) => firstMemory.has(c.buffer)).length).toBeGreaterThan(0);
      expect(joined(partial.restoreChunks)).toBe(partial.restoreText);
      // Later syncs, into a buffer or not, leave the first sync's pieces as they were.
      const full = sync(partial.state, services, changed, config, { full: true, buffer });
      sync(full.state, services, slices, config, { buffer });
      sync(full.state, services, slices, config, { full: true });
      expect(joined(chunks)).toBe(expected);
      // With a buffer the one piece is the buffer's bytes.
      expect(full.restoreChunks).toEqual([full.restoreBytes]);
      expect(full.restoreChunks[0]?.buffer).toBe(full.restoreBytes.buffer);
    });
  }
});

describe('generateRules into a buffer of the caller', () => {
  it('writes the text the string printer gives as UTF-8 bytes into the same memory each time, the text decoded when read', () => {
    const { services, slices } = shape(30, 4);
    const named = services.map((s, i) => (i === 3 ? { ...s, metadata: { ...s.metadata, namespace: 'café' } } : s));
    const namedSlices = slices.map((s, i) => (i === 3 ? { ...s, metadata: { ...s.metadata, namespace: 'café' } } : s));
    const buffer = new RestoreBuffer(16);
    for (const [objects, objectSlices] of [
      [services, slices],
      [named, namedSlices],
    ] as const) {
      const expected = generateRules(objects, objectSlices, withoutKernel(CONFIG)).restoreText;
      for (const config of [CONFIG, withoutKernel(CONFIG)]) {
        const result = generateRules(objects, objectSlices, config, { buffer });
        expect(Array.from(result.restoreBytes)).toEqual(Array.from(new TextEncoder().encode(expected)));
        expect(result.restoreText).toBe(expected);
      }
    }
    const first = generateRules(services, slices, CONFIG, { buffer });
    const bytes = first.restoreBytes;
    const second = generateRules(services, slices, CONFIG, { buffer });
    expect(second.restoreBytes.buffer).toBe(bytes.buffer);
    expect(() => first.restoreText).toThrow(/written over by a later text/);
    expect(second.restoreText.startsWith('*filter\n')).toBe(true);
  });
});

test.prop([configArb, initialArb, fc.array(opArb, { maxLength: 20, size: 'medium' })])(
  'INV-IPT-BUFFER: every sync of a sequence written into one reused buffer gives the bytes of the same sync into a fresh buffer',
  (config, initial, ops) => {
    const specs = new Map<number, ServiceGen>();
    const services = new Map<number, Service>();
    const slices = new Map<number, EndpointSlice>();
    for (const entry of initial) {
      specs.set(entry.key, entry.service);
      services.set(entry.key, buildService(entry.key, entry.service));
      if (entry.slice !== undefined) slices.set(entry.key, buildSlice(entry.key, entry.slice));
    }
    const buffer = new RestoreBuffer(16);
    let reused: SyncState | undefined;
    let fresh: SyncState | undefined;
    let syncs = 0;
    const syncBoth = (full: boolean) => {
      const svcs = [...services.values()];
      const sls = [...slices.values()];
      const a: SyncResult = sync(reused, svcs, sls, config, { full, buffer });
      const b: SyncResult = sync(fresh, svcs, sls, config, { full });
      syncs++;
      // Decoded to compare (a diff of strings reads better than one of bytes); valid UTF-8 decodes one to one.
      expect(a.restoreBytes.length, `sync ${syncs}: bytes`).toBe(b.restoreBytes.length);
      expect(decoder.decode(a.restoreBytes), `sync ${syncs}`).toBe(decoder.decode(b.restoreBytes));
      expect(a.restoreBytes.length, `sync ${syncs}: stats.bytes`).toBe(a.stats.bytes);
      expect(a.restoreText, `sync ${syncs}: the text`).toBe(b.restoreText);
      reused = a.state;
      fresh = b.state;
    };
    syncBoth(false);
    for (const op of ops) {
      if (op.kind === 'put-service') {
        specs.set(op.key, op.service);
        services.set(op.key, buildService(op.key, op.service));
      } else if (op.kind === 'delete-service') {
        specs.delete(op.key);
        services.delete(op.key);
      } else if (op.kind === 'recreate-service') {
        const spec = specs.get(op.key);
        if (spec !== undefined) services.set(op.key, buildService(op.key, spec));
      } else if (op.kind === 'put-slice') slices.set(op.key, buildSlice(op.key, op.slice));
      else if (op.kind === 'delete-slice') slices.delete(op.key);
      else if (op.kind === 'sync') syncBoth(op.full);
    }
    syncBoth(false);
  },
);
