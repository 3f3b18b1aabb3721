// What a sync keeps per Service for the next one, and the partial sync that follows the change:
// the Services and EndpointSlices are matched with the last call's (by position when the caller
// passes arrays of the same keys again, by key otherwise: @kubesvc/proxy's change tracking),
// only those that are other objects are derived again, and only those whose ports or endpoints
// derive to something else are written. What each Service claimed (its elements, chains and
// affinity sets) is kept with it, so that a rewritten Service releases its claims and what no
// Service claims any more is deleted, without a walk over every Service or the whole table.
// The text is the one upstream's syncProxyRules writes for the same partial sync (the
// general path, sync-rules.ts, walks every Service as upstream does; the two are compared
// by the sync tests). When two Services claim one name (Services sharing a key, or an
// external IP written by two Services) the general path is taken.
// upstream: pkg/proxy/nftables/proxier.go (v1.33: syncProxyRules, the partial sync's
// serviceChanged / skipServiceUpdate, nftElementStorage, staleChains);
// pkg/proxy/servicechangetracker.go and endpointschangetracker.go (which services changed).

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import {
  endpointsMap,
  matchByKey,
  matchByPosition,
  sameObjects,
  servicePortKey,
  type EndpointInfo,
  type Matched,
  type ServicePortInfo,
  type TrackedEntry,
  type TrackedState,
} from '@kubesvc/proxy';
import type { NftablesProxierConfig } from '../config.js';
import { PersistentMap, type PersistentMapEditor } from '../model/persistent-map.js';
import type { NftTable } from '../model/types.js';
import { isAffinitySetName, isServiceChainName, type NftServiceChainNames } from './chain-names.js';
import { localTexts, newClaims, writeServicePort, type Claims, type Storages, type SyncAccumulator } from './service-rules.js';
import { NO_ENDPOINTS, portEndpoints, servicePortsOf, STORED, syncModel, type StorageState, type SyncModel } from './sync-rules.js';
import { ElementStorage, ObjectTxWriter } from './tx.js';

/**
 * What a sync keeps of the Services it wrote, for the next (opaque: only syncNftables reads
 * it). Absent before the first sync.
 */
export interface NftablesSyncIndex {
  readonly _tag: 'NftablesSyncIndex';
}

/** One Service: its objects, what they derived to, and what its ports claimed. */
export interface ServiceEntry extends TrackedEntry {
  readonly ports: readonly ServicePortInfo<NftServiceChainNames>[];
  readonly endpoints: readonly (readonly EndpointInfo[])[];
  readonly claims: Claims;
}

/** Which Service (its key) claims each chain, affinity set, and element of each stored set or map. */
interface Owners {
  readonly chains: PersistentMap<string, string>;
  readonly affinitySets: PersistentMap<string, string>;
  /** In STORED order. */
  readonly elements: readonly PersistentMap<string, string>[];
}

interface IndexData extends NftablesSyncIndex {
  /** The config the entries were written with (another config: the general path). */
  readonly config: NftablesProxierConfig;
  /** The Services, each under a key of its own; undefined when some share a key. */
  readonly tracked: TrackedState<ServiceEntry> | undefined;
  /** Undefined when two Services claim one name. */
  readonly owners: Owners | undefined;
  /** When Services share a key: what each key derived to. */
  readonly texts: ReadonlyMap<string, string> | undefined;
  readonly noLocal: { readonly internal: number; readonly external: number };
}

function endpointText(ep: EndpointInfo): string {
  const text = `${ep.hostPort}/${ep.isLocal ? 'l' : ''}${ep.ready ? 'r' : ''}${ep.serving ? 's' : ''}${ep.terminating ? 't' : ''}`;
  // Hints choose endpoints (categorizeEndpoints): a change of them alone is a change. Their
  // names are kept sorted, so equal sets give equal text.
  const hints = ep.hints;
  return hints === undefined ? text : `${text}/${hints.zones.join(' ')}/${hints.nodes.join(' ')}`;
}

function portText(svc: ServicePortInfo, endpoints: readonly EndpointInfo[]): string {
  const { chains: _chains, ...fields } = svc;
  return JSON.stringify(fields) + ' ' + endpoints.map(endpointText).join(',');
}

/** What each service (`namespace/name` of its ports) derived to, to tell which changed (the change trackers' UpdatedServices). */
function modelTexts(model: SyncModel): Map<string, string> {
  const texts = new Map<string, string>();
  for (const svc of model.ports) {
    const key = `${svc.namespace}/${svc.name}`;
    const text = portText(svc, portEndpoints(model, svc));
    texts.set(key, texts.has(key) ? `${texts.get(key) ?? ''}\n${text}` : text);
  }
  return texts;
}

