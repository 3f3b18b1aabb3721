// What the iptables and nftables proxies share: informer changes gathered for a
// bounded-frequency runner, the choice of a full or a partial sync, the retry after a failed
// one, and each sync's files written whole in `<dataDir>/<mode>/`, their failures logged once
// per kind. The proxy itself computes a sync (its backend's state and figures); the loop runs it.
// upstream: pkg/proxy/iptables/proxier.go and pkg/proxy/nftables/proxier.go (NewProxier: the
//           sync runner with minSyncPeriod and a burst of 2; syncProxyRules: a full sync first,
//           after a failure and every FullSyncPeriod, partial syncs otherwise; a failed sync is
//           retried after syncPeriod), pkg/proxy/util (FullSyncPeriod = 1 h),
//           pkg/proxy/apis/config/v1alpha1/defaults.go (min sync period 1s, sync period 30s)
// With metrics, each sync is timed (applied or not, as upstream's deferred observation is), and
// one that applied sets the last-sync timestamp and observes each trigger time it consumed.
// upstream (v1.33): pkg/proxy/iptables/proxier.go and pkg/proxy/nftables/proxier.go
//           (syncProxyRules: SyncProxyRulesLatency in a defer, then after a successful
//           restore SyncProxyRulesLastTimestamp and NetworkProgrammingLatency per trigger time)
import { mkdirSync } from 'node:fs';
import type { ProxyChange } from '@kubesvc/proxy-iptables';
import type { CancelTimer, Clock } from '@kubesvc/store';
import type { CacheChange } from '@kubesvc/controllers';
import type { Logger } from '@kubesvc/apiserver';
import { writeFileAtomic, type FileContent } from './atomic-write.js';
import { WriteFailures } from './write-failures.js';
import { BoundedRunner } from './bounded-runner.js';
import { logLine } from './logger.js';
import { proxyChanges } from './proxied-objects.js';
import { NetworkProgrammingTracker } from './network-programming.js';
import type { NodeProxyMetrics } from './proxy-metrics.js';

/** kube-proxy's defaults (KubeProxyConfiguration v1alpha1) and proxier constants. */
export const DEFAULT_MIN_SYNC_PERIOD_MS = 1_000;
export const DEFAULT_SYNC_PERIOD_MS = 30_000;
export const DEFAULT_FULL_SYNC_PERIOD_MS = 3_600_000;
export const DEFAULT_BURST_SYNCS = 2;

/**
 * The rules files are what `iptables-save` or `nft list ruleset` would show, no secret: 0644.
 * Their folder, inside the data dir (0700), is 0700. Both are given at creation, so a umask
 * narrows them, never widens.
 */
export const PROXY_FILE_MODE = 0o644;
const PROXY_DIR_MODE = 0o700;

/** What every sync report says, whatever the mode. */
export interface ProxySyncReport {
  readonly full: boolean;
  /** Lines of the text this sync passed to the kernel (iptables-restore, nft -f). */
  readonly lines: number;
  readonly bytes: number;
  /** Lines of the file that holds the whole tables after the sync. */
  readonly tableLines: number;
  /** Milliseconds spent computing the sync (and loading it, with a loader). */
  readonly ms: number;
  /** The informer changes it consumed. */
  readonly changes: number;
  /** Syncs made so far, this one included. */
  readonly syncs: number;
}

export interface ProxySyncLoopOptions {
  readonly clock: Clock;
  readonly logger: Logger;
  /** The mode, first word of the log lines: `iptables`, `nftables`. */
  readonly name: string;
  /** The folder of the files (made at start, 0700). */
  readonly dir: string;
  /** The min sync period. Default 1 s. */
  readonly minSyncPeriodMs?: number;
  /** The sync period: the retry delay after a failed sync. Default 30 s. */
  readonly syncPeriodMs?: number;
  /** A sync at least this long after the last full one is full. Default 1 h. */
  readonly fullSyncPeriodMs?: number;
  /** Default 2. */
  readonly burstSyncs?: number;
  /** Where the syncs' durations, timestamps and network programming latencies go. Default: nowhere. */
  readonly metrics?: NodeProxyMetrics;
}

/** What the loop asks of a proxy for one sync. */
export interface SyncRequest {
  /** The informer changes since the last sync that succeeded ([] for the first: it lists the cache). */
  readonly changes: readonly ProxyChange[];
  /** Whether the loop wants a full sync (the first, after a failure, every fullSyncPeriod, or asked for). */
  readonly full: boolean;
  /** No sync has succeeded yet. */
  readonly first: boolean;
  /** The clock's time of the sync. */
  readonly now: number;
}

