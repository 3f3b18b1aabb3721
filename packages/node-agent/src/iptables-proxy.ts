// kube-proxy's iptables mode on the node: informer changes become proxy-iptables' ProxyChange
// events, and a bounded-frequency runner turns the events gathered so far into one sync
// (proxy-sync-loop.ts, which the nftables mode shares).
// upstream: pkg/proxy/iptables/proxier.go (NewProxier: the sync runner with minSyncPeriod and a
//           burst of 2; syncProxyRules: a full sync first, after a failure and every
//           FullSyncPeriod, partial syncs otherwise), pkg/proxy/util (FullSyncPeriod = 1 h),
//           pkg/proxy/apis/config/v1alpha1/defaults.go (--iptables-min-sync-period 1s,
//           --iptables-sync-period 30s)
//
// Each sync's output goes to files in `<dataDir>/iptables/`, each written whole (a temporary
// file renamed over the old one, 0644 in a 0700 folder):
// - rules.txt: the tables as they stand after the sync, as iptables-restore text: exactly what
//   a full sync of the same objects writes (generateRules' text);
// - rules.save.txt: the same tables as iptables-save prints them (nft or legacy);
// - last-sync.txt: what this sync passed to `iptables-restore --noflush`, partial or full.
// A sync writes its restore text into a byte buffer the proxy keeps (proxy-iptables'
// RestoreBuffer, as kube-proxy keeps a bytes.Buffer), and the loader and last-sync.txt take those
// bytes: a buffer is in use until the sync's files are written, so a sync that starts while the
// last one's files are still being written takes another (two in the usual case). When the
// writes lag behind many syncs (a loaded machine, a slow disk), a later sync's last-sync.txt
// replaces the one that waits behind the write in progress, whose buffer comes back at once
// (proxy-sync-loop.ts), so a backlog holds two or three buffers, not one per sync; once written,
// at most SPARE_BUFFERS are kept for the next syncs and the others are let go (at 10,000
// Services a buffer is about 2 MiB after partial syncs, 31 MiB after a full one).
// A partial sync's text alone does not say what the tables hold, which is why rules.txt is
// the tables and last-sync.txt the sync.
// rules.txt and rules.save.txt are a render of every Service, whatever the sync changed: with
// tablesFilesIntervalMs they are rendered at most that often (the last state always, once the
// interval has passed), so that a partial sync costs what it changed; last-sync.txt is written
// at every sync.
import { join } from 'node:path';
import {
  createSaveViewMemo,
  iptablesSaveView,
  printRestoreText,
  RestoreBuffer,
  sync,
  syncChanges,
  syncedRuleset,
  type ProxierConfig,
  type RenderCache,
  type SaveBackend,
  type SaveViewMemo,
  type SaveViewMemoStats,
  type SyncResult,
  type SyncState,
} from '@kubesvc/proxy-iptables';
import type { Clock } from '@kubesvc/store';
import type { CacheChange, CacheView } from '@kubesvc/controllers';
import type { Logger } from '@kubesvc/apiserver';
import { logLine } from './logger.js';
import { proxiedObjects } from './proxied-objects.js';
import { countLines, ProxySyncLoop, TablesFilesSchedule, type ProxyFiles, type ProxySyncReport, type SyncRequest, type SyncStep } from './proxy-sync-loop.js';
import type { NodeProxyMetrics } from './proxy-metrics.js';

/** Restore buffers kept for the next syncs once their files are written: the usual case needs two. */
export const SPARE_BUFFERS = 2;

/** Loads a sync's restore text into a data plane (a network namespace's kernel, say). */
export interface IptablesLoader {
  /**
   * `restore`: the text's bytes, for `iptables-restore --noflush`'s stdin, valid during the call
   * only (the proxy writes its next sync over them). `first`: the first sync since the loader
   * started, after which kube-proxy adds its jump rules. Throws when the load fails.
   */
  load(restore: Uint8Array, state: SyncState, first: boolean): void;
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
  /**
   * rules.txt and rules.save.txt (the whole tables) are rendered and written at most this often:
   * a sync within the interval of the last render writes last-sync.txt alone, and the tables as
   * they stand then are written when the interval ends. Infinity: the first sync's only (a
   * bench that reads last-sync.txt and the metrics alone). Default 0: at every sync.
   */
  readonly tablesFilesIntervalMs?: number;
  /** Where the syncs' metrics go. */
  readonly metrics?: NodeProxyMetrics;
  /** Rendered Service text shared with other proxies' syncs of the same objects (proxy-iptables' SyncOptions.renderCache). */
  readonly renderCache?: RenderCache;
}

/** What one sync did. */
export interface IptablesSyncReport extends ProxySyncReport {
  readonly servicesChanged: number;
  readonly chainsDeleted: number;
}

export interface IptablesFiles {
  readonly dir: string;
  readonly rules: string;
  readonly save: string;
  readonly lastSync: string;
}

export function iptablesFiles(dataDir: string): IptablesFiles {
  const dir = join(dataDir, 'iptables');
  return { dir, rules: join(dir, 'rules.txt'), save: join(dir, 'rules.save.txt'), lastSync: join(dir, 'last-sync.txt') };
}

export class IptablesProxy {
  readonly files: IptablesFiles;
  private state: SyncState | undefined;
  private loaded = false;
  private report: IptablesSyncReport | undefined;
  private readonly loop: ProxySyncLoop;
  /** Restore buffers no sync's files are being written from (see the file's opening comment). */
  private readonly buffers: RestoreBuffer[] = [];
  /** When the tables files are rendered (tablesFilesIntervalMs). */
  private readonly tables: TablesFilesSchedule;
  private tableLines = 0;
  /**
   * The save view's rule lines parsed and printed at earlier renders, so that a render re-reads
   * only what changed: kept only when the tables are rendered again (a finite
   * tablesFilesIntervalMs). It holds every rule line of the tables parsed and printed, about
   * 2 KiB a line (665 MiB at 10,000 Services of 10 endpoints): with a first render only, it
   * would hold that for nothing.
   */
  private readonly saveMemo: SaveViewMemo | undefined;