/** What one Service derived to (undefined when it has no port of the family). */
function entryText(entry: ServiceEntry): string | undefined {
  if (entry.ports.length === 0) return undefined;
  return entry.ports.map((svc, i) => portText(svc, entry.endpoints[i] ?? NO_ENDPOINTS)).join('\n');
}

function entryTexts(entries: readonly ServiceEntry[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const entry of entries) {
    const text = entryText(entry);
    const first = entry.ports[0];
    if (text !== undefined && first !== undefined) texts.set(`${first.namespace}/${first.name}`, text);
  }
  return texts;
}

/** The services whose derivation differs between `before` and `after`. */
export function changedServices(index: NftablesSyncIndex | undefined, after: GeneralInputs): Set<string> {
  const data = index as IndexData | undefined;
  const before = data === undefined ? new Map<string, string>() : (data.texts ?? entryTexts(data.tracked?.entries ?? []));
  const now = after.entries === undefined ? modelTexts(after.model) : entryTexts(after.entries);
  const changed = new Set<string>();
  for (const [key, text] of now) if (before.get(key) !== text) changed.add(key);
  for (const key of before.keys()) if (!now.has(key)) changed.add(key);
  return changed;
}

/** What the general path writes from: the model, and the Services as entries when each has a key of its own. */
export interface GeneralInputs {
  readonly model: SyncModel;
  readonly entries: readonly ServiceEntry[] | undefined;
  readonly matched: Matched<ServiceEntry> | undefined;
}

export function generalInputs(services: readonly Service[], slices: readonly EndpointSlice[], config: NftablesProxierConfig): GeneralInputs {
  const model = syncModel(services, slices, config);
  const matched = matchByKey<ServiceEntry>(undefined, services, slices, config.family);
  if (matched.count !== services.length) return { model, entries: undefined, matched: undefined };
  // The model's ports are the Services' in the same order (by namespace and name), each Service's together.
  const entries: ServiceEntry[] = [];
  let at = 0;
  for (let pos = 0; pos < matched.count; pos++) {
    const candidate = matched.work.get(pos);
    if (candidate === undefined) return { model, entries: undefined, matched: undefined };
    const ports: ServicePortInfo<NftServiceChainNames>[] = [];
    while (at < model.ports.length) {
      const svc = model.ports[at] as ServicePortInfo<NftServiceChainNames>;
      if (svc.namespace !== candidate.namespace || svc.name !== candidate.name) break;
      ports.push(svc);
      at++;
    }
    entries.push(entryOf(candidate, ports, ports.map((svc) => portEndpoints(model, svc))));
  }
  if (at !== model.ports.length) return { model, entries: undefined, matched: undefined };
  return { model, entries, matched };
}

function owned(entries: readonly ServiceEntry[]): Owners | undefined {
  const chains = new Map<string, string>();
  const affinitySets = new Map<string, string>();
  const elements = STORED.map(() => new Map<string, string>());
  const claim = (map: Map<string, string>, name: string, key: string): boolean => {
    const owner = map.get(name);
    if (owner !== undefined && owner !== key) return false;
    map.set(name, key);
    return true;
  };
  for (const entry of entries) {
    const { claims, key } = entry;
    for (const chain of claims.chains) if (!claim(chains, chain, key)) return undefined;
    for (const set of claims.affinitySets) if (!claim(affinitySets, set, key)) return undefined;
    for (let i = 0; i < claims.elements.length; i += 2) {
      if (!claim(elements[claims.elements[i] as number] as Map<string, string>, claims.elements[i + 1] as string, key)) return undefined;
    }
  }
  return { chains: PersistentMap.from(chains), affinitySets: PersistentMap.from(affinitySets), elements: elements.map((map) => PersistentMap.from(map)) };
}

/** The index the general path leaves, its entries' claims noted by syncRules. */
export function generalIndex(
  inputs: GeneralInputs,
  services: readonly Service[],
  slices: readonly EndpointSlice[],
  config: NftablesProxierConfig,
  noLocal: { readonly internal: number; readonly external: number },
): NftablesSyncIndex {
  const { entries, matched } = inputs;
  const data: IndexData = {
    _tag: 'NftablesSyncIndex',
    config,
    tracked:
      entries === undefined || matched === undefined
        ? undefined
        : { servicesIn: services.slice(), servicePos: matched.servicePos, slicesIn: slices.slice(), slicePos: matched.slicePos, entries },
    owners: entries === undefined ? undefined : owned(entries),
    texts: entries === undefined ? modelTexts(inputs.model) : undefined,
    noLocal: { internal: noLocal.internal, external: noLocal.external },
  };
  return data;
}

