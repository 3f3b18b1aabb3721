// Where a node agent's memory goes at scale: one process, no API, the objects made once (as a
// worker's interner keeps one copy of what its sources parsed), then A agents on the same
// objects, each with its own cache (a source's maps and keys) and its own iptables proxy, the
// heap and the array buffers (the text's bytes, outside the heap) measured after a full
// collection as each is added; then the parts of one agent's proxier state, each measured by
// keeping that part alone of a fresh sync alive. Not a suite: a measurement run by hand,
//   npx tsx --conditions=@kubesvc/source bench/src/agent-memory.ts
// with AGENTS (4), SERVICES (10000), ENDPOINTS (10) in the environment.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EndpointSlice, KubeObject, Service } from '@kubesvc/api-types';
import type { ResourceName } from '@kubesvc/apiserver';
import type { CacheChange } from '@kubesvc/controllers';
import { startNodeAgent, type NodeAgent, type NodeAgentSource } from '@kubesvc/node-agent';
import { createRenderCache, createSaveViewMemo, iptablesSaveView, printRestoreText, RestoreBuffer, sync, syncedRuleset, type ProxierConfig, type SyncState } from '@kubesvc/proxy-iptables';
import { systemClock } from '@kubesvc/store';
import { PerformanceObserver } from 'node:perf_hooks';
import { Session } from 'node:inspector/promises';
import { fullGC } from './full-gc.js';
import { ipv4 } from './proxy-shapes.js';

const MiB = 1024 * 1024;
const env = (name: string, fallback: number): number => (process.env[name] === undefined ? fallback : Number(process.env[name]));
const AGENTS = env('AGENTS', 4);
const SERVICES = env('SERVICES', 10_000);
const ENDPOINTS = env('ENDPOINTS', 10);
/** Rounds of the churn after the agents start: each replaces one endpoint of CHANGES slices, then waits for every agent's sync. */
const ROUNDS = env('ROUNDS', 30);
const CHANGES = env('CHANGES', 20);
/** 1: the agents share one render cache (proxy-iptables' createRenderCache), as a worker's agents do. */
const SHARE_RENDERS = env('SHARE_RENDERS', 1);
/** 1: the churn is CPU-profiled (node:inspector), and the functions taking most of its samples printed. */
const PROFILE = env('PROFILE', 0);
/** 0: the agents start on the loaded cache. n: they start on an empty one, as the scale bench's do, and the objects come n Services (and slices) a sync. */
const LOAD_BATCH = env('LOAD_BATCH', 0);

interface Mem {
  readonly heap: number;
  readonly buffers: number;
  readonly rss: number;
}

function mem(): Mem {
  fullGC();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers, rss: m.rss };
}

const fmt = (bytes: number): string => `${(bytes / MiB).toFixed(2)} MiB`;
function delta(label: string, a: Mem, b: Mem, per = 1): void {
  console.log(`${label.padEnd(58)} heap ${fmt((b.heap - a.heap) / per).padStart(11)}  array buffers ${fmt((b.buffers - a.buffers) / per).padStart(11)}  rss ${fmt((b.rss - a.rss) / per).padStart(11)}`);
}

