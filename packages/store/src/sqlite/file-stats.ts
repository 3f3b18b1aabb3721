// Where the bytes of a SQLite store's file are: the pages each table and index takes, the free
// pages, the WAL, and the rows in force against the history compaction has kept. Read from a
// file no store has open (the store holds SQLite's exclusive lock while it is open).
import { existsSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';

/** One table or index of the store's file. */
export interface SqliteObjectPages {
  /** The table's or index's name (`log`, `log_name_revision_uindex`, ...). */
  readonly name: string;
  /** Pages it takes. */
  readonly pages: number;
  /** The bytes of those pages its cells use (the rest is the pages' slack). */
  readonly usedBytes: number;
}

/** What `sqliteFileStats` found in a store's file. */
export interface SqliteFileStats {
  /** Bytes per page (`PRAGMA page_size`). */
  readonly pageSize: number;
  /** The main file's pages (`PRAGMA page_count`), free ones included. */
  readonly pageCount: number;
  /** The pages on the freelist (`PRAGMA freelist_count`): in the file, holding nothing. */
  readonly freePages: number;
  /** The main file's size on disk. */
  readonly fileBytes: number;
  /** The WAL's size on disk (0 when there is none: a store's close checkpoints and removes it). */
  readonly walBytes: number;
  /** Every table and index, the most pages first. */
  readonly objects: readonly SqliteObjectPages[];
  /** The rows in force: each key's newest row, when it is not a tombstone. */
  readonly rowsInForce: number;
  /** The bytes the values of the rows in force take in the file: UTF-8, or deflated for values of 64 KiB or more. */
  readonly valueBytesInForce: number;
  /** Every other row: the history compaction has kept, and tombstones. */
  readonly historyRows: number;
  /** The bytes the values of the history rows take in the file (UTF-8, or deflated, as above). */
  readonly valueBytesOfHistory: number;
  /** The revision reads are refused below (`compact()`'s last). */
  readonly compactRevision: number;
  /** The store's current revision. */
  readonly revision: number;
}

const size = (path: string): number => (existsSync(path) ? statSync(path).size : 0);

/**
 * Reads the page and row counts of the SQLite store file at `path`, which no store may have open.
 * The WAL's size is taken before the file is opened (closing the last connection checkpoints it).
 */
export function sqliteFileStats(path: string): SqliteFileStats {
  const walBytes = size(`${path}-wal`);
  const fileBytes = size(path);
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const pragma = (name: string): number => Number(db.pragma(name, { simple: true }));
    const objects = db
      .prepare<[], SqliteObjectPages>('SELECT name, COUNT(*) AS pages, SUM(pgsize - unused) AS usedBytes FROM dbstat GROUP BY name ORDER BY pages DESC, name')
      .all();
    const inForce = db
      .prepare<[], { rows: number; bytes: number | null }>(
        `SELECT COUNT(*) AS rows, SUM(LENGTH(CAST(l.value AS BLOB))) AS bytes FROM log l
         WHERE l.deleted = 0 AND l.revision = (SELECT MAX(revision) FROM log m WHERE m.name = l.name)`,
      )
      .get();
    const all = db.prepare<[], { rows: number; bytes: number | null }>('SELECT COUNT(*) AS rows, SUM(LENGTH(CAST(value AS BLOB))) AS bytes FROM log').get();
    const meta = (name: string): number => db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE name = ?').get(name)?.value ?? 0;
    const rowsInForce = inForce?.rows ?? 0;
    const valueBytesInForce = inForce?.bytes ?? 0;
    return {
      pageSize: pragma('page_size'),
      pageCount: pragma('page_count'),
      freePages: pragma('freelist_count'),
      fileBytes,
      walBytes,
      objects,
      rowsInForce,
      valueBytesInForce,
      historyRows: (all?.rows ?? 0) - rowsInForce,
      valueBytesOfHistory: (all?.bytes ?? 0) - valueBytesInForce,
      compactRevision: meta('compact_revision'),
      revision: meta('revision'),
    };
  } finally {
    db.close();
  }
}
