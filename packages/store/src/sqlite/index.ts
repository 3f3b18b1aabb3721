// @kubesvc/store/sqlite: the SQLite backend (better-sqlite3), the embedded default. A subpath of
// its own so that a consumer of another backend never loads the native addon.
export { openSqliteStore } from './sqlite-store.js';
export type { SqliteStoreOptions, SqliteSynchronous } from './sqlite-store.js';
export { sqliteFileStats } from './file-stats.js';
export type { SqliteFileStats, SqliteObjectPages } from './file-stats.js';
