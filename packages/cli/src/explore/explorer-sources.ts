// Where the explorer's model comes from: a dump (fixed), or the live objects of `kubesvc up`
// (the informer's cache and the stored ClusterIP bitmap), built again when read after a change.
// A dump with Nodes also answers as kube-proxy on each of them (the page's node picker), and
// traces a packet as sent on every Node (`kubesvc trace --all-nodes`).
import { err, ok, type KubeObject, type Pod, type RangeAllocation, type ServiceNetworking } from '@kubesvc/api-types';
import type { ExplorerModel, ModelAnswer, ReplayRequest, TraceAnswer, TraceRequest } from '@kubesvc/explorer';
import type { ExplorerSource } from '@kubesvc/explorer/node';
import type { ProxierConfig } from '@kubesvc/proxy-iptables';
import { SERVICE_IPS_KEY, type ContainerRuntime } from '@kubesvc/apiserver';
import type { Informer } from '@kubesvc/runtime';
import type { Store } from '@kubesvc/store';
import { dumpOf, type Dump } from '../dump/load-dump.js';
import { findDumpNode } from '../logic/nodes.js';
import { explorerModelOf } from './explorer-model.js';
import { replayFromPod } from './explorer-replay.js';
import { explorerNodeMatrix, proxierOfNodeNamed, type ProxierOfNode } from './explorer-nodes.js';
import { explorerTrace } from './explorer-trace.js';

export interface ExplorerSourceOptions {
  readonly proxier: ProxierConfig;
  /** The cluster's Service networking, parsed once from the flags (api-types' parseServiceNetworking). */
  readonly serviceNetworking: ServiceNetworking;
  /** The clock the Age column is measured with. */
  readonly now: () => number;
}

/** `kubesvc up --dataplane netns`: which pods are network namespaces, and the runtime that execs in them. */
export interface LivePodNetwork {
  readonly isSandbox: (pod: Pod) => boolean;
  readonly runtime: Pick<ContainerRuntime, 'exec'>;
}

export interface DumpExplorerSourceOptions extends ExplorerSourceOptions {
  /** kube-proxy's config on a Node of the dump (`kubesvc rules --node`'s): the page's node picker and node matrix use it. */
  readonly proxierOf: ProxierOfNode;
}

/** A dump: read-only, it never changes. Its models as each Node sees them are built when first asked for, once. */
export function dumpExplorerSource(dump: Dump, options: DumpExplorerSourceOptions): ExplorerSource {
  const now = options.now();
  const modelOf = (proxier: ProxierConfig, node?: string): ExplorerModel =>
    explorerModelOf(dump, { mode: 'dump', source: dump.source, generation: 1, now, proxier, serviceNetworking: options.serviceNetworking, ...(node !== undefined ? { node } : {}) });
  const model = modelOf(options.proxier);
  const asNode = new Map<string, ModelAnswer>();
  return {
    model: () => model,
    subscribe: () => () => undefined,
    trace: (request) => {
      if (request.node === undefined) return explorerTrace(dump, options.proxier, request);
      const proxier = proxierOfNodeNamed(dump, request.node, options.proxierOf);
      return proxier.ok ? explorerTrace(dump, proxier.value, request) : proxier;
    },
    modelAsNode: (node) => {
      let answer = asNode.get(node);
      if (answer === undefined) {
        const proxier = proxierOfNodeNamed(dump, node, options.proxierOf);
        answer = proxier.ok ? ok(modelOf(proxier.value, node)) : proxier;
        // Only the dump's Nodes are kept: a page cannot grow the map with made-up names.
        if (proxier.ok) asNode.set(node, answer);
      }
      return answer;
    },
    matrix: (request) => explorerNodeMatrix(dump, options.proxierOf, request),
  };
}

export interface LiveExplorerSource extends ExplorerSource {
  model(): Promise<ExplorerModel>;
  trace(request: TraceRequest): Promise<TraceAnswer>;
  stop(): void;
}

const LIVE_RESOURCES = ['services', 'endpointslices', 'pods', 'namespaces'] as const;

