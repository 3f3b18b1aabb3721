// Where the explorer's model comes from: a dump (fixed), or the live objects of `kubesvc up`
// (the informer's cache and the stored ClusterIP bitmap), built again when read after a change.
import type { KubeObject, RangeAllocation, ServiceNetworking } from '@kubesvc/api-types';
import type { ExplorerModel, TraceAnswer, TraceRequest } from '@kubesvc/explorer';
import type { ExplorerSource } from '@kubesvc/explorer/node';
import type { ProxierConfig } from '@kubesvc/proxy-iptables';
import { SERVICE_IPS_KEY } from '@kubesvc/apiserver';
import type { Informer } from '@kubesvc/runtime';
import type { Store } from '@kubesvc/store';
import { dumpOf, type Dump } from '../dump/load-dump.js';
import { explorerModelOf } from './explorer-model.js';
import { explorerTrace } from './explorer-trace.js';

export interface ExplorerSourceOptions {
  readonly proxier: ProxierConfig;
  /** The cluster's Service networking, parsed once from the flags (api-types' parseServiceNetworking). */
  readonly serviceNetworking: ServiceNetworking;
  /** The clock the Age column is measured with. */
  readonly now: () => number;
}

/** A dump: read-only, it never changes. */
export function dumpExplorerSource(dump: Dump, options: ExplorerSourceOptions): ExplorerSource {
  const model = explorerModelOf(dump, { mode: 'dump', source: dump.source, generation: 1, now: options.now(), proxier: options.proxier, serviceNetworking: options.serviceNetworking });
  return {
    model: () => model,
    subscribe: () => () => undefined,
    trace: (request) => explorerTrace(dump, options.proxier, request),
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
  options: ExplorerSourceOptions,
): Promise<LiveExplorerSource> {
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
    explorerModelOf(dump, { mode: 'live', source, generation: ++generation, now: options.now(), proxier: options.proxier, serviceNetworking: options.serviceNetworking });
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
      return explorerTrace(dump, options.proxier, request);
    },
    stop: () => {
      stopped = true;
      if (notifyTimer !== undefined) clearTimeout(notifyTimer);
      unsubscribe();
      listeners.clear();
    },
  };
}
