// The sync loop's file writes: each sync's files are written whole, in order, after the writes
// in progress; the files of syncs that come while a write is in progress wait together, and a
// later sync's file replaces an earlier one's that has not begun to be written, whose buffer is
// handed back at once. So a slow disk delays last-sync.txt, it does not hold one restore text
// (and its buffer) per sync. Real files in a temporary folder; a virtual clock drives the syncs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@kubesvc/apiserver';
import { virtualClock } from '@kubesvc/store';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ProxySyncLoop, type SyncStep } from './proxy-sync-loop.js';

let dir: string;
let loop: ProxySyncLoop | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxy-sync-loop-'));
});

afterEach(async () => {
  await loop?.stop();
  loop = undefined;
  rmSync(dir, { recursive: true, force: true });
});

it('writes each file once more after a write in progress, with the content of the last sync that queued it, and hands each sync’s buffer back', async () => {
  const clock = virtualClock(Date.UTC(2026, 0, 1));
  const last = join(dir, 'iptables', 'last-sync.txt');
  const tables = join(dir, 'iptables', 'rules.txt');
  /** The syncs whose buffer was handed back, in order. */
  const released: number[] = [];
  let n = 0;
  loop = new ProxySyncLoop({ clock, logger: silentLogger, name: 'iptables', dir: join(dir, 'iptables'), minSyncPeriodMs: 1_000, burstSyncs: 1 }, (): SyncStep => {
    const sync = n++;
    // Sync 1 also renders the tables; the others write last-sync.txt alone.
    const files: [string, string][] = [[last, `sync ${sync}\n`], ...(sync === 1 ? [[tables, 'tables of sync 1\n'] as [string, string]] : [])];
    return { ok: true, full: true, files, release: () => released.push(sync) };
  });
  loop.start();
  // Sync 0's write begins (a real write: it takes a turn of the event loop to end).
  await Promise.resolve();
  for (let k = 0; k < 3; k++) {
    loop.requestFullSync();
    clock.advance(1_000);
  }
  expect(loop.syncs).toBe(4);
  // Syncs 1, 2 and 3 wait behind sync 0's write: sync 1's and 2's last-sync.txt were replaced
  // before any was written, so their buffers are back; sync 1's rules.txt still waits, so its
  // buffer is not (its tables text is a string, but the loop knows only that the sync has files waiting).
  expect(released).toEqual([2]);
  await loop.flushed();
  expect(released).toEqual([2, 0, 1, 3]);
  expect(readFileSync(last, 'utf8')).toBe('sync 3\n');
  expect(readFileSync(tables, 'utf8')).toBe('tables of sync 1\n');
});

it('writes the files of a sync that comes when nothing is being written at once', async () => {
  const clock = virtualClock(Date.UTC(2026, 0, 1));
  const last = join(dir, 'iptables', 'last-sync.txt');
  const released: number[] = [];
  let n = 0;
  loop = new ProxySyncLoop({ clock, logger: silentLogger, name: 'iptables', dir: join(dir, 'iptables'), minSyncPeriodMs: 1_000, burstSyncs: 1 }, (): SyncStep => {
    const sync = n++;
    return { ok: true, full: true, files: [[last, `sync ${sync}\n`]], release: () => released.push(sync) };
  });
  loop.start();
  await loop.flushed();
  expect(readFileSync(last, 'utf8')).toBe('sync 0\n');
  loop.requestFullSync();
  clock.advance(1_000);
  await loop.flushed();
  expect(readFileSync(last, 'utf8')).toBe('sync 1\n');
  expect(released).toEqual([0, 1]);
});
