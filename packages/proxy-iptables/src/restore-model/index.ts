// Public API of the restore-model part of @kubesvc/proxy-iptables (re-exported by ../index.ts).
export type { EmptyTablesOptions, TableState } from './table-state.js';
export { emptyTables, printTables, tablesEqual } from './table-state.js';
export type { ApplyRestoreOptions, ApplyRestoreResult, ErrApplyRestore } from './apply-restore.js';
export { applyRestore } from './apply-restore.js';
export type { RuleCache } from '../save/rule-cache.js';
export { createRuleCache } from '../save/rule-cache.js';
