// kube-proxy's nftables mode (v1.33) on the node: informer changes wake the bounded-frequency
// runner (proxy-sync-loop.ts, shared with the iptables mode), and each run is one
// syncProxyRules of proxy-nftables' syncNftables over the Services and EndpointSlices the
// cache holds, full or partial from the state the last sync left, at the agent's Clock's time
// (stale service chains are deleted once they are older than STALE_CHAIN_GRACE_MS).
// upstream: pkg/proxy/nftables/proxier.go (v1.33: NewProxier, syncProxyRules, the sync runner
//           with minSyncPeriod and a burst of 2; a failed transaction sets needFullSync and
//           retries after syncPeriod)
//
// Each sync's output goes to files in `<dataDir>/nftables/`, each written whole (a temporary
// file renamed over the old one, 0644 in a 0700 folder):
// - ruleset.nft: the `ip kube-proxy` table as it stands after the sync, as the `add` commands
//   of knftables' Dump (the form upstream's proxier tests compare), ordered so that `nft -f`
//   loads the file into an empty network namespace: the table, every chain, the sets and maps
//   with their elements, then the rules chain by chain (loadableDump). Dump's own order puts
//   each chain's rules before the sets and maps they name (`vmap @service-ips`), which nft
//   refuses ("No such file or directory");
// - last-sync.nft: what this sync passed to `nft -f`, partial or full (the stale chains'
//   deletion first, when one was due).
// ruleset.nft is a print of the whole table, whatever the sync changed: with
// tablesFilesIntervalMs it is printed at most that often (the last state always, once the
// interval has passed), so that a partial sync costs what it changed; last-sync.nft is written
// at every sync.
//
// The ServiceCIDRs (cluster-ips-check's drop of unallocated ClusterIPs) are part of the
// config: kubesvc's node agent does not watch `servicecidrs`, so the agent takes them from
// the --service-cluster-ip-range the control plane was started with. setServiceCIDRs changes
// them and forces a full sync, which upstream's OnServiceCIDRsChanged does not (it records them
// for the next full sync, up to an hour later): here a change can only come from a restart of
// kubesvc, whose first sync is full, and the files should show the new drop rule at once.
import { join } from 'node:path';
import {
  dumpTransaction,
  INITIAL_NFTABLES_SYNC_STATE,
  nftablesProxierConfig,
  printTransaction,
  syncNftables,
  type ErrNftablesProxierConfig,
  type NftablesProxierConfig,
  type NftablesSyncState,
  type NftOperation,
  type NftTable,
  type NftTransaction,
} from '@kubesvc/proxy-nftables';
import { ok, type Result } from '@kubesvc/api-types';
import type { Clock } from '@kubesvc/store';
import type { CacheChange, CacheView } from '@kubesvc/controllers';
import type { Logger } from '@kubesvc/apiserver';
import { logLine } from './logger.js';
import { proxiedObjects } from './proxied-objects.js';
import { countLines, ProxySyncLoop, TablesFilesSchedule, type ProxyFiles, type ProxySyncReport, type SyncRequest, type SyncStep } from './proxy-sync-loop.js';
import type { NodeProxyMetrics } from './proxy-metrics.js';

/** Loads a sync's `nft -f` text into a data plane (a network namespace's kernel, say). */
export interface NftablesLoader {
  /** `table`: the table as it stands once the text is loaded (for a tracer). Throws when the load fails. */
  loadNftables(text: string, table: NftTable): void;
}

