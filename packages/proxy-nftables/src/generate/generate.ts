// A fresh proxier's first sync (a full sync into an empty table): the transaction, its text
// for `nft -f`, and how much it makes.
// upstream: pkg/proxy/nftables/proxier.go (v1.33: syncProxyRules with needFullSync, after
// setupNFTables with flushed false).

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import type { NftablesProxierConfig } from '../config.js';
import { KUBE_PROXY_TABLE } from '../names.js';
import type { NftOperation, NftTransaction } from '../model/types.js';
import { syncModel, syncRules, type SyncModel, type SyncRulesOutput } from './sync-rules.js';
import { decodeText, NftTextBuffer } from './text-buffer.js';
import { TextTxWriter } from './text-tx.js';
import { ObjectTxWriter, type TxWriter } from './tx.js';

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
  /** The transaction's operations (built when first read). */
  readonly transaction: NftTransaction;
  /** The transaction as knftables writes it for `nft -f` (decoded from `bytes` when first read). */
  readonly text: string;
  /**
   * The text's UTF-8 bytes. With `options.buffer` they are a view of that buffer, written over
   * by the next call given it (read `text` before then, or copy them).
   */
  readonly bytes: Uint8Array;
  readonly stats: NftablesRuleStats;
  readonly noLocalEndpoints: NftablesNoLocalEndpoints;
}

export interface GenerateNftablesOptions {
  /** A buffer to write the text into, kept by the caller from one call to the next (see NftTextBuffer). */
  readonly buffer?: NftTextBuffer;
}

/** What a name part may hold for the chain names it is in to be told apart by their text alone. */
const PLAIN_NAME = /^[A-Za-z0-9.:-]*$/;
const IP_TEXT = /^[0-9A-Fa-f.:]*$/;
/** Well under the 240 bytes past which a chain name is cut (CHAIN_NAME_BASE_LENGTH_MAX). */
const PLAIN_NAME_BUDGET = 150;

/**
 * Whether the chains of different service ports and endpoints all have different names, so that
 * a first sync need not keep a set of the 110,000 names it makes at 10000×10 to make each once:
 * each service port's `namespace/name/protocol/port` is its own (its cluster chain's name is),
 * the parts hold no `/` or `_` (so that the text before an endpoint's `__` is its port's), no
 * endpoint IP mixes `:` and `.` (written with its colons as dots, it would read as another), and
 * no name is long enough to be cut. Endpoints of a service port are one per `ip:port` already.
 * Anything else (Services sharing a key, say) keeps the set.
 */
function distinctServiceChains(model: SyncModel): boolean {
  const ports = new Set<string>();
  for (const svc of model.ports) {
    if (svc.namespace.length + svc.name.length + svc.portName.length > PLAIN_NAME_BUDGET) return false;
    if (!PLAIN_NAME.test(svc.namespace) || !PLAIN_NAME.test(svc.name) || !PLAIN_NAME.test(svc.portName) || !PLAIN_NAME.test(svc.protocol)) return false;
    if (ports.has(svc.chains.cluster)) return false;
    ports.add(svc.chains.cluster);
  }
  for (const endpoints of model.endpoints.values()) {
    for (const ep of endpoints) {
      const ip = ep.ip;
      if (ip.length > 45 || !IP_TEXT.test(ip) || (ip.includes(':') && ip.includes('.'))) return false;
    }
  }
  return true;
}

/**
 * Room for a first sync's text, so that a new buffer is not grown (and copied) some ten times:
 * an endpoint's chain, rules and dispatch entry take some 500 bytes, a service port's elements
 * and chains some 1,500. A large buffer's pages not written take no memory.
 */
function textBytesBound(model: SyncModel): number {
  let endpoints = 0;
  for (const list of model.endpoints.values()) endpoints += list.length;
  return (1 << 16) + model.ports.length * 2048 + endpoints * 640;
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
 * config (`serviceCIDRs`). The text is written directly; the transaction value is built from
 * the same service ports when `transaction` is first read.
 */
export function generateNftablesRules(
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: NftablesProxierConfig,
  options: GenerateNftablesOptions = {},
): NftablesRules {
  const family = config.family === 4 ? 'ip' : 'ip6';
  const model = syncModel(services, endpointSlices, config);
  const firstSync = (tx: TxWriter): SyncRulesOutput =>
    syncRules({ tx, model, config, full: true, firstSync: true, changedServices: new Set(), existingChains: [], existingSets: [], storages: new Map() });
  const out = options.buffer ?? new NftTextBuffer(textBytesBound(model));
  const generation = out.reset();
  const writer = new TextTxWriter(family, KUBE_PROXY_TABLE, out);
  writer.distinctServiceChains = distinctServiceChains(model);
  const { noLocalEndpoints } = firstSync(writer);
  writer.finish();
  // The builder writes only operations knftables accepts; a refusal here is a bug in it.
  if (writer.problem !== undefined) throw new Error(`generateNftablesRules wrote an invalid operation: ${writer.problem}`);
  let transaction: NftTransaction | undefined;
  let text: string | undefined;
  const bytes = out.view();
  return {
    get transaction(): NftTransaction {
      if (transaction === undefined) {
        const objects = new ObjectTxWriter();
        firstSync(objects);
        transaction = { family, table: KUBE_PROXY_TABLE, operations: objects.operations };
      }
      return transaction;
    },
    get text(): string {
      if (text === undefined) {
        if (out.generation !== generation) throw new Error('generateNftablesRules: the buffer was written over by a later call; read the text before the next call');
        text = decodeText(bytes);
      }
      return text;
    },
    bytes,
    stats: writer.stats(),
    noLocalEndpoints,
  };
}
