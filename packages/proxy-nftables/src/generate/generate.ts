// A fresh proxier's first sync (a full sync into an empty table): the transaction, its text
// for `nft -f`, and how much it makes.
// upstream: pkg/proxy/nftables/proxier.go (v1.33: syncProxyRules with needFullSync, after
// setupNFTables with flushed false).

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import type { NftablesProxierConfig } from '../config.js';
import { KUBE_PROXY_TABLE } from '../names.js';
import { printTransaction } from '../model/print.js';
import type { NftOperation, NftTransaction } from '../model/types.js';
import { syncModel, syncRules } from './sync-rules.js';

/** What a transaction makes: chains, rules, sets and maps, and elements. */
export interface NftablesRuleStats {
  /** Chains the transaction leaves in the table (base chains included). */
  readonly chains: number;
  /** Rules it adds. */
  readonly rules: number;
  /** Sets and maps it leaves in the table. */
  readonly sets: number;
  /** Elements it adds. */
  readonly elements: number;
}

/**
 * The service ports whose Local internal / external traffic policy leaves them without a local
 * endpoint while they have endpoints elsewhere (upstream's sync_proxy_rules_no_local_endpoints_total
 * gauge, labels `internal` and `external`): their traffic from there is dropped.
 */
export interface NftablesNoLocalEndpoints {
  readonly internal: number;
  readonly external: number;
}

export interface NftablesRules {
  readonly transaction: NftTransaction;
  /** The transaction as knftables writes it for `nft -f`. */
  readonly text: string;
  readonly stats: NftablesRuleStats;
  readonly noLocalEndpoints: NftablesNoLocalEndpoints;
}

/** Counts what `operations` make, from an empty table. */
export function transactionStats(operations: readonly NftOperation[]): NftablesRuleStats {
  const chains = new Set<string>();
  const sets = new Set<string>();
  let rules = 0;
  let elements = 0;
  for (const { verb, object } of operations) {
    switch (object.kind) {
      case 'chain':
        if (verb === 'add' || verb === 'create') chains.add(object.chain.name);
        else if (verb === 'delete' || verb === 'destroy') chains.delete(object.chain.name);
        break;
      case 'set':
      case 'map':
        if (verb === 'add' || verb === 'create') sets.add(object.set.name);
        else if (verb === 'delete' || verb === 'destroy') sets.delete(object.set.name);
        break;
      case 'rule':
        if (verb === 'add' || verb === 'insert') rules++;
        break;
      case 'element':
        if (verb === 'add' || verb === 'create') elements++;
        break;
      case 'table':
        break;
    }
  }
  return { chains: chains.size, rules, sets: sets.size, elements };
}

/**
 * The transaction a new nftables proxier writes on its first sync of `services` and
 * `endpointSlices`: setupNFTables (the base chains added and deleted first), then every
 * service port's elements and chains. The ServiceCIDRs of cluster-ips-check come from the
 * config (`serviceCIDRs`).
 */
export function generateNftablesRules(
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: NftablesProxierConfig,
): NftablesRules {
  const { operations, noLocalEndpoints } = syncRules({
    model: syncModel(services, endpointSlices, config),
    config,
    full: true,
    firstSync: true,
    changedServices: new Set(),
    existingChains: [],
    existingSets: [],
    storages: new Map(),
  });
  const transaction: NftTransaction = { family: config.family === 4 ? 'ip' : 'ip6', table: KUBE_PROXY_TABLE, operations };
  const printed = printTransaction(transaction);
  // The builder writes only operations knftables accepts; a refusal here is a bug in it.
  if (!printed.ok) throw new Error(`generateNftablesRules wrote an invalid operation: ${printed.error.message}`);
  return { transaction, text: printed.value, stats: transactionStats(operations), noLocalEndpoints };
}