export interface NftablesProxyOptions {
  readonly source: CacheView;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: NftablesProxierConfig;
  /** The files go to `<dataDir>/nftables/`. */
  readonly dataDir: string;
  /** KubeProxyConfiguration's nftables.minSyncPeriod. Default 1 s. */
  readonly minSyncPeriodMs?: number;
  /** nftables.syncPeriod: the retry delay after a failed sync. Default 30 s. */
  readonly syncPeriodMs?: number;
  /** A sync at least this long after the last full one is full. Default 1 h. */
  readonly fullSyncPeriodMs?: number;
  /** Default 2. */
  readonly burstSyncs?: number;
  readonly loader?: NftablesLoader;
  /** Where the syncs' metrics go. */
  readonly metrics?: NodeProxyMetrics;
  /**
   * ruleset.nft (a print of the whole table) at most this often, the last state always once
   * the interval has passed; last-sync.nft at every sync. Infinity: the first sync's only.
   * Default 0: at every sync.
   */
  readonly tablesFilesIntervalMs?: number;
}

/** What one sync did. */
export interface NftablesSyncReport extends ProxySyncReport {
  /** Stale chains deleted before the sync, in their own transaction. */
  readonly chainsDeleted: number;
  /** Chains flushed and waiting out their grace period after the sync. */
  readonly staleChains: number;
}

export interface NftablesFiles {
  readonly dir: string;
  readonly ruleset: string;
  readonly lastSync: string;
}

/**
 * `table` as dumpTransaction's operations, reordered (stably) so that each names only what an
 * earlier one made: the table, the chains (an element's `goto` and a rule's `jump` name one),
 * the sets and maps with their elements (a rule's `@name` names one), then the rules.
 */
export function loadableDump(table: NftTable): NftTransaction {
  const dump = dumpTransaction(table);
  const rank: Readonly<Record<NftOperation['object']['kind'], number>> = { table: 0, chain: 1, set: 2, map: 2, element: 2, rule: 3 };
  const operations = [0, 1, 2, 3].flatMap((r) => dump.operations.filter((op) => rank[op.object.kind] === r));
  return { ...dump, operations };
}

export function nftablesFiles(dataDir: string): NftablesFiles {
  const dir = join(dataDir, 'nftables');
  return { dir, ruleset: join(dir, 'ruleset.nft'), lastSync: join(dir, 'last-sync.nft') };
}

/** `config` with other ServiceCIDRs (those of its family are kept), checked as nftablesProxierConfig checks them. */
export function withServiceCIDRs(config: NftablesProxierConfig, serviceCIDRs: readonly string[]): Result<NftablesProxierConfig, ErrNftablesProxierConfig> {
  const { nodeIP, ...rest } = config;
  return nftablesProxierConfig({ ...rest, ...(nodeIP === '' ? {} : { nodeIP }), serviceCIDRs });
}

export class NftablesProxy {
  readonly files: NftablesFiles;
  private state: NftablesSyncState = INITIAL_NFTABLES_SYNC_STATE;
  private configNow: NftablesProxierConfig;
  private report: NftablesSyncReport | undefined;
  private readonly loop: ProxySyncLoop;
  private readonly tables: TablesFilesSchedule;
  private tableLines = 0;

  private constructor(private readonly options: NftablesProxyOptions) {
    this.files = nftablesFiles(options.dataDir);
    this.configNow = options.config;
    this.loop = new ProxySyncLoop(
      {
        clock: options.clock,
        logger: options.logger,
        name: 'nftables',
        dir: this.files.dir,
        ...(options.minSyncPeriodMs !== undefined ? { minSyncPeriodMs: options.minSyncPeriodMs } : {}),
        ...(options.syncPeriodMs !== undefined ? { syncPeriodMs: options.syncPeriodMs } : {}),
        ...(options.fullSyncPeriodMs !== undefined ? { fullSyncPeriodMs: options.fullSyncPeriodMs } : {}),
        ...(options.burstSyncs !== undefined ? { burstSyncs: options.burstSyncs } : {}),
        ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
      },
      (request) => this.syncOnce(request),
    );
    this.tables = new TablesFilesSchedule(options.clock, options.tablesFilesIntervalMs ?? 0, this.loop, () => this.renderTables());
  }

