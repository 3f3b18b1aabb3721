// The node agent: what runs on every node of a cluster besides the kubelet's pod work, fed by
// one informer. Cluster DNS (CoreDNS's job, here on the node's loopback), kube-proxy in
// iptables or nftables mode (rules written to files, or loaded into a network-namespace lab's
// kernel) or userspace mode (loopback listeners), and the service environment the kubelet
// injects.
//
// The agent subscribes to the informer before it builds anything, so no change is missed
// between the first look at the cache and the first event; each part then follows the changes:
// the DNS zone is rebuilt and swapped within coalesceMs, the iptables or nftables proxy syncs
// through a bounded-frequency runner, the userspace proxy reconciles its listeners.
import { err, formatCIDR, ok, parseCIDR, parseIP, type Pod, type Result, type ServiceNetworking } from '@kubesvc/api-types';
import type { EnvVar, PodMode, Zone } from '@kubesvc/discovery';
import { proxierConfig, type KubeProxyVersion, type ProxierConfig, type RenderCache, type SaveBackend, type SyncState } from '@kubesvc/proxy-iptables';
import { loadKernel } from '@kubesvc/proxy-iptables/wasm';
import { nftablesProxierConfig, type NftablesProxierConfig, type NftablesSyncState } from '@kubesvc/proxy-nftables';
import type { Clock } from '@kubesvc/store';
import { silentLogger, type Logger } from '@kubesvc/apiserver';
import type { Informer } from '@kubesvc/runtime';
import type { CacheChange } from '@kubesvc/controllers';
import { ClusterDns, type DnsRebuild } from './cluster-dns.js';
import { IptablesProxy, type IptablesFiles, type IptablesSyncReport } from './iptables-proxy.js';
import { logLine } from './logger.js';
import { NftablesProxy, withServiceCIDRs, type NftablesFiles, type NftablesSyncReport } from './nftables-proxy.js';
import type { Dataplane, DataplaneFactory, ErrDataplane } from './dataplane.js';
import { podEnvironment, podEnvironmentOf, type PodEnvironmentOptions } from './pod-environment.js';
import { UserspaceProxy, type ProxyPort } from './userspace-proxy.js';
import type { ProxyMetrics } from './proxy-metrics.js';

/** The default port of the agent's DNS server (an unprivileged stand-in for 53). */
export const DEFAULT_DNS_PORT = 10053;

/** What the agent reads: an informer watching services and endpointslices (and namespaces and pods, when present, for DNS). */
export type NodeAgentSource = Pick<Informer, 'resources' | 'revision' | 'list' | 'get' | 'onChange'>;

export type ProxyMode = 'iptables' | 'nftables' | 'userspace' | 'none';