/** The objects as the scale bench writes them and a source parses them (metadata included). */
function objects(): { services: Service[]; slices: EndpointSlice[] } {
  const services: Service[] = [];
  const slices: EndpointSlice[] = [];
  const t = '2026-12-03T10:00:00Z';
  for (let i = 0; i < SERVICES; i++) {
    const name = `svc-${i}`;
    services.push(JSON.parse(JSON.stringify({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'scale', name, uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, resourceVersion: String(2 * i + 10), creationTimestamp: t },
      spec: { type: 'ClusterIP', clusterIP: ipv4(((10 << 24) | (96 << 16)) + i + 1), clusterIPs: [ipv4(((10 << 24) | (96 << 16)) + i + 1)], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', sessionAffinity: 'None', internalTrafficPolicy: 'Cluster', ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
      status: { loadBalancer: {} },
    })) as Service);
    slices.push(JSON.parse(JSON.stringify({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { namespace: 'scale', name: `${name}-abcde`, uid: `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`, resourceVersion: String(2 * i + 11), creationTimestamp: t, labels: { 'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': 'scale-bench' }, annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': t } },
      addressType: 'IPv4',
      endpoints: Array.from({ length: ENDPOINTS }, (_, j) => ({ addresses: [ipv4(((10 << 24) | (128 << 16)) + i * ENDPOINTS + j + 1)], conditions: { ready: true, serving: true, terminating: false }, nodeName: `node-${j % 100}` })),
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    })) as EndpointSlice);
  }
  return { services, slices };
}

/** A source's cache as api-source.ts's reflectors keep it: per resource a map of its own keys to the shared objects, and the keys sorted. */
class CacheSource implements NodeAgentSource {
  readonly resources: readonly ResourceName[] = ['services', 'endpointslices'];
  private readonly maps = new Map<ResourceName, Map<string, KubeObject>>();
  private readonly sorted = new Map<ResourceName, string[]>();
  private readonly listeners = new Set<(change: CacheChange) => void>();

  constructor(all: { services: readonly Service[]; slices: readonly EndpointSlice[] }) {
    for (const [resource, list] of [['services', all.services], ['endpointslices', all.slices]] as const) {
      const m = new Map<string, KubeObject>();
      // Each source parses its own keys (a fresh string per object).
      for (const o of list) m.set(`${o.metadata?.namespace}/${o.metadata?.name}`.split('').join(''), o);
      this.maps.set(resource, m);
      this.sorted.set(resource, [...m.keys()].sort());
    }
  }

  readonly revision = 1;

  list<T extends KubeObject = KubeObject>(resource: ResourceName): readonly T[] {
    const m = this.maps.get(resource);
    return (this.sorted.get(resource) ?? []).map((k) => m?.get(k) as T);
  }

  get<T extends KubeObject = KubeObject>(resource: ResourceName, namespace: string, name: string): T | undefined {
    return this.maps.get(resource)?.get(`${namespace}/${name}`) as T | undefined;
  }

  /** A change every agent's source sees: the object replaced in the cache, the listeners told. */
  update(resource: ResourceName, object: KubeObject): void {
    const key = `${object.metadata?.namespace}/${object.metadata?.name}`;
    const m = this.maps.get(resource);
    const old = m?.get(key);
    m?.set(key, object);
    const change: CacheChange = old === undefined ? { resource, type: 'ADDED', object } : { resource, type: 'MODIFIED', object, old };
    for (const l of this.listeners) l(change);
  }

  onChange(listener: (change: CacheChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** The rule kernels' WebAssembly memories (one kernel per agent), found as the kernels are instantiated. */
const memories: { buffer: ArrayBuffer }[] = [];
{
  const wasm = (globalThis as unknown as { WebAssembly: unknown }).WebAssembly as { Instance: new (...args: unknown[]) => { exports: Record<string, unknown> } };
  const Instance = wasm.Instance;
  wasm.Instance = function (this: unknown, ...args: unknown[]) {
    const instance = new Instance(...args);
    const memory = instance.exports['memory'] as { buffer: ArrayBuffer } | undefined;
    if (memory !== undefined) memories.push(memory);
    return instance;
  } as unknown as typeof Instance;
}
const kernelBytes = (): string => `${memories.length} kernel memories, ${fmt(memories.reduce((n, m) => n + m.buffer.byteLength, 0))}`;

/** The restore buffers the proxies keep (found as they are reset for a sync), weakly. */
const restoreBuffers: WeakRef<RestoreBuffer>[] = [];
{
  const reset = RestoreBuffer.prototype.reset;
  const seen = new WeakSet<RestoreBuffer>();
  RestoreBuffer.prototype.reset = function (this: RestoreBuffer): number {
    if (!seen.has(this)) {
      seen.add(this);
      restoreBuffers.push(new WeakRef(this));
    }
    return reset.call(this);
  };
}
function restoreBufferBytes(): string {
  const live = restoreBuffers.map((r) => r.deref()).filter((b): b is RestoreBuffer => b !== undefined);
  return `${live.length} restore buffers, ${fmt(live.reduce((n, b) => n + b.capacity, 0))} (${live.map((b) => fmt(b.capacity)).join(', ')})`;
}

/** The render scratch streams an agent's state passes on (render-bytes.ts). */
function scratchBytes(agent: NodeAgent): string {
  const scratch = (agent.iptablesState() as unknown as { scratch?: Record<string, { bytes: Uint8Array }> } | undefined)?.scratch ?? {};
  return fmt(Object.values(scratch).reduce((n, s) => n + s.bytes.byteLength, 0));
}

/** The byte blocks an agent's state keeps for its Services' text, and the bytes of them its Services still use. */
function blocks(agent: NodeAgent): string {
  const entries = (agent.iptablesState() as unknown as { entries?: readonly { rendered: { bytes: Uint8Array; filterBytes: number; fullBytes: number; declBytes: number } }[] } | undefined)?.entries ?? [];
  const held = new Set<ArrayBufferLike>();
  let total = 0;
  let live = 0;
  for (const e of entries) {
    const r = e.rendered;
    live += r.filterBytes + r.fullBytes + r.declBytes;
    if (!held.has(r.bytes.buffer)) {
      held.add(r.bytes.buffer);
      total += r.bytes.buffer.byteLength;
    }
  }
  return `${held.size} blocks of ${fmt(total)}, ${fmt(live)} of it in use`;
}

interface Profile {
  readonly nodes: readonly { readonly id: number; readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }; readonly children?: readonly number[] }[];
  readonly samples: readonly number[];
}

/** The functions with the most samples (self), and the share of samples under each (total), of the churn's profile. */
function printProfile(profile: Profile): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (id: number): string => {
    const f = byId.get(id)?.callFrame;
    return f === undefined ? '?' : `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(packages|node_modules)\//, '')}:${f.lineNumber + 1}`;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  for (const id of profile.samples) {
    self.set(name(id), (self.get(name(id)) ?? 0) + 1);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const k = name(at);
      if (!seen.has(k)) total.set(k, (total.get(k) ?? 0) + 1);
      seen.add(k);
    }
  }
  const n = profile.samples.length;
  const top = (m: Map<string, number>, count: number): string => [...m].sort((a, b) => b[1] - a[1]).slice(0, count).map(([k, v]) => `    ${((100 * v) / n).toFixed(1).padStart(5)} %  ${k}`).join('\n');
  console.log(`churn profile, ${n} samples; self:\n${top(self, 25)}\ntotal:\n${top(total, 40)}`);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-'));
  try {
    console.log(`${AGENTS} agents × ${SERVICES} Services × ${ENDPOINTS} endpoints (Node ${process.version}), ${SHARE_RENDERS > 0 ? 'one render cache for all' : 'no render cache'}`);
    const base = mem();
    const all = objects();
    const loaded = mem();
    delta('objects, one copy (a worker interner\'s share)', base, loaded);

    const sources: CacheSource[] = [];
    let before = loaded;
    for (let k = 0; k < AGENTS; k++) sources.push(new CacheSource(LOAD_BATCH > 0 ? { services: [], slices: [] } : all));
    let after = mem();
    delta('source caches (maps, keys), per agent', before, after, AGENTS);

    const agents: NodeAgent[] = [];
    const renderCache = SHARE_RENDERS > 0 ? createRenderCache() : undefined;
    before = after;
    for (let k = 0; k < AGENTS; k++) {
      const started = await startNodeAgent({ source: sources[k] as CacheSource, clock: systemClock, nodeName: `node-${k}`, nodeIP: ipv4(((192 << 24) | (168 << 16)) + k + 1), clusterCIDR: '10.64.0.0/10', dataDir: join(dir, `node-${k}`), proxyMode: 'iptables', dnsPort: false, iptables: { tablesFilesIntervalMs: Infinity, minSyncPeriodMs: 0, ...(renderCache === undefined ? {} : { renderCache }) } });
      if (!started.ok) throw new Error(started.error.message);
      agents.push(started.value);
      await started.value.idle();
      const now = mem();
      delta(`agent ${k + 1}: node agent (proxy, first sync, files written)`, after, now);
      after = now;
    }
    if (LOAD_BATCH > 0) {
      for (let i = 0; i < SERVICES; i += LOAD_BATCH) {
        const syncs = agents.map((a) => a.lastIptablesSync()?.syncs ?? 0);
        for (let j = i; j < Math.min(SERVICES, i + LOAD_BATCH); j++) {
          for (const s of sources) {
            s.update('services', all.services[j] as Service);
            s.update('endpointslices', all.slices[j] as EndpointSlice);
          }
        }
        for (let k = 0; k < agents.length; k++) {
          while ((agents[k]?.lastIptablesSync()?.syncs ?? 0) <= (syncs[k] ?? 0)) await new Promise((r) => setTimeout(r, 2));
        }
      }
      for (const a of agents) await a.idle();
      const now = mem();
      delta(`the load, ${LOAD_BATCH} Services a sync, per agent`, after, now, AGENTS);
      after = now;
    }
    delta('node agents, per agent', before, after, AGENTS);
    console.log(`  agent 1's rendered text: ${blocks(agents[0] as NodeAgent)}; its render scratch ${scratchBytes(agents[0] as NodeAgent)}; ${kernelBytes()}; ${restoreBufferBytes()}`);

    // The churn: each round replaces one endpoint in CHANGES slices (new objects, shared by every
    // agent's cache as the interner shares them), then waits for each agent's sync.
    const rng = ((seed: number) => () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32))(7);
    const syncMs: number[] = [];
    let rv = 10 * SERVICES;
    // The collector's pauses during the churn (perf_hooks' gc entries), by kind.
    const gcMs = new Map<string, { count: number; ms: number }>();
    const gcKinds: Record<number, string> = { 1: 'scavenge', 2: 'mark-compact', 4: 'incremental', 8: 'weak callbacks' };
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const kind = gcKinds[((e as unknown as { detail?: { kind?: number } }).detail)?.kind ?? 0] ?? 'other';
        const g = gcMs.get(kind) ?? { count: 0, ms: 0 };
        g.count++;
        g.ms += e.duration;
        gcMs.set(kind, g);
      }
    });
    observer.observe({ entryTypes: ['gc'] });
    const session = PROFILE > 0 ? new Session() : undefined;
    if (session !== undefined) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
    }
    const churnStart = performance.now();
    const cpu0 = process.cpuUsage();
    for (let round = 0; round < ROUNDS; round++) {
      const before = agents.map((a) => a.lastIptablesSync()?.syncs ?? 0);
      for (let c = 0; c < CHANGES; c++) {
        const i = Math.floor(rng() * SERVICES);
        const old = sources[0]?.get<EndpointSlice>('endpointslices', 'scale', `svc-${i}-abcde`) as EndpointSlice;
        const endpoints = (old.endpoints ?? []).slice();
        const j = Math.floor(rng() * endpoints.length);
        endpoints[j] = { ...endpoints[j], addresses: [ipv4(((10 << 24) | (200 << 16)) + (rv & 0xffff))] } as (typeof endpoints)[number];
        const next = JSON.parse(JSON.stringify({ ...old, metadata: { ...old.metadata, resourceVersion: String(++rv) }, endpoints })) as EndpointSlice;
        for (const s of sources) s.update('endpointslices', next);
      }
      for (let k = 0; k < agents.length; k++) {
        const agent = agents[k] as NodeAgent;
        while ((agent.lastIptablesSync()?.syncs ?? 0) <= (before[k] ?? 0)) await new Promise((r) => setTimeout(r, 2));
        syncMs.push(agent.lastIptablesSync()?.ms ?? NaN);
      }
    }
    const cpu = process.cpuUsage(cpu0);
    const churnWall = performance.now() - churnStart;
    if (session !== undefined) {
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
      session.disconnect();
      printProfile(profile);
    }
    await new Promise((r) => setTimeout(r, 10));
    observer.disconnect();
    // The syncs' files may still be queued: each queued write holds its sync's restore buffer.
    for (const a of agents) await a.idle();
    syncMs.sort((a, b) => a - b);
    const mean = syncMs.reduce((a, b) => a + b, 0) / syncMs.length;
    if (renderCache !== undefined) console.log(`  render cache: ${JSON.stringify(renderCache.stats())}`);
    console.log(`churn: ${ROUNDS} rounds × ${CHANGES} slice changes, ${syncMs.length} syncs: mean ${mean.toFixed(1)} ms, p50 ${syncMs[Math.floor(syncMs.length / 2)]?.toFixed(1)} ms, max ${syncMs[syncMs.length - 1]?.toFixed(1)} ms; ${(churnWall / 1000).toFixed(1)} s wall, CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, syncs ${(syncMs.reduce((a, b) => a + b, 0) / 1000).toFixed(2)} s`);
    console.log(`  gc pauses during the churn: ${[...gcMs].map(([k, g]) => `${k} ${g.count} × = ${g.ms.toFixed(0)} ms`).join(', ')}`);
    delta('after the churn, per agent', before, mem(), AGENTS);
    console.log(`  agent 1's rendered text: ${blocks(agents[0] as NodeAgent)}; its render scratch ${scratchBytes(agents[0] as NodeAgent)}; ${kernelBytes()}; ${restoreBufferBytes()}`);

    // The parts of one agent's proxier state: a fresh first sync, one part kept alive at a time.
    const config = agents[0]?.proxierConfig as ProxierConfig;
    const { services, slices } = { services: sources[0]?.list<Service>('services') ?? [], slices: sources[0]?.list<EndpointSlice>('endpointslices') ?? [] };
    // Two syncs' parts kept, halved: what the kernel or the first sync keeps once is out of it.
    void sync(undefined, services, slices, config, { buffer: new RestoreBuffer() });
    // In a function of its own, so that nothing of the sync but the part outlives its frame.
    function partOf(keep: (state: SyncState, buffer: RestoreBuffer) => unknown): unknown {
      const buffer = new RestoreBuffer();
      return keep(sync(undefined, services, slices, config, { buffer }).state, buffer);
    }
    const part = (label: string, keep: (state: SyncState, buffer: RestoreBuffer) => unknown): void => {
      const a = mem();
      const held: unknown[] = [];
      for (let n = 0; n < 2; n++) held.push(partOf(keep));
      const b = mem();
      delta(`  state part: ${label}`, a, b, 2);
      held.length = 0;
    };
    type Entries = { entries: { ports: { info: unknown; endpoints: unknown[]; sepHashes: string }[]; rendered: { bytes: Uint8Array }; key: string; namespace: string; name: string }[] };
    part('whole state and its restore buffer', (s, b) => [s, b]);
    part('whole state', (s) => s);
    part('restore buffer (the first sync\'s text)', (_s, b) => b);
    part('entries (the state\'s array of ServiceEntry)', (s) => (s as unknown as Entries).entries);
    part('ports of every entry (PortEntry: info, endpoints, hashes)', (s) => (s as unknown as Entries).entries.map((e) => e.ports));
    part('endpoints of every port (EndpointInfo arrays)', (s) => (s as unknown as Entries).entries.map((e) => e.ports.map((p) => p.endpoints)));
    part('service port infos', (s) => (s as unknown as Entries).entries.map((e) => e.ports.map((p) => p.info)));
    part('SEP hashes', (s) => (s as unknown as Entries).entries.map((e) => e.ports.map((p) => p.sepHashes)));
    part('rendered text (Rendered ranges and their byte blocks)', (s) => (s as unknown as Entries).entries.map((e) => e.rendered));
    part('keys, namespaces, names', (s) => (s as unknown as Entries).entries.map((e) => [e.key, e.namespace, e.name]));
    {
      const state = sync(undefined, services, slices, config, {}).state;
      const a = mem();
      const memo = createSaveViewMemo();
      const viewed = iptablesSaveView(printRestoreText(syncedRuleset(state)), { family: config.family, backend: 'nft', memo });
      if (!viewed.ok) throw new Error(viewed.error.message);
      const b = mem();
      delta(`  with it: the save view's memo after one render of the tables (${memo.stats().linesParsed} lines)`, a, b);
    }
    for (const agent of agents) await agent.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
