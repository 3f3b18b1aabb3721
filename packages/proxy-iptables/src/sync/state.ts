// What a sync keeps for the next one (the state, per Service its ports, endpoints and rendered
// text) and the result types; see sync.ts for how a sync uses them.

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { nodeTopologyOf, type EndpointInfo } from '@kubesvc/proxy';
import type { RuleStats } from '../generate/generate-rules.js';
import type { ProxierConfig } from '../proxier-config.js';
import type { StatisticCache } from '../generate/rule-builder.js';
import type { Ruleset } from '../ruleset.js';
import type { ServicePortInfo } from '../service-ports.js';
import type { RestoreBuffer } from './restore-buffer.js';
import type { RenderScratch } from './render-bytes.js';
import type { RenderCache } from './render-cache.js';

export interface SyncOptions {
  /** Force a full sync (every chain written, stale chains deleted). */
  readonly full?: boolean;
  /**
   * The buffer to write the restore text into, kept by the caller from one sync to the next so
   * that a sync takes no fresh memory for its text (restore-buffer.ts). The result's
   * restoreBytes is a view of it, written over by the next sync given the same buffer. Absent:
   * the text is not copied at all; restoreChunks are views of the bytes the new state keeps
   * (restore-buffer.ts, GatherText), and restoreBytes joins them into a new buffer of the text's
   * size when first read.
   */
  readonly buffer?: RestoreBuffer;
  /**
   * Rendered Service text shared with other proxiers' syncs of the same objects
   * (render-cache.ts): a node-independent Service rendered by one is taken by the others. The
   * text is the same as without it.
   */
  readonly renderCache?: RenderCache;
}

/** The proxier settings, plus how often a sync is full. */
export type SyncConfig = ProxierConfig & {
  /**
   * Every Nth sync is a full one (N-1 partial syncs follow each full sync); absent: only the
   * first sync, a config change, a largeClusterMode flip or `{ full: true }` make one.
   * Upstream uses a period of time (FullSyncPeriod, 1 h) instead of a count.
   */
  readonly fullSyncEvery?: number;
};

export interface SyncStats {
  /** Whether this sync was full. */
  readonly full: boolean;
  /** Lines of restoreText. */
  readonly lines: number;
  /** UTF-8 bytes of restoreText. */
  readonly bytes: number;
  /** Chain declaration lines written, both tables (those of deleted chains included). */
  readonly chainsWritten: number;
  /** `-X` lines. */
  readonly chainsDeleted: number;
  /** Services (namespace/name) added, removed, or whose service ports or endpoints changed since the last sync. */
  readonly servicesChanged: number;
  /** What generateRules reports, for the whole state after this sync. */
  readonly rules: RuleStats;
}

/**
 * What a sync leaves for the next one. Persistent: a sync never changes the state it is given,
 * so an old state stays usable (it describes the tables as that sync left them).
 */
export interface SyncState {
  /** Syncs made so far, this one included. */
  readonly syncs: number;
  /** Partial syncs since the last full one. */
  readonly partialSinceFull: number;
  readonly largeClusterMode: boolean;
}

/** syncChanges' position of each key (namespace/name) in the object arrays it syncs. */
export interface SyncIndexes {
  readonly services: ReadonlyMap<string, number>;
  readonly slices: ReadonlyMap<string, number>;
}

export interface SyncResult {
  readonly state: SyncState;
  /**
   * The restore text's UTF-8 bytes, for `iptables-restore --noflush`: a view of the buffer
   * (SyncOptions.buffer), or, without one, restoreChunks joined into a new buffer when first read.
   */
  readonly restoreBytes: Uint8Array;
  /**
   * The same bytes as pieces, in order, for a writer that takes them as they are (a file written
   * piece by piece, a pipe): with a buffer of the caller's, its one view (restoreBytes, written
   * over by the next sync given that buffer); without, views of the bytes the new state keeps,
   * which no sync writes over, so that the text is never copied. They are the state's: read them,
   * never write into them.
   */
  readonly restoreChunks: readonly Uint8Array[];
  /**
   * The same text as a string, decoded from restoreBytes when first read. With a buffer of the
   * caller's, read it before the next sync given that buffer (it then throws).
   */
  readonly restoreText: string;
  readonly stats: SyncStats;
}

/** One service port as last synced. */
export interface PortEntry {
  readonly info: ServicePortInfo;
  readonly endpoints: readonly EndpointInfo[];
  /**
   * The KUBE-SEP- name of each endpoint, so that an unchanged endpoint is never hashed again:
   * their hashes, concatenated in the endpoints' order (endpointChainHashes, sepNameAt). One
   * string, not an array of names: a large first sync makes one per service port, and its
   * scavenges copy every object the state holds.
   */
  readonly sepHashes: string;
}