/** What the partial sync that follows the change writes and leaves. */
export interface PartialSync {
  readonly tx: ObjectTxWriter;
  /** The service and endpoint chains it (re)wrote: no longer stale. */
  readonly activeChains: ReadonlySet<string>;
  /** Service chains of the table that are no longer in use: flushed now, to be deleted later. */
  readonly staleChains: readonly string[];
  readonly storages: ReadonlyMap<string, PersistentMap<string, string>>;
  readonly noLocalEndpoints: { readonly internal: number; readonly external: number };
  readonly index: NftablesSyncIndex;
}

/** One Service derived again from its objects. */
function derived(candidate: TrackedEntry, config: NftablesProxierConfig): ServiceEntry {
  const ports = servicePortsOf(candidate.service, config.family);
  const endpoints = endpointsMap(candidate.slices, config.family, config.nodeName);
  return entryOf(
    candidate,
    ports,
    ports.map((svc) => endpoints.get(servicePortKey(svc.namespace, svc.name, svc.portName, svc.protocol)) ?? NO_ENDPOINTS),
  );
}

/** A Service's entry with no claims yet: its tracked objects, its ports and each port's endpoints. */
function entryOf(candidate: TrackedEntry, ports: ServiceEntry['ports'], endpoints: ServiceEntry['endpoints']): ServiceEntry {
  return {
    key: candidate.key,
    namespace: candidate.namespace,
    name: candidate.name,
    service: candidate.service,
    slices: candidate.slices,
    ports,
    endpoints,
    claims: newClaims(),
  };
}

function byOrder<K>(map: PersistentMap<K, unknown>): (a: K, b: K) => number {
  return (a, b) => (map.orderOf(a) ?? 0) - (map.orderOf(b) ?? 0);
}

type Names = PersistentMapEditor<string, string>;

/** `visit` over each name `entry` claims (its chains, affinity sets and elements, each in its map), until one gives false. */
function everyClaim(entry: ServiceEntry, chains: Names, sets: Names, elements: readonly Names[], visit: (map: Names, name: string) => boolean): boolean {
  const { claims } = entry;
  for (const chain of claims.chains) if (!visit(chains, chain)) return false;
  for (const set of claims.affinitySets) if (!visit(sets, set)) return false;
  for (let i = 0; i < claims.elements.length; i += 2) {
    if (!visit(elements[claims.elements[i] as number] as Names, claims.elements[i + 1] as string)) return false;
  }
  return true;
}

/** Releases what `entry` claimed; false when another Service holds one of its claims (then the general path is taken). */
function release(entry: ServiceEntry, chains: Names, sets: Names, elements: readonly Names[]): boolean {
  return everyClaim(entry, chains, sets, elements, (map, name) => {
    const owner = map.get(name);
    if (owner === undefined) return true;
    if (owner !== entry.key) return false;
    map.delete(name);
    return true;
  });
}

/** Claims what `entry` claims now; false when another Service holds one of them. */
function claim(entry: ServiceEntry, chains: Names, sets: Names, elements: readonly Names[]): boolean {
  return everyClaim(entry, chains, sets, elements, (map, name) => {
    const owner = map.get(name);
    if (owner !== undefined && owner !== entry.key) return false;
    map.set(name, entry.key);
    return true;
  });
}

/**
 * The partial sync of the Services whose objects changed, from the last sync's index; undefined
 * when the general path must be taken (no index, another config, Services sharing a key or a
 * name). `table` is the table after the stale chains' deletion, `stale` the stale chains left.
 */
