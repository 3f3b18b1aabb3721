// The objects of an nftables table and the transactions that change it, as the knftables
// library models them (sigs.k8s.io/knftables objects.go, types.go): kube-proxy's nftables
// proxier writes every change as one transaction of these operations, and `nft -f` applies
// it atomically. A rule is kept as the text knftables passes to nft (`ip daddr @cluster-ips
// reject`); the tracer parses it. Every value here is plain data: the builder makes
// transactions, `applyTransaction` (model/apply.ts) applies one to a table, and the reader
// makes both from text.

/** The table's family: kube-proxy runs one proxier per IP family, `ip` and `ip6`. */
export type NftFamily = 'ip' | 'ip6';

/** What a transaction does to an object (knftables' verbs). */
export type NftVerb = 'add' | 'create' | 'insert' | 'replace' | 'delete' | 'destroy' | 'flush';

/** A table: kube-proxy's has a comment only. */
export interface NftTableSpec {
  readonly comment?: string;
}

/**
 * A chain. A base chain has a type, a hook and a priority; a regular chain has none of them.
 * `priority` is the text written after `priority` (knftables writes kube-proxy's as numbers:
 * `-110`, `-100`, `100`).
 */
export interface NftChainSpec {
  readonly name: string;
  readonly type?: string;
  readonly hook?: string;
  readonly priority?: string;
  /** A base chain's policy (`accept`, `drop`); kube-proxy sets none, so its chains accept. */
  readonly policy?: string;
  readonly comment?: string;
}

/**
 * A rule of `chain`: `rule` is its statement text as written (`ip daddr @cluster-ips reject`);
 * `comment` is written after it as `comment "..."`. `index` (insert/add at a position) and
 * `handle` (replace/delete/insert by handle) address an existing rule.
 */
export interface NftRuleSpec {
  readonly chain: string;
  readonly rule: string;
  readonly comment?: string;
  readonly index?: number;
  readonly handle?: number;
}

/**
 * A set or a verdict map. `type` is the key type (`ipv4_addr`, `ipv4_addr . inet_proto .
 * inet_service`), for a map followed by ` : ` and the value type (`verdict`); `typeOf` is the
 * `typeof` form instead. `flags` such as `dynamic`, `timeout`, `interval`; `timeout` in nft's
 * duration text (`10800s`).
 */
export interface NftSetSpec {
  readonly name: string;
  readonly type?: string;
  readonly typeOf?: string;
  readonly flags?: readonly string[];
  readonly timeout?: string;
  readonly comment?: string;
}

/**
 * An element of set or map `set`: its key's parts and, for a map, its value's parts, each
 * joined by ` . ` in text as knftables joins them (kube-proxy's values have one part, such as
 * `goto service-…`), and a comment.
 */
export interface NftElementSpec {
  readonly set: string;
  readonly key: readonly string[];
  readonly value?: readonly string[];
  readonly comment?: string;
}

/** One object of a transaction, tagged by kind (a map is a set with a value type). */
export type NftObject =
  | { readonly kind: 'table'; readonly table: NftTableSpec }
  | { readonly kind: 'chain'; readonly chain: NftChainSpec }
  | { readonly kind: 'rule'; readonly rule: NftRuleSpec }
  | { readonly kind: 'set'; readonly set: NftSetSpec }
  | { readonly kind: 'map'; readonly set: NftSetSpec }
  | { readonly kind: 'element'; readonly of: 'set' | 'map'; readonly element: NftElementSpec };

export interface NftOperation {
  readonly verb: NftVerb;
  readonly object: NftObject;
}

/** A transaction on one table (knftables.Transaction): its operations, in order. */
export interface NftTransaction {
  readonly family: NftFamily;
  readonly table: string;
  readonly operations: readonly NftOperation[];
}

/** A rule in a table: its spec's text and comment, and the handle nft gave it. */
export interface NftRule {
  readonly rule: string;
  readonly comment?: string;
  readonly handle: number;
}

export interface NftChain {
  readonly spec: NftChainSpec;
  readonly rules: readonly NftRule[];
}

export interface NftElement {
  readonly key: readonly string[];
  readonly value?: readonly string[];
  readonly comment?: string;
}

export interface NftSet {
  readonly kind: 'set' | 'map';
  readonly spec: NftSetSpec;
  /** By key text (the parts joined by ` . `), in the order added. */
  readonly elements: ReadonlyMap<string, NftElement>;
}

/** A table's state: what `nft list table` shows (chains, sets and maps by name). */
export interface NftTable {
  readonly family: NftFamily;
  readonly name: string;
  readonly spec: NftTableSpec;
  readonly chains: ReadonlyMap<string, NftChain>;
  /** Sets and maps share one namespace in nftables. */
  readonly sets: ReadonlyMap<string, NftSet>;
  /** The handle the next added rule gets. */
  readonly nextHandle: number;
}