/**
 * The text one Service contributes, as ranges of a block of bytes (render-bytes.ts) that several
 * Services share; every range is whole lines, each ending in "\n".
 */
export interface Rendered {
  readonly bytes: Uint8Array;
  /** Its filter rules. */
  readonly filterAt: number;
  readonly filterBytes: number;
  readonly filterLines: number;
  /** Its KUBE-SERVICES / KUBE-NODEPORTS nat rules: what a partial sync writes for an unchanged service. */
  readonly topAt: number;
  readonly topBytes: number;
  readonly topLines: number;
  /** All its nat rules, top-level and per-service chains, in writing order. */
  readonly fullAt: number;
  readonly fullBytes: number;
  readonly fullLines: number;
  /**
   * Its per-service nat chains' declarations, one `:CHAIN - [0:0]` line each, which
   * renderedChains reads back when a sync needs the names (no array per service).
   */
  readonly declAt: number;
  readonly declBytes: number;
  readonly chainCount: number;
}

const decoder = new TextDecoder();

/** The per-service nat chains of `rendered`, in declaration order, from its declarations. */
export function renderedChains(rendered: Rendered): string[] {
  const chains: string[] = [];
  if (rendered.declBytes === 0) return chains;
  // One decoding, and the names are slices of it.
  const text = decoder.decode(rendered.bytes.subarray(rendered.declAt, rendered.declAt + rendered.declBytes));
  let at = 0;
  while (at < text.length) {
    const space = text.indexOf(' ', at);
    const end = text.indexOf('\n', space);
    if (space < 0 || end < 0) break;
    chains.push(text.slice(at + 1, space));
    at = end + 1;
  }
  return chains;
}

export interface ServiceEntry {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly service: Service;
  /** Its EndpointSlices of the proxier's family (the last listing of each name), in input order. */
  readonly slices: readonly EndpointSlice[];
  readonly ports: readonly PortEntry[];
  readonly endpointCount: number;
  readonly rendered: Rendered;
}

/** The fixed parts of the text, for one config. */
export interface Frame {
  readonly filterChains: number;
  readonly natChains: number;
  /** The head's and the tail's rules (the fixed chains' rules before and after the Services'). */
  readonly head: Rendered;
  readonly tail: Rendered;
  /** `*filter`, the fixed filter chains' declarations and the head's filter rules. */
  readonly filterOpen: Uint8Array;
  /** The tail's filter rules, COMMIT, `*nat` and the fixed nat chains' declarations. */
  readonly natOpen: Uint8Array;
}

export interface StateData extends SyncState {
  readonly configKey: string;
  readonly config: ProxierConfig;
  readonly statistics: StatisticCache;
  readonly frame: Frame;
  /** The streams a sync renders into before it packs the bytes (render-bytes.ts): memory passed from state to state, no content. */
  readonly scratch: RenderScratch;
  /**
   * The arrays of the last call, copied, with per element the index of its entry (-1: ignored).
   * Their keys are not kept: a later sync needs them only for the elements it finds replaced,
   * and a first sync would otherwise keep a string per object alive.
   */
  readonly servicesIn: readonly Service[];
  readonly servicePos: Int32Array;
  readonly slicesIn: readonly EndpointSlice[];
  readonly slicePos: Int32Array;
  /**
   * Set by syncChanges: the position of each key (namespace/name) in servicesIn and slicesIn,
   * which then list each key once. Shared with the next state while no change adds or removes
   * a key, so a batch of updates costs no pass over all objects.
   */
  readonly serviceIndex: ReadonlyMap<string, number> | undefined;
  readonly sliceIndex: ReadonlyMap<string, number> | undefined;
  /** In namespace, then name order. */
  readonly entries: readonly ServiceEntry[];
  readonly totalEndpoints: number;
  /** Sums over entries (entryTotals), for the next sync to update rather than count again; absent after a 1.8 sync. */
  readonly totals?: EntryTotals;
  /** Set by a kubeProxyVersion '1.8' sync (entries is then empty): what it wrote. */
  readonly v18?: V18State;
}

/**
 * Sums over a state's entries of their service ports and of their Rendered lines and bytes: a
 * partial sync updates them by the entries it replaced, instead of walking every entry to count
 * the text's lines and bytes.
 */
