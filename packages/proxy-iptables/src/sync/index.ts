// Public API of the sync part of @kubesvc/proxy-iptables (re-exported by ../index.ts).
export type { ProxyChange, SyncConfig, SyncOptions, SyncResult, SyncState, SyncStats } from './sync.js';
export { sync, syncChanges, syncedRuleset } from './sync.js';
