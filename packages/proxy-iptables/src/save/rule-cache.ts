// A memo for loading many restore texts that repeat the same rule lines (a table model fed
// sync after sync): each distinct `-A` line is parsed once, and each parsed rule is
// canonicalised once per family, backend and table. Results are the same with or without
// it; it only saves time, and shared rule values make equal tables cheap to compare.

import type { RestoreStatement } from './parse-restore.js';
import type { RuleSpec } from './rule-spec.js';

export interface RuleCache {
  /** `-A` statements by their line text (the line number is the first one seen). */
  readonly appends: Map<string, Extract<RestoreStatement, { kind: 'append' }>>;
  /** Stored forms by `family backend table`, then by the parsed rule value. */
  readonly canonical: Map<string, WeakMap<RuleSpec, RuleSpec>>;
}

export function createRuleCache(): RuleCache {
  return { appends: new Map(), canonical: new Map() };
}
