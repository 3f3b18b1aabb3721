// Bench suite "node-agent": how soon the node agent's DNS answers for a Service after the
// informer sees it, and what a kube-proxy fed through the API (startApiSource, as `kubesvc up
// --nodes N` runs one per node) keeps on the heap. Each iteration creates a Service through the registry (memory store, system
// clock, a cluster of BACKGROUND Services already in the zone) and asks the agent's DNS server
// over UDP (Node's resolver, c-ares) until the name resolves, bounded by POLL_LIMIT_MS.
//
// tinybench times the whole iteration: the registry write, the watch, the informer, the
// coalescing timer (10 ms), the rebuild and the query. The figure the project targets, from the
// informer's change to the first answer, is measured inside with a listener on the same
// informer and reported as metrics (median and worst of the iterations), with the agent's own
// change-to-swap figure (clock milliseconds).
import { Resolver } from 'node:dns/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Service } from '@kubesvc/api-types';
import { startApiSource, startNodeAgent, type ApiSource, type NodeAgent } from '@kubesvc/node-agent';
import { openRegistry, startApiServer, type ApiServer, type Registry } from '@kubesvc/apiserver';
import { startInformer, type Informer } from '@kubesvc/runtime';
import { openMemoryStore, systemClock, type Store } from '@kubesvc/store';
import { fullGC } from './full-gc.js';
import type { BenchSuite, BenchTask } from './harness.js';
import { median } from './median.js';

const BACKGROUND = 1_000;
const POLL_LIMIT_MS = 2_000;

function dnsLatencyTask(): BenchTask {
  let dir = '';
  let store: Store | undefined;
  let registry: Registry | undefined;
  let informer: Informer | undefined;
  let agent: NodeAgent | undefined;
  let resolver: Resolver | undefined;
  let n = 0;
  const seenAt = new Map<string, number>();
  const changeToAnswer: number[] = [];
  const changeToSwap: number[] = [];
  const buildMs: number[] = [];
  return {
    name: `DNS: a new Service answers (registry write to UDP answer), ${BACKGROUND.toLocaleString('en-US')} Services in the zone`,
    setup: async () => {
      dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-node-'));
      store = openMemoryStore({ clock: systemClock });
      const opened = await openRegistry({ store, clock: systemClock, seed: 1, serviceClusterIPRanges: ['10.96.0.0/16'] });
      if (!opened.ok) throw new Error(opened.error.message);
      registry = opened.value;
      await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      for (let i = 0; i < BACKGROUND; i++) {
        const created = await registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: `bg-${i}` }, spec: { selector: { app: `bg-${i}` }, ports: [{ name: 'http', port: 80 }] } } as Service);
        if (!created.ok) throw new Error(created.error.message);
      }
      informer = await startInformer({ store, resources: ['services', 'endpointslices', 'namespaces'] });
      const started = await startNodeAgent({ source: informer, clock: systemClock, nodeName: 'node-1', nodeIP: '192.0.2.10', proxyMode: 'none', dnsPort: 0 });
      if (!started.ok) throw new Error(started.error.message);
      agent = started.value;
      informer.onChange((change) => {
        const name = change.object.metadata?.name;
        if (change.resource === 'services' && change.type === 'ADDED' && name !== undefined) seenAt.set(name, performance.now());
      });
      resolver = new Resolver({ timeout: 200, tries: 1 });
      resolver.setServers([`127.0.0.1:${agent.dns?.port ?? 0}`]);
    },
    fn: async () => {
      if (registry === undefined || resolver === undefined || agent === undefined) throw new Error('setup did not run');
      const name = `latency-${n++}`;
      const created = await registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: name }, ports: [{ port: 80 }] } } as Service);
      if (!created.ok) throw new Error(created.error.message);
      const deadline = performance.now() + POLL_LIMIT_MS;
      for (;;) {
        const answer = await resolver.resolve4(`${name}.default.svc.cluster.local`).catch(() => undefined);
        if (answer !== undefined && answer[0] === created.value.spec?.clusterIP) break;
        if (performance.now() > deadline) throw new Error(`${name} did not resolve within ${POLL_LIMIT_MS} ms`);
        await new Promise((r) => setTimeout(r, 1));
      }
      const seen = seenAt.get(name);
      if (seen !== undefined) changeToAnswer.push(performance.now() - seen);
      seenAt.delete(name);
      const swap = agent.lastDnsRebuild();
      if (swap !== undefined) {
        changeToSwap.push(swap.latencyMs);
        buildMs.push(swap.buildMs);
      }
    },
    target: { medianMs: 100, source: 'the node agent design target: DNS answers for a change within 100 ms' },
    metrics: () => {
      const figures = {
        changeToAnswerMedianMs: Math.round(median(changeToAnswer) * 100) / 100,
        changeToAnswerMaxMs: Math.round(Math.max(...changeToAnswer) * 100) / 100,
        changeToSwapMedianMs: median(changeToSwap),
        zoneBuildMedianMs: Math.round(median(buildMs) * 100) / 100,
        services: n,
      };
      void agent?.stop().then(() => {
        informer?.stop();
        return store?.close();
      });
      rmSync(dir, { recursive: true, force: true });
      return figures;
    },
  };
}