/** A sync made (its state kept by the proxy), or failed (the proxy's state to go on from kept too). */
export type SyncStep =
  | {
      readonly ok: true;
      /** Whether the sync was full. */
      readonly full: boolean;
      /** Files to write, in order, each whole: text, or bytes, or pieces of bytes written one after the other (a sync's restore bytes, which stay the proxy's). */
      readonly files: readonly (readonly [path: string, content: FileContent])[];
      /** Called once the files are written (or their writes failed): the bytes among them may be written over from then on. */
      readonly release?: () => void;
    }
  | { readonly ok: false; readonly error: string };

export class ProxySyncLoop {
  private pending: ProxyChange[] = [];
  private needFullSync = true;
  private lastFullSyncAt = 0;
  private synced = 0;
  private writes: Promise<void> = Promise.resolve();
  /** The files waiting for the write in progress (see write()). */
  private queued: QueuedFiles | undefined;
  private writeError: unknown;
  /** Failed writes of the files: each distinct error is logged once while they keep failing. */
  private readonly writeFailures = new WriteFailures();
  private readonly runner: BoundedRunner;
  private stopped = false;
  private readonly triggers: NetworkProgrammingTracker;

  constructor(
    private readonly options: ProxySyncLoopOptions,
    private readonly syncOnce: (request: SyncRequest) => SyncStep,
  ) {
    this.runner = new BoundedRunner(options.clock, () => this.syncNow(), {
      minIntervalMs: options.minSyncPeriodMs ?? DEFAULT_MIN_SYNC_PERIOD_MS,
      // upstream passes an arbitrary hour as the runner's maxInterval.
      maxIntervalMs: 3_600_000,
      burst: options.burstSyncs ?? DEFAULT_BURST_SYNCS,
    });
    this.triggers = new NetworkProgrammingTracker(options.clock.now());
  }

  /**
   * Makes the folder and the first (full) sync of what the cache holds, as kube-proxy does once
   * its informers have synced, before it returns: a caller that subscribes to the informer in
   * the same turn misses no change. The files are written in the background (see flushed()).
   */
  start(): void {
    mkdirSync(this.options.dir, { recursive: true, mode: PROXY_DIR_MODE });
    this.syncNow();
  }

  onChange(change: CacheChange): void {
    if (this.stopped) return;
    const changes = proxyChanges(change);
    if (changes.length === 0) return;
    for (const c of changes) {
      if (c.kind === 'EndpointSliceAdd' || c.kind === 'EndpointSliceUpdate') this.triggers.sliceUpdated(c.endpointSlice);
      else if (c.kind === 'EndpointSliceDelete') this.triggers.sliceRemoved(c.endpointSlice);
    }
    this.pending.push(...changes);
    this.runner.run();
  }

  /** Makes the next sync full and asks for it (a change of what only a full sync writes). */
  requestFullSync(): void {
    if (this.stopped) return;
    this.needFullSync = true;
    this.runner.run();
  }

  /** Syncs made so far. */
  get syncs(): number {
    return this.synced;
  }

  /** Whether changes wait for the runner. */
  get syncPending(): boolean {
    return this.runner.pending;
  }

  /** Resolves when every file write so far has finished; rejects, while the writes fail, with the first error since the last write that succeeded. */
  async flushed(): Promise<void> {
    await this.writes;
    if (this.writeError !== undefined) throw this.writeError;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.runner.stop();
    await this.writes;
  }

  private syncNow(): void {
    if (this.stopped) return;
    const now = this.options.clock.now();
    const full = this.needFullSync || now - this.lastFullSyncAt >= (this.options.fullSyncPeriodMs ?? DEFAULT_FULL_SYNC_PERIOD_MS);
    // The first sync lists the cache, which holds every change so far: pending ones are in it.
    const first = this.synced === 0;
    const changes = first ? [] : this.pending;
    this.pending = [];
    // The trigger times are taken as the sync begins: a sync that fails drops them, as upstream's does.
    const triggers = this.triggers.checkout();
    const started = performance.now();
    const step = this.syncOnce({ changes, full, first, now });
    this.options.metrics?.syncDuration((performance.now() - started) / 1000);
    if (!step.ok) {
      // upstream: a failed sync keeps the old state, retries after syncPeriod, and makes the
      // next sync full. The changes are kept for it, in order.
      this.pending = [...changes, ...this.pending];
      this.needFullSync = true;
      const retryMs = this.options.syncPeriodMs ?? DEFAULT_SYNC_PERIOD_MS;
      this.options.logger.log('warning', logLine(`${this.options.name} sync failed to load, retrying`, { error: step.error, retryMs }));
      this.runner.retryAfter(retryMs);
      return;
    }
    this.synced++;
    this.observeApplied(triggers);
    if (step.full) {
      this.needFullSync = false;
      this.lastFullSyncAt = now;
    }
    this.write(step.files, step.release);
  }