export interface EntryTotals {
  servicePorts: number;
  filterLines: number;
  filterBytes: number;
  topLines: number;
  topBytes: number;
  fullLines: number;
  fullBytes: number;
  declBytes: number;
  chainCount: number;
}

/** Adds `entry`'s counts to `totals` (`sign` -1: takes them off). */
export function addToTotals(totals: EntryTotals, entry: ServiceEntry, sign: 1 | -1): void {
  const r = entry.rendered;
  totals.servicePorts += sign * entry.ports.length;
  totals.filterLines += sign * r.filterLines;
  totals.filterBytes += sign * r.filterBytes;
  totals.topLines += sign * r.topLines;
  totals.topBytes += sign * r.topBytes;
  totals.fullLines += sign * r.fullLines;
  totals.fullBytes += sign * r.fullBytes;
  totals.declBytes += sign * r.declBytes;
  totals.chainCount += sign * r.chainCount;
}

/**
 * The totals of `entries`: `previous` (those of the last entries) less the `removed` entries and
 * updated for the positions in `replaced` when given, else counted over every entry. `base` is
 * the last entries that remain, at their positions in `entries` (none where one came), and
 * `entries` must equal it but at the `replaced` positions.
 */
export function entryTotals(
  entries: readonly ServiceEntry[],
  previous:
    | { readonly totals: EntryTotals; readonly base: readonly (ServiceEntry | undefined)[]; readonly replaced: Iterable<number>; readonly removed: readonly ServiceEntry[] }
    | undefined,
): EntryTotals {
  if (previous !== undefined) {
    const totals = { ...previous.totals };
    for (const gone of previous.removed) addToTotals(totals, gone, -1);
    for (const pos of previous.replaced) {
      const old = previous.base[pos];
      const now = entries[pos];
      if (old === now) continue;
      if (old !== undefined) addToTotals(totals, old, -1);
      if (now !== undefined) addToTotals(totals, now, 1);
    }
    return totals;
  }
  const totals: EntryTotals = { servicePorts: 0, filterLines: 0, filterBytes: 0, topLines: 0, topBytes: 0, fullLines: 0, fullBytes: 0, declBytes: 0, chainCount: 0 };
  for (const entry of entries) addToTotals(totals, entry, 1);
  return totals;
}

/** What a kube-proxy 1.8 sync leaves: the tables it wrote and a fingerprint per Service. */
export interface V18State {
  readonly ruleset: Ruleset;
  /** Its service chains (KUBE-SVC-, KUBE-SEP-, KUBE-FW-, KUBE-XLB-): those a later sync deletes when gone. */
  readonly serviceChains: readonly string[];
  /** Per Service (namespace/name): its object and its slices, as JSON. */
  readonly fingerprints: ReadonlyMap<string, string>;
}

export const EMPTY_RENDERED: Rendered = {
  bytes: new Uint8Array(0),
  filterAt: 0,
  filterBytes: 0,
  filterLines: 0,
  topAt: 0,
  topBytes: 0,
  topLines: 0,
  fullAt: 0,
  fullBytes: 0,
  fullLines: 0,
  declAt: 0,
  declBytes: 0,
  chainCount: 0,
};

/**
 * The settings of the config a Service's text reads, but for the node's own (its name, addresses
 * and zone) and the large-cluster threshold: one list, which the state's config key and the
 * render cache's key (render-cache.ts) both take, so a setting added to the config is added once.
 */
export function nodeFreeSettings(config: ProxierConfig): readonly unknown[] {
  return [
    config.family,
    config.localDetector,
    config.masqueradeBit,
    config.masqueradeMark,
    config.masqueradeAll,
    config.nodePortAddresses,
    config.localhostNodePorts,
    config.nfacctCounters,
    config.randomFully,
    config.conntrackTCPLiberal,
    config.probabilityFormat,
    config.kubeProxyVersion,
    config.preferSameTrafficDistribution,
  ];
}

export function configKeyOf(config: ProxierConfig): string {
  return JSON.stringify([
    config.nodeName,
    config.nodeIPs,
    config.nodeIP,
    config.largeClusterThreshold,
    // A change of the node's zone label is a full sync (upstream: OnTopologyChange, of the
    // labels NodeTopologyConfig passes on).
    nodeTopologyOf(config).zone,
    ...nodeFreeSettings(config),
  ]);
}

// The restore text is ASCII except for what users write into names; count bytes only then.
// eslint-disable-next-line no-control-regex
export const NON_ASCII = /[^\u0000-\u007f]/;
export function utf8Length(text: string): number {
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Where an open kernel arena holds a port's endpoint records, hashed and named (recordsAt). */
export type Placed = number;