export interface NodeAgentOptions<D extends Dataplane = Dataplane> {
  readonly source: NodeAgentSource;
  readonly clock: Clock;
  /** Where the agent's lines go (the shell's one Logger). Default: nowhere. */
  readonly logger?: Logger;
  readonly nodeName: string;
  /** The node's IP: kube-proxy's node IP, the NodePort addresses with 127.0.0.1. */
  readonly nodeIP: string;
  /**
   * The node's labels, of which kube-proxy reads the zone (`topology.kubernetes.io/zone`) for
   * topology hints, and the PreferSameTrafficDistribution gate (node hints). Default: no
   * labels, the gate off.
   */
  readonly topology?: { readonly labels?: Readonly<Record<string, string>>; readonly preferSameTrafficDistribution?: boolean };
  /** The pods' CIDR (kube-proxy --cluster-cidr): traffic from outside it is masqueraded. */
  readonly clusterCIDR?: string;
  /** The cluster's Service networking (api-types' parseServiceNetworking): the DNS serves its cluster domain unless dns.domain says otherwise. */
  readonly serviceNetworking?: ServiceNetworking;
  /** Where the rules files go (`<dataDir>/iptables/`, `<dataDir>/nftables/`). Required for the iptables and nftables modes. */
  readonly dataDir?: string;
  /** Default iptables. */
  readonly proxyMode?: ProxyMode;
  /** Default 10053; 0 picks a free port; false: no DNS server. */
  readonly dnsPort?: number | false;
  readonly dns?: {
    /** Default cluster.local. */
    readonly domain?: string;
    /** Default 30 (kubeadm's Corefile). */
    readonly ttl?: number;
    /** Default insecure (kubeadm's Corefile). */
    readonly pods?: PodMode;
    /** Changes gathered before one rebuild, ms. Default 10. */
    readonly coalesceMs?: number;
  };
  readonly iptables?: {
    /** --iptables-min-sync-period. Default 1000. */
    readonly minSyncPeriodMs?: number;
    /** --iptables-sync-period (the retry delay after a failed sync). Default 30000. */
    readonly syncPeriodMs?: number;
    /** Default 3600000 (upstream's FullSyncPeriod). */
    readonly fullSyncPeriodMs?: number;
    /** Default 2. */
    readonly burstSyncs?: number;
    /** rules.save.txt mirrors iptables-nft-save (default) or iptables-legacy-save. */
    readonly saveBackend?: SaveBackend;
    /** Default '1.31'. */
    readonly kubeProxyVersion?: KubeProxyVersion;
    /**
     * rules.txt and rules.save.txt (a render of the whole tables) at most this often, the last
     * state always once the interval has passed; last-sync.txt at every sync. Infinity: the
     * first sync's only. Default 0: at every sync.
     */
    readonly tablesFilesIntervalMs?: number;
    /**
     * Rendered Service text shared with the other agents of this thread that sync the same
     * objects (proxy-iptables' createRenderCache; a worker's agents share one, as their sources
     * share the objects). The rules are the same as without it.
     */
    readonly renderCache?: RenderCache;
  };
  readonly nftables?: {
    /** KubeProxyConfiguration's nftables.minSyncPeriod. Default 1000. */
    readonly minSyncPeriodMs?: number;
    /** nftables.syncPeriod (the retry delay after a failed sync). Default 30000. */
    readonly syncPeriodMs?: number;
    /** Default 3600000 (upstream's FullSyncPeriod). */
    readonly fullSyncPeriodMs?: number;
    /** Default 2. */
    readonly burstSyncs?: number;
    /**
     * The ServiceCIDRs of cluster-ips-check (ClusterIPs outside them are dropped). Default: the
     * serviceNetworking's (--service-cluster-ip-range): the agent's informer does not watch
     * `servicecidrs`. Neither given: no such rule.
     */
    readonly serviceCIDRs?: readonly string[];
    /**
     * ruleset.nft (a print of the whole table) at most this often, the last state always once
     * the interval has passed; last-sync.nft at every sync. Infinity: the first sync's only.
     * Default 0: at every sync.
     */
    readonly tablesFilesIntervalMs?: number;
  };
  /**
   * Where the iptables or nftables syncs go besides the files. Default `filesDataplane`: the rules are only
   * written. `netnsDataplane()` of `@kubesvc/node-agent/netns` also loads them into a lab's
   * kernel (root only).
   */
  readonly dataplane?: DataplaneFactory<D>;
  readonly userspace?: {
    readonly seed?: number;
    readonly udpIdleTimeoutMs?: number;
  };
  /**
   * kube-proxy's metrics (createProxyMetrics, once per process): the iptables and nftables
   * syncs record into them under this node's name. Default: none.
   */
  readonly metrics?: ProxyMetrics;
}

export interface ErrNodeAgentConfig {
  readonly _tag: 'ErrNodeAgentConfig';
  readonly message: string;
}

export type ErrNodeAgent = ErrNodeAgentConfig | ErrDataplane;

