// kube-proxy's iptables mode on the node: informer changes become proxy-iptables' ProxyChange
// events, and a bounded-frequency runner turns the events gathered so far into one sync.
// upstream: pkg/proxy/iptables/proxier.go (NewProxier: the sync runner with minSyncPeriod and a
//           burst of 2; syncProxyRules: a full sync first, after a failure and every
//           FullSyncPeriod, partial syncs otherwise), pkg/proxy/util (FullSyncPeriod = 1 h),
//           pkg/proxy/apis/config/v1alpha1/defaults.go (--iptables-min-sync-period 1s,
//           --iptables-sync-period 30s)
//
// Each sync's output goes to files in `<dataDir>/iptables/`, each written whole (a temporary
// file renamed over the old one):
// - rules.txt: the tables as they stand after the sync, as iptables-restore text: exactly what
//   a full sync of the same objects writes (generateRules' text);
// - rules.save.txt: the same tables as iptables-save prints them (nft or legacy);
// - last-sync.txt: what this sync passed to `iptables-restore --noflush`, partial or full.
// A partial sync's text alone does not say what the tables hold, which is why rules.txt is
// the tables and last-sync.txt the sync.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  iptablesSaveViewOfRuleset,
  printRestoreText,
  sync,
  syncChanges,
  syncedRuleset,
  type ProxierConfig,
  type ProxyChange,
  type SaveBackend,
  type SyncResult,
  type SyncState,
} from '@kubesvc/proxy-iptables';
import type { Clock } from '@kubesvc/store';
import type { CacheChange, CacheView } from '@kubesvc/controllers';
import type { Logger } from '@kubesvc/apiserver';
import { writeFileAtomic } from './atomic-write.js';
import { WriteFailures } from './write-failures.js';
import { BoundedRunner } from './bounded-runner.js';
import { logLine } from './logger.js';
import { proxiedObjects, proxyChanges } from './proxied-objects.js';

/** kube-proxy's defaults (KubeProxyConfiguration v1alpha1) and proxier constants. */
export const DEFAULT_MIN_SYNC_PERIOD_MS = 1_000;
export const DEFAULT_SYNC_PERIOD_MS = 30_000;
export const DEFAULT_FULL_SYNC_PERIOD_MS = 3_600_000;
export const DEFAULT_BURST_SYNCS = 2;

/** Loads a sync's restore text into a data plane (a network namespace's kernel, say). */
export interface IptablesLoader {
  /** `first`: the first sync since the loader started, after which kube-proxy adds its jump rules. Throws when the load fails. */
  load(restoreText: string, state: SyncState, first: boolean): void;
}

export interface IptablesProxyOptions {
  readonly source: CacheView;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: ProxierConfig;
  /** The files go to `<dataDir>/iptables/`. */
  readonly dataDir: string;
  /** Whose iptables-save the save view mirrors. Default nft. */
  readonly saveBackend?: SaveBackend;
  /** --iptables-min-sync-period. Default 1 s. */
  readonly minSyncPeriodMs?: number;
  /** --iptables-sync-period: the retry delay after a failed sync. Default 30 s. */
  readonly syncPeriodMs?: number;
  /** A sync at least this long after the last full one is full. Default 1 h. */
  readonly fullSyncPeriodMs?: number;
  /** Default 2. */
  readonly burstSyncs?: number;
  readonly loader?: IptablesLoader;
}

/** What one sync did. */
export interface IptablesSyncReport {
  readonly full: boolean;
  /** Lines of the restore text this sync wrote. */
  readonly lines: number;
  readonly bytes: number;
  /** Lines of rules.txt (the whole tables). */
  readonly tableLines: number;
  readonly servicesChanged: number;
  readonly chainsDeleted: number;
  /** Milliseconds spent computing the sync (and loading it, with a loader). */
  readonly ms: number;
  /** The informer changes it consumed. */
  readonly changes: number;
  /** Syncs made so far, this one included. */
  readonly syncs: number;
}

export interface IptablesFiles {
  readonly dir: string;
  readonly rules: string;
  readonly save: string;
  readonly lastSync: string;
}

/**
 * The rules files are what `iptables-save` would show, no secret: 0644. Their folder, inside the
 * data dir (0700), is 0700. Both are given at creation, so a umask narrows them, never widens.
 */
export const IPTABLES_FILE_MODE = 0o644;
const IPTABLES_DIR_MODE = 0o700;

export function iptablesFiles(dataDir: string): IptablesFiles {
  const dir = join(dataDir, 'iptables');
  return { dir, rules: join(dir, 'rules.txt'), save: join(dir, 'rules.save.txt'), lastSync: join(dir, 'last-sync.txt') };
}

export class IptablesProxy {
  readonly files: IptablesFiles;
  private state: SyncState | undefined;
  private pending: ProxyChange[] = [];
  private needFullSync = true;
  private lastFullSyncAt = 0;
  private loaded = false;
  private report: IptablesSyncReport | undefined;
  private writes: Promise<void> = Promise.resolve();
  private writeError: unknown;
  /** Failed writes of the rules files: each distinct error is logged once while they keep failing. */
  private readonly writeFailures = new WriteFailures();
  private readonly runner: BoundedRunner;
  private stopped = false;

