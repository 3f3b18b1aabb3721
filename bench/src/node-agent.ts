// Bench suite "node-agent": how soon the node agent's DNS answers for a Service after the
// informer sees it. Each iteration creates a Service through the registry (memory store, system
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
import { startNodeAgent, type NodeAgent } from '@kubesvc/node-agent';
import { openRegistry, type Registry } from '@kubesvc/apiserver';
import { startInformer, type Informer } from '@kubesvc/runtime';
import { openMemoryStore, systemClock, type Store } from '@kubesvc/store';
import type { BenchSuite, BenchTask } from './harness.js';

const BACKGROUND = 1_000;
const POLL_LIMIT_MS = 2_000;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? NaN : sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

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

export function nodeAgentSuite(): BenchSuite {
  return {
    name: 'node-agent',
    description: 'the node agent: DNS latency from an informer change to the answer',
    tasks: [dnsLatencyTask()],
  };
}