/** Services (each with one EndpointSlice of two endpoints) the API-fed kube-proxies list. */
const API_SERVICES = 10_000;
/** API-fed kube-proxies measured together; the heap growth divided by this is one's share. */
const API_AGENTS = 4;

function mib(bytes: number): number {
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}

/**
 * API_AGENTS kube-proxies (iptables mode, no DNS), each on its own startApiSource, over
 * API_SERVICES Services and their slices. Setup measures the heap each keeps: the source's
 * cache alone first, then the whole agent (cache, proxier state, the last sync's rules); then
 * it stops the agents. The timed work is one Service write reaching every source's cache
 * through its own watch.
 */
function apiFedAgentsTask(): BenchTask {
  let dir = '';
  let store: Store | undefined;
  let registry: Registry | undefined;
  let server: ApiServer | undefined;
  const sources: ApiSource[] = [];
  const agents: NodeAgent[] = [];
  let sourceBytes = 0;
  let agentBytes = 0;
  let n = 0;
  return {
    name: `API-fed kube-proxies: heap per agent, and a Service write reaching ${API_AGENTS} sources through their watches, ${API_SERVICES.toLocaleString('en-US')} Services and slices`,
    setup: async () => {
      dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-api-agents-'));
      store = openMemoryStore({ clock: systemClock });
      const opened = await openRegistry({ store, clock: systemClock, seed: 1, serviceClusterIPRanges: ['10.96.0.0/16'] });
      if (!opened.ok) throw new Error(opened.error.message);
      registry = opened.value;
      await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      for (let i = 0; i < API_SERVICES; i++) {
        const name = `svc-${i}`;
        const created = await registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } } as Service);
        if (!created.ok) throw new Error(created.error.message);
        const slice = await registry.create('endpointslices', 'default', {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: { name: `${name}-1`, labels: { 'kubernetes.io/service-name': name } },
          addressType: 'IPv4',
          endpoints: [0, 1].map((k) => ({ addresses: [`10.${(i >> 8) & 255}.${i & 255}.${k + 1}`], conditions: { ready: true }, nodeName: `node-${k + 1}` })),
          ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        });
        if (!slice.ok) throw new Error(slice.error.message);
      }
      server = await startApiServer({ registry, token: 'bench' });
      const url = server.url;
      const start = () => startApiSource({ server: url, token: 'bench', resources: ['services', 'endpointslices'] });
      // One source and agent first and stopped, so that code compiled on first use is not counted.
      const warm = await start();
      const warmAgent = await startNodeAgent({ source: warm, clock: systemClock, nodeName: 'warm', nodeIP: '127.0.0.9', clusterCIDR: '10.0.0.0/8', dataDir: join(dir, 'warm'), dnsPort: false });
      if (!warmAgent.ok) throw new Error(warmAgent.error.message);
      await warmAgent.value.stop();
      await warm.stop();
      fullGC();
      const before = process.memoryUsage().heapUsed;
      for (let k = 0; k < API_AGENTS; k++) sources.push(await start());
      fullGC();
      const withSources = process.memoryUsage().heapUsed;
      for (const [k, source] of sources.entries()) {
        const started = await startNodeAgent({ source, clock: systemClock, nodeName: `node-${k + 1}`, nodeIP: `127.0.0.${k + 2}`, clusterCIDR: '10.0.0.0/8', dataDir: join(dir, `node-${k + 1}`), dnsPort: false });
        if (!started.ok) throw new Error(started.error.message);
        agents.push(started.value);
      }
      fullGC();
      const withAgents = process.memoryUsage().heapUsed;
      sourceBytes = (withSources - before) / API_AGENTS;
      agentBytes = (withAgents - before) / API_AGENTS;
      // The timed part measures the watches alone: four iptables proxies each writing the whole
      // tables of 10,000 Services after every change would measure their syncs instead.
      for (const a of agents.splice(0)) await a.stop();
    },
    fn: async () => {
      if (registry === undefined) throw new Error('setup did not run');
      const name = `fanout-${n++}`;
      const created = await registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }] } } as Service);
      if (!created.ok) throw new Error(created.error.message);
      const deadline = performance.now() + POLL_LIMIT_MS;
      while (!sources.every((s) => s.get('services', 'default', name) !== undefined)) {
        if (performance.now() > deadline) throw new Error(`${name} did not reach every source within ${POLL_LIMIT_MS} ms`);
        await new Promise((r) => setTimeout(r, 1));
      }
    },
    target: { medianMs: 100, source: 'a change reaches every node\'s source within 100 ms' },
    metrics: () => {
      const figures = { agents: API_AGENTS, services: API_SERVICES, sourceHeapMiBPerAgent: mib(sourceBytes), agentHeapMiBPerAgent: mib(agentBytes) };
      void (async () => {
        for (const a of agents) await a.stop();
        for (const s of sources) await s.stop();
        await server?.close();
        await store?.close();
        rmSync(dir, { recursive: true, force: true });
      })();
      return figures;
    },
  };
}

export function nodeAgentSuite(): BenchSuite {
  return {
    name: 'node-agent',
    description: 'the node agent: DNS latency from an informer change to the answer; API-fed kube-proxies: heap per agent and watch fan-out',
    tasks: [dnsLatencyTask(), apiFedAgentsTask()],
  };
}
