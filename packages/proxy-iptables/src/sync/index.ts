// Public API of the sync part of @kubesvc/proxy-iptables (re-exported by ../index.ts).
export type { SyncConfig, SyncOptions, SyncResult, SyncState, SyncStats } from './state.js';
export type { ProxyChange } from './events.js';
export { sync, syncChanges, syncedRuleset } from '../backend.js';
export { RestoreBuffer } from './restore-buffer.js';
export { createRenderCache, type RenderCache, type RenderCacheStats } from './render-cache.js';