  /** The sync options every sync passes on: the render cache, if any. */
  private readonly shared: { readonly renderCache?: RenderCache };

  private constructor(private readonly options: IptablesProxyOptions) {
    this.shared = options.renderCache === undefined ? {} : { renderCache: options.renderCache };
    this.files = iptablesFiles(options.dataDir);
    this.loop = new ProxySyncLoop(
      {
        clock: options.clock,
        logger: options.logger,
        name: 'iptables',
        dir: this.files.dir,
        ...(options.minSyncPeriodMs !== undefined ? { minSyncPeriodMs: options.minSyncPeriodMs } : {}),
        ...(options.syncPeriodMs !== undefined ? { syncPeriodMs: options.syncPeriodMs } : {}),
        ...(options.fullSyncPeriodMs !== undefined ? { fullSyncPeriodMs: options.fullSyncPeriodMs } : {}),
        ...(options.burstSyncs !== undefined ? { burstSyncs: options.burstSyncs } : {}),
        ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
      },
      (request) => this.syncOnce(request),
    );
    this.saveMemo = (options.tablesFilesIntervalMs ?? 0) === Infinity ? undefined : createSaveViewMemo();
    this.tables = new TablesFilesSchedule(options.clock, options.tablesFilesIntervalMs ?? 0, this.loop, () => this.renderTables());
  }

  /**
   * Makes the first (full) sync of what the cache holds, as kube-proxy does once its informers
   * have synced, before it returns: a caller that subscribes to the informer in the same turn
   * misses no change. The files are written in the background (see flushed()).
   */
  static start(options: IptablesProxyOptions): IptablesProxy {
    const proxy = new IptablesProxy(options);
    proxy.loop.start();
    return proxy;
  }

  onChange(change: CacheChange): void {
    this.loop.onChange(change);
  }

  /** The last sync's figures. */
  lastSync(): IptablesSyncReport | undefined {
    return this.report;
  }

  /** The sync state after the last sync (proxy-iptables' value: the tables, for the tracer). */
  syncState(): SyncState | undefined {
    return this.state;
  }

  /** How much of the save view the renders so far parsed and printed afresh; undefined when the tables are rendered once only (no memo kept). */
  saveViewStats(): SaveViewMemoStats | undefined {
    return this.saveMemo?.stats();
  }

  /** Restore buffers kept for the next syncs (at most SPARE_BUFFERS). */
  get spareBuffers(): number {
    return this.buffers.length;
  }

  /** Whether changes wait for the runner. */
  get syncPending(): boolean {
    return this.loop.syncPending;
  }

  /** Resolves when every file write so far has finished; rejects, while the writes fail, with the first error since the last write that succeeded. */
  flushed(): Promise<void> {
    return this.loop.flushed();
  }

  stop(): Promise<void> {
    this.tables.stop();
    return this.loop.stop();
  }

  /** rules.txt and rules.save.txt of the state as it stands now. */
  private renderTables(): ProxyFiles {
    const state = this.state;
    if (state === undefined) return [];
    const ruleset = syncedRuleset(state);
    const tables = printRestoreText(ruleset);
    this.tableLines = countLines(tables);
    const saved = iptablesSaveView(tables, { family: ruleset.family, backend: this.options.saveBackend ?? 'nft', ...(this.saveMemo === undefined ? {} : { memo: this.saveMemo }) });
    if (!saved.ok) this.options.logger.log('warning', logLine('iptables save view failed', { error: saved.error.message }));
    return [[this.files.rules, tables], ...(saved.ok ? [[this.files.save, saved.value] as const] : [])];
  }

  /** A buffer whose sync's files are written (or failed): kept for a next sync, unless enough are. */
  private spare(buffer: RestoreBuffer): void {
    if (this.buffers.length < SPARE_BUFFERS) this.buffers.push(buffer);
  }

  private syncOnce({ changes, full }: SyncRequest): SyncStep {
    const started = performance.now();
    // A first sync takes no buffer: its text is handed out as views of the bytes its state keeps,
    // never copied (SyncResult.restoreChunks); a later sync writes into a buffer kept between syncs.
    let buffer: RestoreBuffer | undefined;
    let result: SyncResult;
    try {
      if (this.state === undefined) {
        const { services, endpointSlices } = proxiedObjects(this.options.source);
        result = sync(undefined, services, endpointSlices, this.options.config, this.shared);
      } else {
        buffer = this.buffers.pop() ?? new RestoreBuffer();
        result = syncChanges(this.state, changes, this.options.config, { full, buffer, ...this.shared });
      }
      this.options.loader?.load(result.restoreBytes, result.state, !this.loaded);
      this.loaded = true;
    } catch (error) {
      if (buffer !== undefined) this.spare(buffer);
      // upstream: a failed restore keeps the old state (the loop retries, with a full sync).
      return { ok: false, error: String(error) };
    }
    this.state = result.state;
    const tablesFiles = this.tables.atSync();
    const ms = performance.now() - started;
    this.report = {
      full: result.stats.full,
      lines: result.stats.lines,
      bytes: result.stats.bytes,
      tableLines: this.tableLines,
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
    return {
      ok: true,
      full: result.stats.full,
      files: [[this.files.lastSync, result.restoreChunks], ...tablesFiles],
      ...(buffer === undefined ? {} : { release: () => this.spare(buffer) }),
    };
  }
}