/**
 * The page's events come no sooner after a rebuild than this many times the rebuild's own
 * duration, so that a page left open on a busy cluster costs the control plane at most about a
 * fifth of its time: a model of thousands of Services takes tens of milliseconds to build.
 */
const REBUILD_SPACING = 4;

/**
 * The live cluster. The model is built on demand: a change only marks it stale, and the next
 * reader (a page's request, or an open event stream after the change) builds it once for
 * everyone. Nothing is built while nobody looks, so an apiserver under a burst of writes with
 * no page open spends nothing on the explorer.
 */
export async function startLiveExplorerSource(
  informer: Informer,
  store: Store,
  source: string,
  options: ExplorerSourceOptions & { readonly podNetwork?: LivePodNetwork },
): Promise<LiveExplorerSource> {
  const podNetwork = options.podNetwork;
  let generation = 0;
  const listeners = new Set<() => void>();
  const snapshot = async (): Promise<Dump> => {
    const objects: KubeObject[] = LIVE_RESOURCES.flatMap((r) => [...informer.list(r)]);
    const stored = await store.get(SERVICE_IPS_KEY);
    if (stored.kv !== undefined) objects.push({ apiVersion: 'v1', kind: 'RangeAllocation', ...(JSON.parse(stored.kv.value) as Omit<RangeAllocation, 'kind' | 'apiVersion'>) } as RangeAllocation);
    return dumpOf(source, objects);
  };
  let dump = await snapshot();
  const build = (): ExplorerModel =>
    explorerModelOf(dump, {
      mode: 'live',
      source,
      generation: ++generation,
      now: options.now(),
      proxier: options.proxier,
      serviceNetworking: options.serviceNetworking,
      ...(podNetwork === undefined ? {} : { sandbox: podNetwork.isSandbox }),
    });
  let model = build();
  let stale = false;
  let stopped = false;
  let building: Promise<void> | undefined;
  let lastEnd = 0;
  let lastCost = 0;
  const rebuild = async (): Promise<void> => {
    stale = false;
    const started = performance.now();
    try {
      dump = await snapshot();
      model = build();
    } catch (error) {
      stale = true;
      throw error;
    } finally {
      lastEnd = performance.now();
      lastCost = lastEnd - started;
    }
  };
  /** Builds the model if a change came since the last build; one build at a time, shared. */
  const fresh = async (): Promise<void> => {
    for (;;) {
      if (building !== undefined) {
        await building;
        continue;
      }
      if (!stale || stopped) return;
      building = rebuild().finally(() => {
        building = undefined;
      });
    }
  };
  let notifyTimer: NodeJS.Timeout | undefined;
  const notify = (): void => {
    notifyTimer = undefined;
    if (stopped) return;
    for (const listener of [...listeners]) listener();
  };
  const unsubscribe = informer.onChange(() => {
    if (stopped) return;
    stale = true;
    if (listeners.size === 0 || notifyTimer !== undefined) return;
    notifyTimer = setTimeout(notify, Math.max(0, lastEnd + REBUILD_SPACING * lastCost - performance.now()));
  });
  return {
    model: async () => {
      await fresh();
      return model;
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    trace: async (request) => {
      await fresh();
      // The live view has no node picker: it watches no Nodes, so a trace as one is refused.
      if (request.node !== undefined) {
        const node = findDumpNode(dump, request.node, 'node');
        return err({ _tag: 'ErrExplorerNode', message: node.ok ? `node ${JSON.stringify(request.node)}: the live explorer traces as its own kube-proxy only` : node.error.message });
      }
      return explorerTrace(dump, options.proxier, request);
    },
    // Real requests need the pod network: without it the handler answers that replay is not available.
    ...(podNetwork === undefined
      ? {}
      : {
          replay: (request: ReplayRequest) =>
            replayFromPod(request, {
              runtime: podNetwork.runtime,
              isSandbox: podNetwork.isSandbox,
              pod: (namespace, name) => (informer.list('pods') as readonly Pod[]).find((p) => (p.metadata.namespace ?? 'default') === namespace && p.metadata.name === name),
            }),
        }),
    stop: () => {
      stopped = true;
      if (notifyTimer !== undefined) clearTimeout(notifyTimer);
      unsubscribe();
      listeners.clear();
    },
  };
}
