// Bench suite "store-churn": the SQLite store at the size of a large cluster under a long churn,
// the lessons of k3s's kine on SQLite. A fresh load of 10,000 keys of about 1 KB (a Service's
// size), then 1,000,000 writes rewriting them in turn, compacted as kube-apiserver's compactor
// does at a churn of 20 changes per second: every 5-minute interval (6,000 writes) to the
// revision it saw one interval before, so between one and two intervals of history stay.
// Reported as metrics of the run in the task's setup:
// - the file's size after the fresh load (main file and WAL) and at the end, and their ratio;
//   the main file and the WAL apart; the largest WAL seen, and the largest file (main and WAL,
//   sampled every 1,000 writes: just before a compaction, the history kept is largest);
// - where the bytes are at the end (sqliteFileStats on the closed file, which is then opened
//   again for the timed task): the pages of each table and index, the free pages, and the rows
//   in force against the history the last compaction kept;
// - the writes per second, each write awaited as a client's is;
// - how long each compaction took to delete its rows, and the longest a write waited while one
//   ran (compaction deletes in batches with the event loop free between them, so writes go on).
// Bounded: the churn stops at 1,000,000 writes or after 10 minutes, whichever comes first. The
// timed task is then one more write against the churned file.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@kubesvc/store';
import { openSqliteStore, sqliteFileStats } from '@kubesvc/store/sqlite';
import type { BenchSuite } from './harness.js';

const KEYS = 10_000;
const WRITES = 1_000_000;
const COMPACT_EVERY = 6_000;
const TIME_LIMIT_MS = 10 * 60_000;
const PROGRESS_EVERY = 100_000;

const MiB = 2 ** 20;
const fileSize = (path: string): number => (existsSync(path) ? statSync(path).size : 0);

/** A value of about 1 KB, different at each generation. */
function value(i: number, generation: number): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: `svc${i}`, namespace: 'ns', generation }, spec: { clusterIP: `10.96.${i >> 8}.${i & 255}`, pad: 'x'.repeat(900) } });
}

interface Churned {
  readonly store: Store;
  readonly metrics: Record<string, number>;
}

async function churn(out: (line: string) => void): Promise<Churned> {
  const dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-churn-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'state.db');
  let store = openSqliteStore({ path });
  const put = (i: number, generation: number) => store.txn([], [{ kind: 'put', key: `/registry/services/specs/ns/svc${i}`, value: value(i, generation) }]);
  for (let i = 0; i < KEYS; i++) await put(i, 0);
  const size = (): number => fileSize(path) + fileSize(`${path}-wal`);
  const loadBytes = size();
  const loadWal = fileSize(`${path}-wal`);
  let maxWal = fileSize(`${path}-wal`);
  let maxBytes = loadBytes;
  let maxCompactMs = 0;
  let maxWaitDuringCompactMs = 0;
  let compactions = 0;
  let running: Promise<void> | undefined;
  // The compactor's first round only records the revision (upstream does not compact on bootstrap).
  let seenOneIntervalAgo = 0;
  const t0 = performance.now();
  let writes = 0;
  while (writes < WRITES && performance.now() - t0 < TIME_LIMIT_MS) {
    writes++;
    const w0 = performance.now();
    await put(writes % KEYS, writes);
    if (running !== undefined) maxWaitDuringCompactMs = Math.max(maxWaitDuringCompactMs, performance.now() - w0);
    if (writes % COMPACT_EVERY === 0) {
      await running;
      const revision = await store.revision();
      const c0 = performance.now();
      compactions++;
      const target = seenOneIntervalAgo;
      seenOneIntervalAgo = revision;
      running = (target === 0 ? Promise.resolve() : store.compact(target)).then(() => {
        maxCompactMs = Math.max(maxCompactMs, performance.now() - c0);
        running = undefined;
      });
    }
    if (writes % 1_000 === 0) {
      maxWal = Math.max(maxWal, fileSize(`${path}-wal`));
      maxBytes = Math.max(maxBytes, size());
    }
    if (writes % PROGRESS_EVERY === 0) out(`store-churn: ${writes.toLocaleString('en-US')} writes, file ${(size() / MiB).toFixed(1)} MiB (WAL ${(fileSize(`${path}-wal`) / MiB).toFixed(1)})`);
  }
  const seconds = (performance.now() - t0) / 1000;
  await running;
  const endBytes = size();
  const endWal = fileSize(`${path}-wal`);
  await store.close();
  const stats = sqliteFileStats(path);
  const mib = (bytes: number): number => Math.round((bytes / MiB) * 10) / 10;
  const pagesMiB = (pages: number): number => mib(pages * stats.pageSize);
  out(`store-churn: closed file ${pagesMiB(stats.pageCount)} MiB in ${stats.pageCount} pages, ${stats.freePages} free; rows in force ${stats.rowsInForce} (values ${mib(stats.valueBytesInForce)} MiB), history ${stats.historyRows} (values ${mib(stats.valueBytesOfHistory)} MiB)`);
  for (const o of stats.objects) out(`store-churn:   ${o.name}: ${o.pages} pages (${pagesMiB(o.pages)} MiB), ${Math.round((o.usedBytes / (o.pages * stats.pageSize)) * 100)}% used`);
  store = openSqliteStore({ path });
  const objectMiB = Object.fromEntries(stats.objects.map((o) => [`pagesMiB.${o.name}`, pagesMiB(o.pages)]));
  return {
    store,
    metrics: {
      writes,
      writesPerSecond: Math.round(writes / seconds),
      loadMiB: mib(loadBytes),
      loadWalMiB: mib(loadWal),
      endMiB: mib(endBytes),
      endWalMiB: mib(endWal),
      endToLoad: Math.round((endBytes / loadBytes) * 100) / 100,
      endMainToLoadMain: Math.round(((endBytes - endWal) / (loadBytes - loadWal)) * 100) / 100,
      largestMiB: mib(maxBytes),
      largestToLoad: Math.round((maxBytes / loadBytes) * 100) / 100,
      maxWalMiB: Math.round((maxWal / MiB) * 10) / 10,
      compactions,
      maxCompactMs: Math.round(maxCompactMs),
      maxWriteWaitDuringCompactMs: Math.round(maxWaitDuringCompactMs * 10) / 10,
      closedMiB: pagesMiB(stats.pageCount),
      freePagesMiB: pagesMiB(stats.freePages),
      rowsInForce: stats.rowsInForce,
      historyRows: stats.historyRows,
      historyValueMiB: mib(stats.valueBytesOfHistory),
      inForceValueMiB: mib(stats.valueBytesInForce),
      ...objectMiB,
    },
  };
}

export function storeChurnSuite(out: (line: string) => void = (line) => console.error(line)): BenchSuite {
  let churned: Churned | undefined;
  let n = 0;
  return {
    name: 'store-churn',
    description: `the SQLite store: ${KEYS.toLocaleString('en-US')} keys of ~1 KB, ${WRITES.toLocaleString('en-US')} rewrites with a compaction every ${COMPACT_EVERY.toLocaleString('en-US')} (the file's growth, the WAL, the writes' waits during compaction)`,
    tasks: [
      {
        name: 'put after the churn',
        setup: async () => {
          churned ??= await churn(out);
        },
        fn: async () => {
          if (churned === undefined) throw new Error('no churned store');
          n++;
          await churned.store.txn([], [{ kind: 'put', key: `/registry/services/specs/ns/svc${n % KEYS}`, value: value(n % KEYS, WRITES + n) }]);
        },
        metrics: () => churned?.metrics ?? {},
      },
    ],
  };
}
