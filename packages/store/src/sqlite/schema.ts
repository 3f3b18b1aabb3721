// The SQLite backend's schema: one append-only log table in the shape k3s's kine uses, a lease
// table and two counters.
//
// upstream: k3s-io/kine pkg/drivers/sqlite/sqlite.go (the `kine` table and its indexes).
// Differences from kine, each for etcd semantics kine does not need under Kubernetes:
// - `revision`: kine's `id` is the revision, one row per revision, because Kubernetes writes one
//   key per etcd txn. kubesvc's registry writes several keys atomically (a Service and the
//   allocator's range object), and etcd gives all writes of one txn one revision. So `id` stays
//   the AUTOINCREMENT row id (the order of writes, etcd's sub-revision order) and `revision` is
//   etcd's main revision, shared by the rows of one txn. `prev_revision` and `create_revision`
//   are revisions, as in kine.
// - `version`: etcd's per-key version (kine reports none).
// - leases live in their own table (kine keeps only a TTL per row).
// - a partial index on `lease`, to find a lease's keys when it expires.
// - `old_value` is kept for the shape but left empty, and a tombstone's `value` is empty too:
//   kine copies the previous value into every new row, which doubles the file for updates
//   (a 1 KB Service rewritten once took 4 KB of page per row). The previous value is the row
//   at (name, prev_revision), which compaction keeps as long as a later row points at it, so
//   prevKv is read from there.
// - two of kine's indexes are dropped (and dropped from files made with them): `(prev_revision)`
//   and the unique `(name, prev_revision)`. No query reads either; kine's unique index stops two
//   writers from both building on one row, and here one process writes, one txn after another,
//   each new row's predecessor being the key's newest row at `(name, revision)`, which stays
//   unique. Each cost a page written to the WAL per write, and after a long churn the two took
//   1.4 MiB of a 29 MiB file (docs/performance.md, "A long churn").
// - values of 64 KiB or more are stored deflated, as a BLOB (sqlite-store.ts, DEFLATE_MIN): the
//   allocator's range object for a /12 is 175 KB of JSON rewritten on every batch of
//   allocations, mostly the letter A. Schema version 2 is the first with such rows; a store
//   refuses a file of a version above its own.
export const SCHEMA_VERSION = 2;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  revision INTEGER NOT NULL,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  version INTEGER NOT NULL,
  lease INTEGER NOT NULL,
  value TEXT NOT NULL,
  old_value TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS log_name_revision_uindex ON log (name, revision);
CREATE INDEX IF NOT EXISTS log_revision_deleted_index ON log (revision, deleted);
DROP INDEX IF EXISTS log_name_prev_revision_uindex;
DROP INDEX IF EXISTS log_prev_revision_index;
CREATE INDEX IF NOT EXISTS log_lease_index ON log (lease) WHERE lease != 0;
CREATE TABLE IF NOT EXISTS lease (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ttl_seconds INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (name, value) VALUES ('schema_version', ${SCHEMA_VERSION}), ('revision', 0), ('compact_revision', 0);
-- The revision up to which compaction has deleted the rows (compact_revision is the one reads
-- are refused below). A file from before this counter compacted in one go: all of it is done.
INSERT OR IGNORE INTO meta (name, value) SELECT 'compact_finished', value FROM meta WHERE name = 'compact_revision';
`;

/** One row of the log, as SQLite returns it. */
export interface LogRow {
  readonly id: number;
  readonly revision: number;
  readonly name: string;
  readonly created: number;
  readonly deleted: number;
  readonly create_revision: number;
  readonly prev_revision: number;
  readonly version: number;
  readonly lease: number;
  /** Text, or (a BLOB) the deflated UTF-8 of a large value. */
  readonly value: string | Buffer;
  readonly old_value: string;
}