  /**
   * Makes the first (full) sync of what the cache holds before it returns, as the iptables
   * proxy does (IptablesProxy.start). The files are written in the background (see flushed()).
   */
  static start(options: NftablesProxyOptions): NftablesProxy {
    const proxy = new NftablesProxy(options);
    proxy.loop.start();
    return proxy;
  }

  onChange(change: CacheChange): void {
    this.loop.onChange(change);
  }

  /** The settings of the next sync. */
  get config(): NftablesProxierConfig {
    return this.configNow;
  }

  /**
   * New ServiceCIDRs for cluster-ips-check. A change forces a full sync (see the header for
   * why upstream does not); the same CIDRs again change nothing. A bad CIDR is refused.
   */
  setServiceCIDRs(serviceCIDRs: readonly string[]): Result<void, ErrNftablesProxierConfig> {
    const next = withServiceCIDRs(this.configNow, serviceCIDRs);
    if (!next.ok) return next;
    const same = next.value.serviceCIDRs.length === this.configNow.serviceCIDRs.length && next.value.serviceCIDRs.every((c, i) => c === this.configNow.serviceCIDRs[i]);
    if (!same) {
      this.configNow = next.value;
      this.loop.requestFullSync();
    }
    return ok(undefined);
  }

  /** The last sync's figures. */
  lastSync(): NftablesSyncReport | undefined {
    return this.report;
  }

  /** proxy-nftables' state after the last sync (its table, for the tracer). */
  syncState(): NftablesSyncState {
    return this.state;
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

  /** ruleset.nft of the table as it stands now. */
  private renderTables(): ProxyFiles {
    const table = this.state.table;
    if (table === undefined) return [];
    const dumped = printTransaction(loadableDump(table));
    // The dump prints what a sync printed: a refusal would be a bug in proxy-nftables.
    if (!dumped.ok) {
      this.options.logger.log('warning', logLine('nftables ruleset dump failed', { error: dumped.error.message }));
      return [];
    }
    this.tableLines = countLines(dumped.value);
    return [[this.files.ruleset, dumped.value]];
  }

  private syncOnce({ changes, full, now }: SyncRequest): SyncStep {
    const started = performance.now();
    // syncNftables tells the changed services from what each derived to last time: it takes
    // every object kube-proxy sees, not the changes.
    const { services, endpointSlices } = proxiedObjects(this.options.source);
    const synced = syncNftables(this.state, services, endpointSlices, this.configNow, { now, full });
    if (!synced.ok) {
      // The state to go on from needs a full sync (upstream: needFullSync, staleChains cleared).
      this.state = synced.error.state;
      return { ok: false, error: synced.error.message };
    }
    const result = synced.value;
    const table = result.state.table;
    if (table !== undefined) {
      try {
        this.options.loader?.loadNftables(result.text, table);
      } catch (error) {
        // upstream: the transaction failed, so the kernel still holds the old table; the stale
        // chains were not flushed, and the next sync is full.
        this.state = { ...this.state, staleChains: new Map(), needFullSync: true };
        return { ok: false, error: String(error) };
      }
    }
    this.state = result.state;
    const tablesFiles = this.tables.atSync();
    const ms = performance.now() - started;
    this.report = {
      full: result.full,
      lines: countLines(result.text),
      bytes: Buffer.byteLength(result.text),
      tableLines: this.tableLines,
      chainsDeleted: result.staleDeletion?.operations.length ?? 0,
      staleChains: result.state.staleChains.size,
      ms,
      changes: changes.length,
      syncs: this.loop.syncs + 1,
    };
    this.options.logger.log('info', logLine('nftables sync', {
      mode: result.full ? 'full' : 'partial',
      lines: this.report.lines,
      tableLines: this.report.tableLines,
      chainsDeleted: this.report.chainsDeleted,
      ms: Math.round(ms * 100) / 100,
    }));
    return { ok: true, full: result.full, files: [[this.files.lastSync, result.text], ...tablesFiles] };
  }
}