export function partialSync(
  index: NftablesSyncIndex | undefined,
  storageState: StorageState,
  table: NftTable | undefined,
  stale: ReadonlyMap<string, number>,
  services: readonly Service[],
  slices: readonly EndpointSlice[],
  config: NftablesProxierConfig,
): PartialSync | undefined {
  const data = index as IndexData | undefined;
  if (data === undefined || data.tracked === undefined || data.owners === undefined || data.config !== config || table === undefined) return undefined;
  const prev = data.tracked;
  const matched = matchByPosition(prev, services, slices) ?? matchByKey(prev, services, slices, config.family);
  if (matched.count !== services.length) return undefined;

  const entries: ServiceEntry[] = matched.base === undefined ? new Array<ServiceEntry>(matched.count) : matched.base.slice();
  const changed: number[] = [];
  const released: ServiceEntry[] = [...matched.removed];
  for (const [pos, candidate] of matched.work) {
    const previous = candidate.previous;
    if (previous !== undefined && candidate.service === previous.service && sameObjects(candidate.slices, previous.slices)) {
      entries[pos] = previous;
      continue;
    }
    const entry = derived(candidate, config);
    if (previous !== undefined && entryText(previous) === entryText(entry)) {
      // Other objects, the same ports and endpoints: nothing to write.
      entries[pos] = { ...entry, claims: previous.claims };
      continue;
    }
    entries[pos] = entry;
    changed.push(pos);
    if (previous !== undefined) released.push(previous);
  }
  changed.sort((a, b) => a - b);

  const owners = data.owners;
  const chainOwners = owners.chains.edit();
  const setOwners = owners.affinitySets.edit();
  const elementOwners = owners.elements.map((map) => map.edit());
  for (const entry of released) if (!release(entry, chainOwners, setOwners, elementOwners)) return undefined;

  const tx = new ObjectTxWriter();
  const made = (of: 'set' | 'map', name: string): ElementStorage => new ElementStorage(of, name, storageState.get(name) ?? new Map(), false);
  const storages: Storages = {
    clusterIPs: made('set', STORED[0]?.[1] ?? ''),
    serviceIPs: made('map', STORED[1]?.[1] ?? ''),
    firewallIPs: made('map', STORED[2]?.[1] ?? ''),
    noEndpointServices: made('map', STORED[3]?.[1] ?? ''),
    noEndpointNodePorts: made('map', STORED[4]?.[1] ?? ''),
    serviceNodePorts: made('map', STORED[5]?.[1] ?? ''),
  };
  const acc: SyncAccumulator = { tx, storages, activeChains: new Set(), activeAffinitySets: new Set(), noLocalEndpoints: { internal: 0, external: 0 }, record: undefined };
  STORED.forEach(([, , which], i) => {
    storages[which].claim = (key) => acc.record?.elements.push(i, key);
  });
  const local = localTexts(config);
  for (const pos of changed) {
    const entry = entries[pos] as ServiceEntry;
    acc.record = entry.claims;
    entry.ports.forEach((svc, i) => writeServicePort(acc, config, local, svc, entry.endpoints[i] ?? NO_ENDPOINTS, false));
    if (!claim(entry, chainOwners, setOwners, elementOwners)) return undefined;
  }
  acc.record = undefined;

  // Chains no longer in use are flushed now (the stale ones again), in the table's order.
  const chains = PersistentMap.from(table.chains);
  const candidates = new Set(stale.keys());
  for (const entry of released) for (const chain of entry.claims.chains) candidates.add(chain);
  const staleChains = [...candidates].filter((chain) => isServiceChainName(chain) && chains.has(chain) && !chainOwners.has(chain)).sort(byOrder(chains));
  for (const chain of staleChains) tx.flushChain(chain);
  // Affinity sets no longer in use go at once.
  const sets = PersistentMap.from(table.sets);
  const unusedSets = new Set<string>();
  for (const entry of released) {
    for (const set of entry.claims.affinitySets) if (isAffinitySetName(set) && sets.get(set)?.kind === 'set' && !setOwners.has(set)) unusedSets.add(set);
  }
  for (const set of [...unusedSets].sort(byOrder(sets))) tx.deleteSet('set', set);
  // Elements no Service claims any more.
  const unclaimed = STORED.map(() => new Set<string>());
  for (const entry of released) {
    const { elements } = entry.claims;
    for (let i = 0; i < elements.length; i += 2) {
      const at = elements[i] as number;
      const key = elements[i + 1] as string;
      if (!(elementOwners[at] as PersistentMapEditor<string, string>).has(key)) unclaimed[at]?.add(key);
    }
  }
  const after = new Map<string, PersistentMap<string, string>>();
  STORED.forEach(([, name, which], i) => {
    storages[which].deleteKeys(tx, unclaimed[i] ?? []);
    after.set(name, storages[which].snapshot());
  });

  let internal = data.noLocal.internal + acc.noLocalEndpoints.internal;
  let external = data.noLocal.external + acc.noLocalEndpoints.external;
  for (const entry of released) {
    internal -= entry.claims.internal;
    external -= entry.claims.external;
  }
  const next: IndexData = {
    _tag: 'NftablesSyncIndex',
    config,
    // Copies: a caller may change its arrays in place before the next sync.
    tracked: { servicesIn: services.slice(), servicePos: matched.servicePos, slicesIn: slices.slice(), slicePos: matched.slicePos, entries },
    owners: { chains: chainOwners.done(), affinitySets: setOwners.done(), elements: elementOwners.map((map) => map.done()) },
    texts: undefined,
    noLocal: { internal, external },
  };
  return { tx, activeChains: acc.activeChains, staleChains, storages: after, noLocalEndpoints: { internal, external }, index: next };
}