export interface NodeAgent<D extends Dataplane = Dataplane> {
  readonly nodeName: string;
  readonly proxyMode: ProxyMode;
  /** Where the DNS server listens, if it runs. */
  readonly dns: { readonly host: string; readonly port: number } | undefined;
  /** The zone DNS answers from now. */
  dnsZone(): Zone | undefined;
  /** The informer revision the served zone reflects. */
  dnsRevision(): number;
  lastDnsRebuild(): DnsRebuild | undefined;
  /** The iptables files (iptables mode). */
  readonly iptablesFiles: IptablesFiles | undefined;
  lastIptablesSync(): IptablesSyncReport | undefined;
  /** proxy-iptables' sync state after the last sync (iptables mode). */
  iptablesState(): SyncState | undefined;
  /** The kube-proxy settings in use (iptables mode). */
  readonly proxierConfig: ProxierConfig | undefined;
  /** The nftables files (nftables mode). */
  readonly nftablesFiles: NftablesFiles | undefined;
  lastNftablesSync(): NftablesSyncReport | undefined;
  /** proxy-nftables' sync state after the last sync (nftables mode). */
  nftablesState(): NftablesSyncState | undefined;
  /** The nftables proxier's settings in use (nftables mode). */
  nftablesConfig(): NftablesProxierConfig | undefined;
  /** The loopback listeners of the userspace mode, by service port. */
  proxyPorts(): readonly ProxyPort[];
  /** The data plane the syncs go to (iptables or nftables mode, with a `dataplane` option): the netns one gives its lab. */
  readonly dataplane: D | undefined;
  /** The service variables a pod in `namespace` gets. */
  podEnvironment(namespace: string, options?: PodEnvironmentOptions): EnvVar[];
  /** The service variables of one pod. */
  podEnvironmentOf(pod: Pod): EnvVar[];
  /**
   * Resolves when the work already started has finished: file writes, userspace reconciles.
   * Scheduled work (a DNS rebuild or a sync waiting for its timer) is not waited for.
   */
  idle(): Promise<void>;
  /** Stops everything: timers, the DNS server, the listeners and their connections, the lab. */
  stop(): Promise<void>;
}

function configError(message: string): Result<never, ErrNodeAgentConfig> {
  return err({ _tag: 'ErrNodeAgentConfig', message });
}

/**
 * Starts the parts the options ask for. Settings that cannot work (an unparsable IP, the
 * iptables or nftables mode without a dataDir, the netns data plane without root) are an error value;
 * a DNS port already taken throws, as any failed listen does.
 */
