// Where the explorer's model comes from: a dump (fixed), or the live objects of `kubesvc up`
// (the informer's cache and the stored ClusterIP bitmap), recomputed after every change.
import type { KubeObject, RangeAllocation } from '@kubesvc/api-types';
import type { ExplorerModel } from '@kubesvc/explorer';
import type { ExplorerSource } from '@kubesvc/explorer/node';
import type { ProxierConfig } from '@kubesvc/proxy-iptables';
import { SERVICE_IPS_KEY, type Informer, type Store } from '@kubesvc/runtime';
import { dumpOf, type Dump } from '../dump/load-dump.js';
import { explorerModelOf } from './explorer-model.js';
import { explorerTrace } from './explorer-trace.js';

export interface ExplorerSourceOptions {
  readonly proxier: ProxierConfig;
  readonly serviceCIDRs: readonly string[];
  /** The clock the Age column is measured with. */
  readonly now: () => number;
}

/** A dump: read-only, it never changes. */
export function dumpExplorerSource(dump: Dump, options: ExplorerSourceOptions): ExplorerSource {
  const model = explorerModelOf(dump, { mode: 'dump', source: dump.source, generation: 1, now: options.now(), proxier: options.proxier, serviceCIDRs: options.serviceCIDRs });
  return {
    model: () => model,
    subscribe: () => () => undefined,
    trace: (request) => explorerTrace(dump, options.proxier, request),
  };
}

export interface LiveExplorerSource extends ExplorerSource {
  stop(): void;
}

const LIVE_RESOURCES = ['services', 'endpointslices', 'pods', 'namespaces'] as const;

/** The live cluster: the model is rebuilt after each change the informer applies. */
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
    explorerModelOf(dump, { mode: 'live', source, generation: ++generation, now: options.now(), proxier: options.proxier, serviceCIDRs: options.serviceCIDRs });
  let model = build();
  // One rebuild at a time; changes during a rebuild ask for one more.
  let running = false;
  let again = false;
  let stopped = false;
  const refresh = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        dump = await snapshot();
        model = build();
      } while (again && !stopped);
    } finally {
      running = false;
    }
    for (const listener of [...listeners]) listener();
  };
  const unsubscribe = informer.onChange(() => {
    if (!stopped) void refresh().catch(() => undefined);
  });
  return {
    model: () => model,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    trace: (request) => explorerTrace(dump, options.proxier, request),
    stop: () => {
      stopped = true;
      unsubscribe();
      listeners.clear();
    },
  };
}