  /** Writes files outside a sync (after the ones already queued), each whole: a view of the state the proxy renders later. */
  writeFiles(files: readonly (readonly [path: string, text: string])[]): void {
    if (this.stopped) return;
    this.write(files, undefined);
  }

  private observeApplied(triggers: ReadonlyMap<string, readonly number[]>): void {
    const metrics = this.options.metrics;
    if (metrics === undefined) return;
    const now = this.options.clock.now();
    metrics.syncApplied(now);
    for (const times of triggers.values()) for (const t of times) metrics.networkProgrammed((now - t) / 1000);
  }

  /**
   * Queues the files after the writes in progress. Files queued while a write is in progress
   * wait together, and a later sync's file replaces an earlier one's at the same path that has
   * not begun to be written (each file is written whole, so only its last content matters): a
   * slow disk delays the files, it does not pile up one restore text per sync, each holding the
   * buffer of its sync. A sync's `release` is called once none of its files waits any more.
   */
  private write(files: readonly (readonly [string, FileContent])[], release: (() => void) | undefined): void {
    let batch = this.queued;
    if (batch === undefined) {
      const fresh: QueuedFiles = { files: new Map(), releases: new Map(), nextOwner: 0 };
      batch = fresh;
      this.queued = fresh;
      this.writes = this.writes.then(() => {
        // From here on the batch is being written: later files queue behind it.
        if (this.queued === fresh) this.queued = undefined;
        return this.writeBatch(fresh);
      });
    }
    const owner = batch.nextOwner++;
    if (release !== undefined) batch.releases.set(owner, release);
    for (const [path, content] of files) {
      const replaced = batch.files.get(path);
      batch.files.set(path, { content, owner });
      if (replaced !== undefined && replaced.owner !== owner) releaseIfDone(batch, replaced.owner);
    }
    releaseIfDone(batch, owner);
  }

  private async writeBatch(batch: QueuedFiles): Promise<void> {
    const { logger, name } = this.options;
    try {
      for (const [path, { content }] of batch.files) await writeFileAtomic(path, content, PROXY_FILE_MODE);
    } catch (error) {
      // The sync itself stands (the state is the loader's); the files are written whole
      // again at the next sync. A failure that repeats (the same code: the temporary file's
      // name differs each time) is logged once, not at every sync.
      this.writeError ??= error;
      if (this.writeFailures.fail(error)) {
        logger.log('warning', logLine(`${name} files not written, written again at the next sync`, { error: String(error), failedWrites: this.writeFailures.total }));
      }
      return;
    } finally {
      for (const release of batch.releases.values()) release();
      batch.releases.clear();
    }
    this.writeError = undefined;
    if (this.writeFailures.succeed() > 0) logger.log('warning', logLine(`${name} files written again`, { failedWrites: this.writeFailures.total }));
  }
}

/** Files that wait for the write in progress, by path, each with the sync (owner) it came from. */
interface QueuedFiles {
  readonly files: Map<string, { readonly content: FileContent; readonly owner: number }>;
  /** The release of each sync that still has files waiting. */
  readonly releases: Map<number, () => void>;
  nextOwner: number;
}

/** Calls the owner's release once no file of its waits in the batch. */
function releaseIfDone(batch: QueuedFiles, owner: number): void {
  const release = batch.releases.get(owner);
  if (release === undefined) return;
  for (const waiting of batch.files.values()) if (waiting.owner === owner) return;
  batch.releases.delete(owner);
  release();
}

export function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Files to write: path and content. */
export type ProxyFiles = (readonly [path: string, text: string])[];

/**
 * When a proxy's whole-table files (a print of every Service, whatever a sync changed) are
 * printed: at the first sync; then, with an interval, at most once per interval (the state as
 * it stands once the interval has passed, by a timer if no sync comes), Infinity meaning never
 * again; without one (0), at every sync.
 */
export class TablesFilesSchedule {
  private renderedAt = -Infinity;
  private timer: CancelTimer | undefined;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly intervalMs: number,
    private readonly loop: ProxySyncLoop,
    private readonly render: () => ProxyFiles,
  ) {}

  /** The files a sync writes now: the tables printed, or nothing while the interval runs. */
  atSync(): ProxyFiles {
    const due = this.renderedAt + this.intervalMs;
    const first = this.renderedAt === -Infinity;
    if (this.intervalMs === Infinity && !first) return [];
    if (first || this.intervalMs <= 0 || this.clock.now() >= due) {
      this.timer?.();
      this.timer = undefined;
      return this.rendered();
    }
    this.timer ??= this.clock.setTimer(due, () => {
      this.timer = undefined;
      if (!this.stopped) this.loop.writeFiles(this.rendered());
    });
    return [];
  }

  stop(): void {
    this.stopped = true;
    this.timer?.();
    this.timer = undefined;
  }

  private rendered(): ProxyFiles {
    this.renderedAt = this.clock.now();
    return this.render();
  }
}