export async function startNodeAgent<D extends Dataplane = Dataplane>(options: NodeAgentOptions<D>): Promise<Result<NodeAgent<D>, ErrNodeAgent>> {
  const logger = options.logger ?? silentLogger;
  const mode = options.proxyMode ?? 'iptables';
  const { source } = options;
  for (const resource of ['services', 'endpointslices'] as const) {
    if (!source.resources.includes(resource)) return configError(`the node agent's informer must watch ${resource}`);
  }
  if (!parseIP(options.nodeIP).ok) return configError(`nodeIP: ${JSON.stringify(options.nodeIP)} is not an IP address`);
  if (options.clusterCIDR !== undefined && !parseCIDR(options.clusterCIDR).ok) return configError(`clusterCIDR: ${JSON.stringify(options.clusterCIDR)} is not a CIDR`);

  let config: ProxierConfig | undefined;
  let dataplane: D | undefined;
  if (mode === 'iptables') {
    if (options.dataDir === undefined) return configError('the iptables proxy mode needs a dataDir for its rules files');
    if (options.dataplane !== undefined) {
      const created = await options.dataplane.create({ nodeName: options.nodeName, proxyMode: 'iptables' });
      if (!created.ok) return created;
      dataplane = created.value;
    }
    if (dataplane?.proxierConfig !== undefined) {
      // The rules must fit the data plane's node (a lab's addresses and pod network).
      config = dataplane.proxierConfig;
    } else {
      const checked = proxierConfig({
        kernel: loadKernel(),
        nodeName: options.nodeName,
        nodeIPs: [options.nodeIP, '127.0.0.1'],
        nodeIP: options.nodeIP,
        localDetector: options.clusterCIDR === undefined ? { kind: 'none' } : { kind: 'cidr', cidr: options.clusterCIDR },
        ...(options.iptables?.kubeProxyVersion !== undefined ? { kubeProxyVersion: options.iptables.kubeProxyVersion } : {}),
        ...(options.topology?.labels !== undefined ? { topologyLabels: { ...options.topology.labels } } : {}),
        ...(options.topology?.preferSameTrafficDistribution === true ? { preferSameTrafficDistribution: true } : {}),
      });
      if (!checked.ok) {
        await dataplane?.close();
        return configError(checked.error.message);
      }
      config = checked.value;
    }
  }
  let nftConfig: NftablesProxierConfig | undefined;
  if (mode === 'nftables') {
    if (options.dataDir === undefined) return configError('the nftables proxy mode needs a dataDir for its rules files');
    const chosen = await nftablesSettings(options);
    if (!chosen.ok) return chosen;
    ({ config: nftConfig, dataplane } = chosen.value);
  } else if (mode !== 'iptables' && options.dataplane?.loadsRules === true) {
    return configError(`--dataplane ${options.dataplane.name} needs the iptables or nftables proxy mode`);
  }

  let dns: ClusterDns | undefined;
  let iptables: IptablesProxy | undefined;
  let nftables: NftablesProxy | undefined;
  let userspace: UserspaceProxy | undefined;
  let stopped = false;
  const unsubscribe = source.onChange((change: CacheChange) => {
    if (stopped) return;
    dns?.onChange(change);
    iptables?.onChange(change);
    nftables?.onChange(change);
    userspace?.onChange(change);
  });

  const stopAll = async (): Promise<void> => {
    stopped = true;
    unsubscribe();
    await Promise.all([dns?.stop(), iptables?.stop(), nftables?.stop(), userspace?.stop()]);
    await dataplane?.close();
  };

  try {
    if (config !== undefined && options.dataDir !== undefined) {
      iptables = IptablesProxy.start({
        source,
        clock: options.clock,
        logger,
        config,
        dataDir: options.dataDir,
        ...(options.iptables?.saveBackend !== undefined ? { saveBackend: options.iptables.saveBackend } : {}),
        ...(options.iptables?.minSyncPeriodMs !== undefined ? { minSyncPeriodMs: options.iptables.minSyncPeriodMs } : {}),
        ...(options.iptables?.syncPeriodMs !== undefined ? { syncPeriodMs: options.iptables.syncPeriodMs } : {}),
        ...(options.iptables?.fullSyncPeriodMs !== undefined ? { fullSyncPeriodMs: options.iptables.fullSyncPeriodMs } : {}),
        ...(options.iptables?.burstSyncs !== undefined ? { burstSyncs: options.iptables.burstSyncs } : {}),
        ...(options.iptables?.tablesFilesIntervalMs !== undefined ? { tablesFilesIntervalMs: options.iptables.tablesFilesIntervalMs } : {}),
        ...(options.iptables?.renderCache !== undefined ? { renderCache: options.iptables.renderCache } : {}),
        ...(dataplane?.loader !== undefined ? { loader: dataplane.loader } : {}),
        ...(options.metrics !== undefined ? { metrics: options.metrics.forNode(options.nodeName) } : {}),
      });
    }
    if (nftConfig !== undefined && options.dataDir !== undefined) {
      nftables = NftablesProxy.start({
        source,
        clock: options.clock,
        logger,
        config: nftConfig,
        dataDir: options.dataDir,
        ...(options.nftables?.minSyncPeriodMs !== undefined ? { minSyncPeriodMs: options.nftables.minSyncPeriodMs } : {}),
        ...(options.nftables?.syncPeriodMs !== undefined ? { syncPeriodMs: options.nftables.syncPeriodMs } : {}),
        ...(options.nftables?.fullSyncPeriodMs !== undefined ? { fullSyncPeriodMs: options.nftables.fullSyncPeriodMs } : {}),
        ...(options.nftables?.burstSyncs !== undefined ? { burstSyncs: options.nftables.burstSyncs } : {}),
        ...(options.nftables?.tablesFilesIntervalMs !== undefined ? { tablesFilesIntervalMs: options.nftables.tablesFilesIntervalMs } : {}),
        ...(dataplane?.nftablesLoader !== undefined ? { loader: dataplane.nftablesLoader } : {}),
        ...(options.metrics !== undefined ? { metrics: options.metrics.forNode(options.nodeName) } : {}),
      });
    }
    if (mode === 'userspace') {
      userspace = await UserspaceProxy.start({
        source,
        logger,
        ...(options.userspace?.seed !== undefined ? { seed: options.userspace.seed } : {}),
        ...(options.userspace?.udpIdleTimeoutMs !== undefined ? { udpIdleTimeoutMs: options.userspace.udpIdleTimeoutMs } : {}),
      });
      // Changes that came while the first listeners opened.
      void userspace.reconcile();
    }
    const dnsPort = options.dnsPort ?? DEFAULT_DNS_PORT;
    if (dnsPort !== false) {
      dns = await ClusterDns.start({
        source,
        clock: options.clock,
        logger,
        port: dnsPort,
        ...(options.dns?.domain !== undefined
          ? { domain: options.dns.domain }
          : options.serviceNetworking !== undefined
            ? { domain: options.serviceNetworking.clusterDomain }
            : {}),
        ...(options.dns?.ttl !== undefined ? { ttl: options.dns.ttl } : {}),
        ...(options.dns?.pods !== undefined ? { pods: options.dns.pods } : {}),
        ...(options.dns?.coalesceMs !== undefined ? { coalesceMs: options.dns.coalesceMs } : {}),
      });
      // Changes that came while the server bound.
      if (source.revision !== dns.revision) dns.requestRebuild();
    }
    await iptables?.flushed();
    await nftables?.flushed();
  } catch (error) {
    await stopAll();
    throw error;
  }

  const running = { dns, iptables, nftables, userspace };
  const agent: NodeAgent<D> = {
    nodeName: options.nodeName,
    proxyMode: mode,
    dns: dns === undefined ? undefined : { host: dns.host, port: dns.port },
    dnsZone: () => running.dns?.zone(),
    dnsRevision: () => running.dns?.revision ?? 0,
    lastDnsRebuild: () => running.dns?.lastRebuild(),
    iptablesFiles: iptables?.files,
    lastIptablesSync: () => running.iptables?.lastSync(),
    iptablesState: () => running.iptables?.syncState(),
    proxierConfig: config,
    nftablesFiles: nftables?.files,
    lastNftablesSync: () => running.nftables?.lastSync(),
    nftablesState: () => running.nftables?.syncState(),
    nftablesConfig: () => running.nftables?.config,
    proxyPorts: () => running.userspace?.proxyPorts() ?? [],
    dataplane,
    podEnvironment: (namespace, envOptions) => podEnvironment(source, namespace, envOptions),
    podEnvironmentOf: (pod) => podEnvironmentOf(source, pod),
    async idle() {
      await Promise.all([running.iptables?.flushed(), running.nftables?.flushed(), running.userspace?.idle()]);
    },
    stop: (() => {
      let stopping: Promise<void> | undefined;
      return () => (stopping ??= stopAll());
    })(),
  };
  logger.log('info', logLine('node agent started', { node: options.nodeName, proxyMode: mode, dns: dns === undefined ? 'off' : `${dns.host}:${dns.port}` }));
  return ok(agent);
}

