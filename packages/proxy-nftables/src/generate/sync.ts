// The nftables proxier over time: each call is one syncProxyRules, full or partial, from the
// state the last one left (the table as the kernel holds it, what the element storages
// recorded, the stale chains and when they went stale, what each service derived to), with
// the time as an argument. A partial sync rewrites only the chains of the services whose
// Service or endpoints changed and writes only the element changes; chains no longer in use
// are flushed, and deleted (in a transaction of their own, before the sync's) once they have
// been stale for more than a second. What setupNFTables writes (the ServiceCIDRs of
// cluster-ips-check, the node-port addresses) changes only with a full sync, as upstream's
// OnServiceCIDRsChanged does not ask for one: pass `full` when the config changes. A change of
// the node's zone label (or the PreferSameTrafficDistribution gate) makes the sync full by
// itself, as upstream's OnTopologyChange does.
// upstream: pkg/proxy/nftables/proxier.go (v1.33: syncProxyRules, needFullSync, flushed,
// staleChains, nftElementStorage); pkg/proxy/servicechangetracker.go and
// endpointschangetracker.go (which services changed).

import { err, ok, type EndpointSlice, type Result, type Service } from '@kubesvc/api-types';
import { nodeTopologyOf, type EndpointInfo, type ServicePortInfo } from '@kubesvc/proxy';
import type { NftablesProxierConfig } from '../config.js';
import { applyTransaction } from '../model/apply.js';
import { printTransaction } from '../model/print.js';
import type { NftFamily, NftOperation, NftTable, NftTransaction } from '../model/types.js';
import type { NftablesNoLocalEndpoints } from './generate.js';
import { KUBE_PROXY_TABLE } from '../names.js';
import { ObjectTxWriter } from './tx.js';
import { portEndpoints, syncModel, syncRules, type StorageState, type SyncModel } from './sync-rules.js';

/** What a proxier keeps between syncs. */
export interface NftablesSyncState {
  /** The table as the last sync left it (undefined before the first). */
  readonly table: NftTable | undefined;
  /** What the element storages recorded (set or map name to key text to value text). */
  readonly storages: StorageState;
  /** Service chains no longer in use, with the time (ms) they were last flushed. */
  readonly staleChains: ReadonlyMap<string, number>;
  /** What each service (`namespace/name`) derived to: its service ports and their endpoints. */
  readonly services: ReadonlyMap<string, string>;
  /** The first sync has run (upstream's `flushed`: the base chains were re-created). */
  readonly flushed: boolean;
  /** The next sync must be full (upstream's needFullSync): at start, and after a failure. */
  readonly needFullSync: boolean;
  /**
   * The node topology the last sync chose endpoints with (topologyKey); a sync with another is
   * full, as upstream's OnTopologyChange asks. Absent: none (no zone label, the gate off).
   */
  readonly topology?: string;
}

export const INITIAL_NFTABLES_SYNC_STATE: NftablesSyncState = {
  table: undefined,
  storages: new Map(),
  staleChains: new Map(),
  services: new Map(),
  flushed: false,
  needFullSync: true,
};

export interface NftablesSyncOptions {
  /** The time of this sync, in milliseconds. */
  readonly now: number;
  /** Force a full sync (upstream sets needFullSync when the node's labels change). */
  readonly full?: boolean;
}

export interface NftablesSync {
  readonly state: NftablesSyncState;
  /** The stale chains deleted before the sync, in a transaction of their own; undefined when none was due. */
  readonly staleDeletion: NftTransaction | undefined;
  /** The sync's transaction. */
  readonly transaction: NftTransaction;
  /** The transactions' text for `nft -f`, the deletion's first. */
  readonly text: string;
  /** Whether this was a full sync. */
  readonly full: boolean;
  /** Service ports with Local policy and no local endpoint (generate.ts NftablesNoLocalEndpoints). */
  readonly noLocalEndpoints: NftablesNoLocalEndpoints;
}

/** The sync's transaction did not apply to the table the state holds: the next sync is full. */
export interface ErrNftablesSync {
  readonly _tag: 'ErrNftablesSync';
  readonly message: string;
  /** The state to go on from (upstream: needFullSync set, staleChains cleared). */
  readonly state: NftablesSyncState;
}

/** The stale chains are deleted once they are older than this (upstream: one second). */
export const STALE_CHAIN_GRACE_MS = 1000;

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

