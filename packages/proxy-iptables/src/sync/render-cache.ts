// The rendered text of Services several proxiers share: kube-proxies of different nodes that
// sync the same objects (one thread's agents, whose API sources keep one copy of each object)
// write the same bytes for a Service whose rules have no node-dependent input. A sync given a
// cache (SyncOptions.renderCache) takes such a Service's text from it when the same Service
// object with the same slice objects was rendered under the same settings, and puts there
// what it renders itself. The cache is the caller's state, passed to each sync, as the restore
// buffer is: the sync stays a function of its arguments.
//
// What makes a Service's text node-independent here (a conservative reading of the rule
// builder, rule-builder.ts): a ClusterIP Service (a NodePort's or LoadBalancer's rules read the
// node's addresses and external traffic policy) without external IPs (their rules follow the
// external traffic policy), with internalTrafficPolicy not Local (its chain keeps only the
// node's own endpoints), no trafficDistribution, and none of its slices' endpoints with
// topology hints (which kube-proxy filters by the node's zone or name). Every other input of
// the text is the proxier's config, whose node-free part and the large-cluster mode key the
// entry.
//
// An entry is held through its Service object (a WeakMap): it goes once no proxier's state or
// cache holds that object any more, as a replaced or deleted Service's does.

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { sameObjects } from '@kubesvc/proxy';
import type { ProxierConfig } from '../proxier-config.js';
import { nodeFreeSettings, type Rendered } from './state.js';

interface Held {
  readonly slices: readonly EndpointSlice[];
  readonly key: string;
  readonly rendered: Rendered;
}

/** How a render cache was used so far. */
export interface RenderCacheStats {
  /** Services whose text a sync took from the cache. */
  readonly hits: number;
  /** Shareable Services a sync rendered itself (and put in the cache). */
  readonly stored: number;
}

/** Rendered Service text shared by the syncs of several proxiers (createRenderCache). */
export interface RenderCache {
  stats(): RenderCacheStats;
}

class Cache implements RenderCache {
  private readonly held = new WeakMap<Service, Held[]>();
  hits = 0;
  stored = 0;

  lookup(service: Service, slices: readonly EndpointSlice[], key: string): Rendered | undefined {
    const list = this.held.get(service);
    if (list === undefined) return undefined;
    for (const h of list) {
      if (h.key === key && sameObjects(h.slices, slices)) {
        this.hits++;
        return h.rendered;
      }
    }
    return undefined;
  }

  store(service: Service, slices: readonly EndpointSlice[], key: string, rendered: Rendered): void {
    const list = this.held.get(service) ?? [];
    // One entry per settings: a newer slice set for the same settings replaces the older.
    const at = list.findIndex((h) => h.key === key);
    const entry: Held = { slices: slices.slice(), key, rendered };
    if (at === -1) list.push(entry);
    else list[at] = entry;
    this.held.set(service, list);
    this.stored++;
  }

  stats(): RenderCacheStats {
    return { hits: this.hits, stored: this.stored };
  }
}

/** A cache for the syncs of several proxiers of one thread (SyncOptions.renderCache). */
export function createRenderCache(): RenderCache {
  return new Cache();
}

export function cacheOf(cache: RenderCache | undefined): Cache | undefined {
  return cache as Cache | undefined;
}

/** Whether a Service's text depends on nothing of the node (see the file's opening comment). */
export function nodeIndependent(service: Service, slices: readonly EndpointSlice[]): boolean {
  const spec = service.spec as (Service['spec'] & { readonly trafficDistribution?: string }) | undefined;
  if (spec === undefined) return false;
  if ((spec.type ?? 'ClusterIP') !== 'ClusterIP') return false;
  if ((spec.externalIPs ?? []).length > 0) return false;
  if (spec.internalTrafficPolicy === 'Local') return false;
  if (spec.trafficDistribution !== undefined && spec.trafficDistribution !== null) return false;
  for (const slice of slices) for (const endpoint of slice.endpoints ?? []) if (endpoint.hints !== undefined && endpoint.hints !== null) return false;
  return true;
}

/** The settings a node-independent Service's text depends on: the config but for the node's name, addresses and zone; and the large-cluster mode. */
export function renderKeyOf(config: ProxierConfig, largeClusterMode: boolean): string {
  return JSON.stringify([largeClusterMode, ...nodeFreeSettings(config)]);
}