/**
 * The nftables mode's settings and data plane: the data plane's node settings when it fixes
 * them (a lab's addresses and pod network), else the agent's own (the node IP's family); the
 * ServiceCIDRs are the cluster's either way. A data plane that takes syncs but cannot load
 * nftables ones is refused.
 */
async function nftablesSettings<D extends Dataplane>(
  options: NodeAgentOptions<D>,
): Promise<Result<{ readonly config: NftablesProxierConfig; readonly dataplane: D | undefined }, ErrNodeAgent>> {
  const serviceCIDRs = options.nftables?.serviceCIDRs ?? options.serviceNetworking?.serviceCIDRs.map(formatCIDR);
  let dataplane: D | undefined;
  if (options.dataplane !== undefined) {
    const created = await options.dataplane.create({ nodeName: options.nodeName, proxyMode: 'nftables' });
    if (!created.ok) return created;
    dataplane = created.value;
    if (options.dataplane.loadsRules && dataplane.nftablesLoader === undefined) {
      await dataplane.close();
      return configError(`--dataplane ${options.dataplane.name} cannot load nftables syncs`);
    }
  }
  const nodeIP = parseIP(options.nodeIP);
  const checked =
    dataplane?.nftablesConfig !== undefined
      ? serviceCIDRs === undefined
        ? ok(dataplane.nftablesConfig)
        : withServiceCIDRs(dataplane.nftablesConfig, serviceCIDRs)
      : nftablesProxierConfig({
          nodeName: options.nodeName,
          nodeIPs: [options.nodeIP, '127.0.0.1'],
          nodeIP: options.nodeIP,
          family: nodeIP.ok ? nodeIP.value.family : 4,
          localDetector: options.clusterCIDR === undefined ? { kind: 'none' } : { kind: 'cidr', cidr: options.clusterCIDR },
          ...(serviceCIDRs !== undefined ? { serviceCIDRs } : {}),
          ...(options.topology?.labels !== undefined ? { topologyLabels: { ...options.topology.labels } } : {}),
          ...(options.topology?.preferSameTrafficDistribution === true ? { preferSameTrafficDistribution: true } : {}),
        });
  if (!checked.ok) {
    await dataplane?.close();
    return configError(checked.error.message);
  }
  return ok({ config: checked.value, dataplane });
}
