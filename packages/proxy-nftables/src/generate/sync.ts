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
// itself, as upstream's OnTopologyChange does. A partial sync follows the change when the last
// sync's index allows (sync-index.ts: only the Services that are other objects are derived
// again); otherwise it walks every Service (the general path, sync-rules.ts); both write the same.
// upstream: pkg/proxy/nftables/proxier.go (v1.33: syncProxyRules, needFullSync, flushed,
// staleChains, nftElementStorage); pkg/proxy/servicechangetracker.go and
// endpointschangetracker.go (which services changed).

import { err, ok, type EndpointSlice, type Result, type Service } from '@kubesvc/api-types';
import { nodeTopologyOf } from '@kubesvc/proxy';
import type { NftablesProxierConfig } from '../config.js';
import { applyTransaction } from '../model/apply.js';
import { printTransaction } from '../model/print.js';
import type { NftFamily, NftOperation, NftTable, NftTransaction } from '../model/types.js';
import type { NftablesNoLocalEndpoints } from './generate.js';
import { KUBE_PROXY_TABLE } from '../names.js';
import { ObjectTxWriter } from './tx.js';
import { changedServices, generalIndex, generalInputs, partialSync, type NftablesSyncIndex } from './sync-index.js';
import { syncRules, type StorageState } from './sync-rules.js';

/** What a proxier keeps between syncs. */
export interface NftablesSyncState {
  /** The table as the last sync left it (undefined before the first). */
  readonly table: NftTable | undefined;
  /** What the element storages recorded (set or map name to key text to value text). */
  readonly storages: StorageState;
  /** Service chains no longer in use, with the time (ms) they were last flushed. */
  readonly staleChains: ReadonlyMap<string, number>;
  /** What each Service derived to and claimed, for the next sync to tell what changed (absent before the first). */
  readonly index?: NftablesSyncIndex;
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

const NO_TOPOLOGY_KEY = '';

/**
 * What of the node the endpoint choice reads: its zone label and the PreferSameTrafficDistribution
 * gate (upstream's proxier hears only of the topology labels: NodeTopologyConfig); '' for none.
 */
export function topologyKey(config: NftablesProxierConfig): string {
  const { zone, preferSameTrafficDistribution } = nodeTopologyOf(config);
  return zone === '' && !preferSameTrafficDistribution ? NO_TOPOLOGY_KEY : JSON.stringify([zone, preferSameTrafficDistribution]);
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
  let deletionApplied = true;
  if (deletions.length > 0) {
    staleDeletion = { family, table: KUBE_PROXY_TABLE, operations: deletions };
    const applied = applyTransaction(table, staleDeletion);
    // A chain that cannot be deleted stays; it is flushed and noted again below (by the general path).
    if (applied.ok) table = applied.value;
    else deletionApplied = false;
  }

  const staleLeft = (result: { readonly staleChains: readonly string[]; readonly activeChains: ReadonlySet<string> }): Map<string, number> => {
    for (const chain of result.staleChains) staleChains.set(chain, options.now);
    for (const chain of result.activeChains) staleChains.delete(chain);
    return staleChains;
  };
  const done = (
    result: { readonly storages: StorageState; readonly noLocalEndpoints: NftablesNoLocalEndpoints },
    index: NftablesSyncIndex,
    operations: readonly NftOperation[],
    left: ReadonlyMap<string, number>,
  ): Result<NftablesSync, ErrNftablesSync> => {
    const transaction: NftTransaction = { family, table: KUBE_PROXY_TABLE, operations };
    const applied = applyTransaction(table, transaction);
    if (!applied.ok) return failed(applied.error.message);
    const text = (staleDeletion === undefined ? '' : printed(staleDeletion)) + printed(transaction);
    return ok({
      state: {
        table: applied.value,
        storages: result.storages,
        staleChains: left,
        index,
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
  };

  // A partial sync follows the change when it can (sync-index.ts).
  if (!full && deletionApplied) {
    const partial = partialSync(state.index, state.storages, table, staleChains, services, endpointSlices, config);
    if (partial !== undefined) return done(partial, partial.index, partial.tx.operations, staleLeft(partial));
  }

  // The general path: every Service walked, as upstream walks them.
  const inputs = generalInputs(services, endpointSlices, config);
  const writer = new ObjectTxWriter();
  const result = syncRules({
    tx: writer,
    model: inputs.model,
    config,
    full,
    firstSync: !state.flushed,
    changedServices: full ? new Set() : changedServices(state.index, inputs),
    existingChains: table === undefined ? [] : [...table.chains.keys()],
    existingSets: setNames(table),
    storages: full ? new Map() : state.storages,
    ...(inputs.entries === undefined ? {} : { services: inputs.entries }),
  });
  const index = generalIndex(inputs, services, endpointSlices, config, result.noLocalEndpoints);
  return done(result, index, writer.operations, staleLeft(result));
}