/** What each service derived to, to tell which changed (the change trackers' UpdatedServices). */
function serviceTexts(model: SyncModel): Map<string, string> {
  const texts = new Map<string, string>();
  for (const svc of model.ports) {
    const key = `${svc.namespace}/${svc.name}`;
    const text = portText(svc, portEndpoints(model, svc));
    texts.set(key, texts.has(key) ? `${texts.get(key) ?? ''}\n${text}` : text);
  }
  return texts;
}

const NO_TOPOLOGY_KEY = '';

/**
 * What of the node the endpoint choice reads: its zone label and the PreferSameTrafficDistribution
 * gate (upstream's proxier hears only of the topology labels: NodeTopologyConfig); '' for none.
 */
export function topologyKey(config: NftablesProxierConfig): string {
  const { zone, preferSameTrafficDistribution } = nodeTopologyOf(config);
  return zone === '' && !preferSameTrafficDistribution ? NO_TOPOLOGY_KEY : JSON.stringify([zone, preferSameTrafficDistribution]);
}

function changedServices(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): Set<string> {
  const changed = new Set<string>();
  for (const [key, text] of after) if (before.get(key) !== text) changed.add(key);
  for (const key of before.keys()) if (!after.has(key)) changed.add(key);
  return changed;
}

function setNames(table: NftTable | undefined): string[] {
  return table === undefined ? [] : [...table.sets.values()].filter((set) => set.kind === 'set').map((set) => set.spec.name);
}

function printed(transaction: NftTransaction): string {
  const text = printTransaction(transaction);
  // The sync writes only operations knftables accepts; a refusal here is a bug in it.
  if (!text.ok) throw new Error(`syncNftables wrote an invalid operation: ${text.error.message}`);
  return text.value;
}

/**
 * One syncProxyRules of the nftables proxier whose last sync left `state`: full when asked
 * (`options.full`) or when the state needs one (the first sync, or after a failure), else
 * partial. The returned state holds the table with both transactions applied.
 */
export function syncNftables(
  state: NftablesSyncState,
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: NftablesProxierConfig,
  options: NftablesSyncOptions,
): Result<NftablesSync, ErrNftablesSync> {
  const family: NftFamily = config.family === 4 ? 'ip' : 'ip6';
  const topology = topologyKey(config);
  const full = state.needFullSync || options.full === true || topology !== (state.topology ?? NO_TOPOLOGY_KEY);
  const failed = (message: string): Result<NftablesSync, ErrNftablesSync> =>
    err({ _tag: 'ErrNftablesSync', message, state: { ...state, staleChains: new Map(), needFullSync: true } });

  // Stale chains old enough go first, in a transaction of their own.
  let table = state.table;
  const staleChains = new Map(state.staleChains);
  const deletions: NftOperation[] = [];
  for (const [chain, since] of state.staleChains) {
    if (since < options.now - STALE_CHAIN_GRACE_MS) {
      deletions.push({ verb: 'delete', object: { kind: 'chain', chain: { name: chain } } });
      staleChains.delete(chain);
    }
  }
  let staleDeletion: NftTransaction | undefined;
  if (deletions.length > 0) {
    staleDeletion = { family, table: KUBE_PROXY_TABLE, operations: deletions };
    const applied = applyTransaction(table, staleDeletion);
    // A chain that cannot be deleted stays; it is flushed and noted again below.
    if (applied.ok) table = applied.value;
  }

  const model = syncModel(services, endpointSlices, config);
  const texts = serviceTexts(model);
  const writer = new ObjectTxWriter();
  const result = syncRules({
    tx: writer,
    model,
    config,
    full,
    firstSync: !state.flushed,
    changedServices: changedServices(state.services, texts),
    existingChains: table === undefined ? [] : [...table.chains.keys()],
    existingSets: setNames(table),
    storages: full ? new Map() : state.storages,
  });
  const transaction: NftTransaction = { family, table: KUBE_PROXY_TABLE, operations: writer.operations };
  const applied = applyTransaction(table, transaction);
  if (!applied.ok) return failed(applied.error.message);

  for (const chain of result.staleChains) staleChains.set(chain, options.now);
  for (const chain of result.activeChains) staleChains.delete(chain);
  const text = (staleDeletion === undefined ? '' : printed(staleDeletion)) + printed(transaction);
  return ok({
    state: {
      table: applied.value,
      storages: result.storages,
      staleChains,
      services: texts,
      flushed: true,
      needFullSync: false,
      ...(topology === NO_TOPOLOGY_KEY ? {} : { topology }),
    },
    staleDeletion,
    transaction,
    text,
    full,
    noLocalEndpoints: result.noLocalEndpoints,
  });
}
