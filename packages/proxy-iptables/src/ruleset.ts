// The structured form of what kube-proxy hands to iptables-restore: tables, the chains each
// table declares, and the rules in the order kube-proxy writes them. Matches and targets are
// tagged unions, one variant per iptables option group, so that a packet tracer can
// evaluate every rule and refuse what it does not know; each variant prints exactly the
// argument text upstream writes (upstream: pkg/proxy/iptables/proxier.go, syncProxyRules).
//
// Rules keep kube-proxy's writing order within the table (rules of different chains are
// interleaved as upstream interleaves them); `chainRules` gives one chain's rules in order.

import type { L4Protocol } from '@kubesvc/proxy';

export type TableName = 'filter' | 'nat';

// The protocols kube-proxy programs are every backend's: @kubesvc/proxy's L4Protocol.
export type { L4Protocol };

/** One match option group. Printed in the rule's order; see print-restore.ts for the text. */
export type Match =
  /** `-m comment --comment TEXT`; TEXT is quoted when it contains a space, as kube-proxy does. */
  | { readonly kind: 'comment'; readonly text: string }
  /** `-m tcp -p tcp` (the protocol match and module, written together by kube-proxy). */
  | { readonly kind: 'protocol'; readonly protocol: L4Protocol }
  /** `--dport N`, an option of the protocol module; always after a `protocol` match. */
  | { readonly kind: 'dport'; readonly port: number }
  /** `[!] -s ADDRESS`; ADDRESS is an IP (no prefix) or a CIDR, as written. */
  | { readonly kind: 'source'; readonly address: string; readonly negated: boolean }
  /** `[!] -d ADDRESS`. */
  | { readonly kind: 'destination'; readonly address: string; readonly negated: boolean }
  /** `-m addrtype --src-type LOCAL` / `--dst-type LOCAL`. */
  | { readonly kind: 'addrtype'; readonly direction: 'src' | 'dst'; readonly addressType: 'LOCAL' }
  /**
   * `-m statistic --mode random --probability P`: P is the text written (`1/denominator`
   * formatted %0.10f, or %0.5f in the old format).
   */
  | { readonly kind: 'statistic'; readonly probability: string; readonly denominator: number }
  /** `-m recent --name NAME --rcheck --seconds S --reap` (kube-proxy writes no --mask: the default full mask). */
  | { readonly kind: 'recent-check'; readonly name: string; readonly seconds: number }
  /** `-m recent --name NAME --set`. */
  | { readonly kind: 'recent-set'; readonly name: string }
  /** `-m mark [!] --mark VALUE/MASK`; value and mask as written (e.g. `0x4000`). */
  | { readonly kind: 'mark'; readonly value: string; readonly mask: string; readonly negated: boolean }
  /** `-m conntrack [!] --ctstate A,B`. */
  | { readonly kind: 'conntrack'; readonly states: readonly string[]; readonly negated: boolean }
  /** `-m nfacct --nfacct-name NAME` (a counter; always matches). */
  | { readonly kind: 'nfacct'; readonly name: string };

export type Target =
  /** `-j CHAIN`, a user chain. */
  | { readonly kind: 'jump'; readonly chain: string }
  | { readonly kind: 'accept' }
  | { readonly kind: 'drop' }
  | { readonly kind: 'reject' }
  | { readonly kind: 'return' }
  /** `-j DNAT --to-destination HOST:PORT` (IPv6 hosts bracketed). */
  | { readonly kind: 'dnat'; readonly destination: string }
  /**
   * `-j MARK --or-mark V` / `--xor-mark V`. kube-proxy before v1.9 spelled the or-mark
   * `--set-xmark V/V` (the same operation): `spelling: 'set-xmark'`.
   */
  | { readonly kind: 'mark'; readonly op: 'or' | 'xor'; readonly value: string; readonly spelling?: 'set-xmark' }
  /** `-j MASQUERADE [--random-fully]`. */
  | { readonly kind: 'masquerade'; readonly randomFully: boolean };

export interface Rule {
  readonly chain: string;
  readonly matches: readonly Match[];
  /** Absent for a rule that only counts (the last rule of a KUBE-FW- chain). */
  readonly target?: Target;
}

export interface Table {
  readonly name: TableName;
  /** Chain declarations (`:NAME - [0:0]`), in the order written. */
  readonly chains: readonly string[];
  /** All rules of the table, in kube-proxy's writing order. */
  readonly rules: readonly Rule[];
  /** Chains deleted at the end of the table (`-X NAME`); kube-proxy's stale-chain cleanup. */
  readonly deletedChains: readonly string[];
}

export interface Ruleset {
  /** The proxier's IP family; the iptables-save view needs it (e.g. the `recent` mask). */
  readonly family: 4 | 6;
  /** filter, then nat, as kube-proxy writes them. */
  readonly tables: readonly [Table, Table];
}

/** The rules of one chain, in order. */
export function chainRules(table: Table, chain: string): readonly Rule[] {
  return table.rules.filter((rule) => rule.chain === chain);
}

/** The table of that name. */
export function rulesetTable(ruleset: Ruleset, name: TableName): Table {
  return name === 'filter' ? ruleset.tables[0] : ruleset.tables[1];
}