  private constructor(private readonly options: IptablesProxyOptions) {
    this.files = iptablesFiles(options.dataDir);
    this.runner = new BoundedRunner(options.clock, () => this.syncNow(), {
      minIntervalMs: options.minSyncPeriodMs ?? DEFAULT_MIN_SYNC_PERIOD_MS,
      // upstream passes an arbitrary hour as the runner's maxInterval.
      maxIntervalMs: 3_600_000,
      burst: options.burstSyncs ?? DEFAULT_BURST_SYNCS,
    });
  }

  /**
   * Makes the first (full) sync of what the cache holds, as kube-proxy does once its informers
   * have synced, before it returns: a caller that subscribes to the informer in the same turn
   * misses no change. The files are written in the background (see flushed()).
   */
  static start(options: IptablesProxyOptions): IptablesProxy {
    const proxy = new IptablesProxy(options);
    mkdirSync(proxy.files.dir, { recursive: true, mode: IPTABLES_DIR_MODE });
    proxy.syncNow();
    return proxy;
  }

  onChange(change: CacheChange): void {
    if (this.stopped) return;
    const changes = proxyChanges(change);
    if (changes.length === 0) return;
    this.pending.push(...changes);
    this.runner.run();
  }

  /** The last sync's figures. */
  lastSync(): IptablesSyncReport | undefined {
    return this.report;
  }

  /** The sync state after the last sync (proxy-iptables' value: the tables, for the tracer). */
  syncState(): SyncState | undefined {
    return this.state;
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
    const started = performance.now();
    const now = this.options.clock.now();
    const full = this.needFullSync || now - this.lastFullSyncAt >= (this.options.fullSyncPeriodMs ?? DEFAULT_FULL_SYNC_PERIOD_MS);
    // The first sync lists the cache, which holds every change so far: pending ones are in it.
    const changes = this.state === undefined ? [] : this.pending;
    this.pending = [];
    let result: SyncResult;
    if (this.state === undefined) {
      const { services, endpointSlices } = proxiedObjects(this.options.source);
      result = sync(undefined, services, endpointSlices, this.options.config);
    } else {
      result = syncChanges(this.state, changes, this.options.config, { full });
    }
    try {
      this.options.loader?.load(result.restoreText, result.state, !this.loaded);
      this.loaded = true;
    } catch (error) {
      // upstream: a failed restore keeps the old state, retries after syncPeriod, and makes the
      // next sync full. The changes are kept for it, in order.
      this.pending = [...changes, ...this.pending];
      this.needFullSync = true;
      this.options.logger.log('warning', logLine('iptables sync failed to load, retrying', { error: String(error), retryMs: this.options.syncPeriodMs ?? DEFAULT_SYNC_PERIOD_MS }));
      this.runner.retryAfter(this.options.syncPeriodMs ?? DEFAULT_SYNC_PERIOD_MS);
      return;
    }
    this.state = result.state;
    if (result.stats.full) {
      this.needFullSync = false;
      this.lastFullSyncAt = now;
    }
    const ruleset = syncedRuleset(result.state);
    const tables = printRestoreText(ruleset);
    const saved = iptablesSaveViewOfRuleset(ruleset, this.options.saveBackend ?? 'nft');
    const ms = performance.now() - started;
    this.report = {
      full: result.stats.full,
      lines: result.stats.lines,
      bytes: result.stats.bytes,
      tableLines: countLines(tables),
      servicesChanged: result.stats.servicesChanged,
      chainsDeleted: result.stats.chainsDeleted,
      ms,
      changes: changes.length,
      syncs: result.state.syncs,
    };
    this.options.logger.log('info', logLine('iptables sync', {
      mode: result.stats.full ? 'full' : 'partial',
      lines: result.stats.lines,
      tableLines: this.report.tableLines,
      servicesChanged: result.stats.servicesChanged,
      ms: Math.round(ms * 100) / 100,
    }));
    if (!saved.ok) this.options.logger.log('warning', logLine('iptables save view failed', { error: saved.error.message }));
    const restoreText = result.restoreText;
    this.writes = this.writes.then(async () => {
      try {
        await writeFileAtomic(this.files.lastSync, restoreText, IPTABLES_FILE_MODE);
        await writeFileAtomic(this.files.rules, tables, IPTABLES_FILE_MODE);
        if (saved.ok) await writeFileAtomic(this.files.save, saved.value, IPTABLES_FILE_MODE);
      } catch (error) {
        // The sync itself stands (the state is the loader's); the files are written whole
        // again at the next sync. A failure that repeats (the same code: the temporary file's
        // name differs each time) is logged once, not at every sync.
        this.writeError ??= error;
        if (this.writeFailures.fail(error)) {
          this.options.logger.log('warning', logLine('iptables files not written, written again at the next sync', { error: String(error), failedWrites: this.writeFailures.total }));
        }
        return;
      }
      this.writeError = undefined;
      if (this.writeFailures.succeed() > 0) this.options.logger.log('warning', logLine('iptables files written again', { failedWrites: this.writeFailures.total }));
    });
  }
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
