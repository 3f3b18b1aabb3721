// The structured form of one iptables rule, as iptables-restore reads it and as
// iptables-save prints it: the fixed header (-s, -d, -i, -o, -p), then the matches in the
// order they were loaded with their options, then the target with its options. The same
// shape holds a rule as written (raw option text) and as the kernel stores it (canonical
// option text, in the order iptables-save prints it; see canonical-rule.ts).

/** A header value with its `!`. */
export interface NegatableValue {
  readonly value: string;
  readonly negated: boolean;
}

/** One `[!] --name [arg]` of a match or target; `name` is the long name with its dashes. */
export interface RuleOption {
  readonly name: string;
  readonly negated: boolean;
  readonly args: readonly string[];
}

/** `-m module` and the options that belong to it. */
export interface RuleMatch {
  readonly module: string;
  readonly options: readonly RuleOption[];
}

/** `-j NAME` (or `-g NAME` when `goto`) and the target's options. */
export interface RuleTarget {
  readonly name: string;
  readonly goto: boolean;
  readonly options: readonly RuleOption[];
}

export interface RuleSpec {
  readonly source?: NegatableValue;
  readonly destination?: NegatableValue;
  readonly inInterface?: NegatableValue;
  readonly outInterface?: NegatableValue;
  readonly protocol?: NegatableValue;
  readonly matches: readonly RuleMatch[];
  /** Absent for a rule that only counts packets. */
  readonly target?: RuleTarget;
}
