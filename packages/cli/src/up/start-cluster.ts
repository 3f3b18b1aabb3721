// `kubesvc up`: one process with the store (SQLite in the data dir, or etcd with --etcd-servers,
// which several `kubesvc up` processes can share, each an apiserver), the control plane (the
// bootstrap controller, repair loops, endpoint controllers, the simulated kubelet), the HTTP API
// over TLS on a loopback address, the node agent (cluster DNS and kube-proxy) of the first node,
// and with --nodes N a kube-proxy for each other node, each fed by its own watch through the API
// (node-proxies.ts). With --dataplane netns every node and pod is a network namespace of a pod
// network (pod-network.ts, loaded only then), each node's kube-proxy loading its rules into its
// node's. It writes a kubeconfig beside the data, and stops as kube-apiserver does on
// SIGTERM: the node agents and their watches first, then its own endpoint and lease, then the
// controllers, then the store.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join, resolve } from 'node:path';
import { standardControllers } from '@kubesvc/controllers';
import {
  createApiServerMetrics,
  ErrInsecureBind,
  generateServingCertificate,
  generateToken,
  instrumentStore,
  kubeconfigYaml,
  printTable,
  startApiServer,
  type ApiServer,
  type ContainerRuntime,
  type Logger,
} from '@kubesvc/apiserver';
import {
  startControlPlane,
  startInformer,
  type ControlPlane,
  type Informer,
} from '@kubesvc/runtime';
import { createProxyMetrics, filesDataplane, startNodeAgent, writeFileAtomicSync, type DataplaneFactory, type NodeAgent, type ProxyMode } from '@kubesvc/node-agent';
import { systemClock, type Store } from '@kubesvc/store';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { openEtcdStore } from '@kubesvc/store/etcd';
import { DEFAULT_CLUSTER_IP_ALLOCATION, parseServiceNetworking, type ClusterIPAllocation, type Node, type Pod, type Service } from '@kubesvc/api-types';
import type { EnvVar } from '@kubesvc/discovery';
import { createExplorerHandler, ensureUiBuilt, explorerLink, type ExplorerHandler } from '@kubesvc/explorer/node';
import { proxierConfig } from '@kubesvc/proxy-iptables';
import { loadKernel } from '@kubesvc/proxy-iptables/wasm';
import { usageError } from '../cli-error.js';
import { startLiveExplorerSource } from '../explore/explorer-sources.js';
import { ensurePrivateDir, FILE_MODES, octal, tightenMode } from './atomic-file.js';
import { apiserverMirrorPod, apiserverPodStatus, MIRROR_POD_NAMESPACE, type ApiserverPodOptions } from './mirror-pod.js';
import { nodesText, type UpNode } from './nodes.js';
import { startNodeProxies, stopNodeProxies, type NodeProxies, type NodeProxy } from './node-proxies.js';
import { clusterIPAllocationText, UP_DEFAULTS } from './up-defaults.js';

// The up command loads this module lazily (the offline commands need none of it) and writes
// proxy-ports.json with the same atomic write; a lazy import of the node agent itself would be
// a second entry the module-boundaries lint refuses.
export { writeFileAtomicSync };

export interface UpOptions {
  readonly dataDir: string;
  readonly bindAddress: string;
  readonly securePort: number;
  readonly serviceClusterIPRange: string;
  readonly serviceNodePortRange: string;
  /** Absent: the first non-loopback IPv4 address of this host, as kube-apiserver picks one. */
  readonly advertiseAddress?: string;
  readonly endpointReconcilerType: 'lease' | 'master-count' | 'none';
  readonly kubernetesServiceNodePort: number;
  readonly dnsPort: number;
  readonly proxyMode: ProxyMode;
  readonly dataplane: 'files' | 'netns';
  /** --node-name: with one node its name; the events' reporting instance. */
  readonly nodeName: string;
  /**
   * The simulated kubelet's nodes (nodes.ts: upNodes). Absent: one node named nodeName with all
   * of clusterCIDR. The node agent runs for the first; in iptables or nftables mode with the
   * files data plane, each other node gets a kube-proxy of its own (node-proxies.ts).
   */
  readonly nodes?: readonly UpNode[];
  readonly clusterCIDR: string;
  /** --etcd-servers: etcd client URLs. Absent: SQLite in the data dir. */
  readonly etcdServers?: readonly string[];
  /** --apiserver-count, for the master-count reconciler. Default 1. */
  readonly apiserverCount?: number;
  /** Run the controllers and the simulated kubelet here. Default true. */
  readonly runControllers?: boolean;
  /** The repair loops' interval. Default 3 minutes (kube-apiserver's, fixed there). */
  readonly repairIntervalMs?: number;
  /** The kubernetes Service's reconcile interval. Default 10 s (kube-apiserver's, fixed there). */
  readonly endpointIntervalMs?: number;
  /** The master lease TTL. Default 15 s (kube-apiserver's, fixed there). */
  readonly leaseTtlSeconds?: number;
  /** --etcd-compaction-interval. Default 5 minutes; 0 turns compaction off. */
  readonly compactionIntervalMs?: number;
  /** The ClusterIP allocator, as --feature-gates and --emulated-version chose it. Default: v1.33's. */
  readonly clusterIPAllocation?: ClusterIPAllocation;
  /**
   * The PreferSameTrafficDistribution gate (--feature-gates): kube-apiserver's validation of
   * trafficDistribution, the EndpointSlice controller's node hints and kube-proxy's reading of
   * them. Default off, as in v1.33.
   */
  readonly preferSameTrafficDistribution?: boolean;
  /** kube-controller-manager's --max-endpoints-per-slice. Default 100. */
  readonly maxEndpointsPerSlice?: number;
  /** kube-controller-manager's --mirroring-max-endpoints-per-subset. Default 1000. */
  readonly mirroringMaxEndpointsPerSubset?: number;
  /** --node-workers: worker threads for the kube-proxies of nodes 2..N (0: this thread). Default: one per core, at least 2, at most one per node. */
  readonly nodeWorkers?: number;
  /**
   * --tables-files-interval: each node's whole-table files (iptables: rules.txt and
   * rules.save.txt; nftables: ruleset.nft) at most this often; the last sync's text at every
   * sync. Default 0: at every sync.
   */
  readonly tablesFilesIntervalMs?: number;
}

// The defaults live in up-defaults.ts, which loads nothing heavy: every command's options read them.
export { UP_DEFAULTS, defaultNodeName } from './up-defaults.js';

/** What `kubesvc up` reports as it starts: one line per step. */
export interface StepReporter {
  /** Shows `title` while `work` runs, then `done(value)` (or the title) as finished, or the failure. */
  step<T>(title: string, work: () => Promise<T>, done?: (value: T) => string): Promise<T>;
  /** A finished fact worth its own line. */
  note(text: string): void;
}

export interface RunningCluster {
  readonly dataDir: string;
  readonly kubeconfig: string;
  readonly apiURL: string;
  readonly kubernetesClusterIP: string;
  readonly advertiseAddress: string;
  /** The ClusterIP allocator this apiserver was started with. */
  readonly clusterIPAllocation: ClusterIPAllocation;
  readonly agent: NodeAgent;
  /** With --dataplane netns: the pod network's namespace prefix and the kube-dns ClusterIP. */
  readonly podNetwork?: { readonly prefix: string; readonly kubeDnsIP: string };
  /** With --dataplane netns: the node side of pods/exec, attach, log and portforward for its pods. */
  readonly containerRuntime?: ContainerRuntime;
  /** The kube-proxies of the nodes past the first, each on its own watch through the API. */
  readonly nodeProxies: readonly NodeProxy[];
  readonly plane: ControlPlane;
  /** The explorer page, with the token in its fragment; absent when the page is not built. */
  readonly explorerURL?: string;
  /** Stops everything, in kube-apiserver's shutdown order; safe to call twice. */
  stop(): Promise<void>;
}

/** kube-apiserver's default advertise address: the host's first non-loopback IPv4 address. */
export function defaultAdvertiseAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

/**
 * Makes a folder of the data dir owner-only (FILE_MODES.dir), and a file that holds a secret or
 * the state owner-only; one that had more is tightened, and the log says so: the data dir holds
 * the token, the key and every object, and a folder made readable by hand (or by an older
 * kubesvc, or a umask of 000) would hand them to every user of the host.
 */
function keepPrivate(path: string, mode: number, logger: Logger, what: string): void {
  const old = mode === FILE_MODES.dir ? ensurePrivateDir(path) : tightenMode(path, mode);
  if (old !== undefined) logger.log('warning', `${what} ${path} had mode ${octal(old)}: tightened to ${octal(mode)}`);
}

/** The token and the serving certificate, made at first start and kept in the data dir. */
async function credentials(dir: string, bindAddress: string, logger: Logger): Promise<{ token: string; cert: string; key: string }> {
  const pki = join(dir, 'pki');
  keepPrivate(pki, FILE_MODES.dir, logger, 'the certificate folder');
  const tokenFile = join(dir, 'token');
  const certFile = join(pki, 'apiserver.crt');
  const keyFile = join(pki, 'apiserver.key');
  if (!existsSync(tokenFile)) writeFileAtomicSync(tokenFile, `${generateToken()}\n`, FILE_MODES.secret);
  if (!existsSync(certFile) || !existsSync(keyFile)) {
    const ips = [...new Set(['127.0.0.1', '::1', bindAddress])];
    const made = await generateServingCertificate({ ips, dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'] });
    writeFileAtomicSync(keyFile, made.key, FILE_MODES.secret);
    writeFileAtomicSync(certFile, made.cert, FILE_MODES.public);
  }
  keepPrivate(tokenFile, FILE_MODES.secret, logger, 'the token');
  keepPrivate(keyFile, FILE_MODES.secret, logger, 'the serving key');
  return { token: readFileSync(tokenFile, 'utf8').trim(), cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

/**
 * A port free on `host` now: `--secure-port 0` is picked here, before the control plane starts,
 * because the bootstrap controller writes the port into the kubernetes Service's targetPort and
 * its Endpoints, where 0 is refused (the port must be between 1 and 65535). Another process could
 * take it before the API listens; the listen then fails with the EADDRINUSE message below.
 */
async function freePortOrZero(host: string): Promise<number> {
  // A bind address that is not this host's is reported where the API listens.
  return freePort(host).catch(() => 0);
}

async function freePort(host: string): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port: 0, exclusive: true }, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

export async function startCluster(given: UpOptions, steps: StepReporter, logger: Logger): Promise<RunningCluster> {
  const options: UpOptions = given.securePort === 0 ? { ...given, securePort: await freePortOrZero(given.bindAddress) } : given;
  const dataDir = resolve(options.dataDir);
  const advertiseAddress = options.advertiseAddress ?? defaultAdvertiseAddress();
  const clusterIPAllocation = options.clusterIPAllocation ?? DEFAULT_CLUSTER_IP_ALLOCATION;
  if (advertiseAddress === undefined) throw usageError('this host has no non-loopback IPv4 address to advertise: give one with --advertise-address');
  // --dataplane netns: the pod network's module, loaded only then; the nodes' InternalIPs are
  // their addresses on it.
  const podNet = options.dataplane === 'netns' ? await import('./pod-network.js') : undefined;
  if (podNet !== undefined && options.proxyMode !== 'iptables' && options.proxyMode !== 'nftables') throw usageError(`--dataplane netns needs the iptables or nftables proxy mode, not ${options.proxyMode}`);
  const problem = podNet?.podNetworkProblem(options.proxyMode === 'nftables' ? 'nftables' : 'iptables');
  if (problem !== undefined) throw usageError(problem);
  const givenNodes = options.nodes ?? [{ name: options.nodeName, podCIDR: options.clusterCIDR, labels: {}, cpu: UP_DEFAULTS.nodeCPU }];
  const labIPs = podNet?.podNetworkNodeIPs(givenNodes.length);
  const nodes = givenNodes.map((n, i) => ({ ...n, internalIP: labIPs?.[i] ?? n.internalIP ?? advertiseAddress }));
  // The node agent (cluster DNS and kube-proxy) runs for one node, the first.
  const agentNode = nodes[0]?.name ?? options.nodeName;

  const cleanups: (() => Promise<void> | void)[] = [];
  const unwind = async (): Promise<void> => {
    for (const c of cleanups.splice(0).reverse()) {
      try {
        await c();
      } catch (error) {
        logger.log('error', `shutdown: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  try {
    const etcdServers = options.etcdServers ?? [];
    const store: Store = await steps.step(
      etcdServers.length === 0 ? `Opening the store in ${dataDir}` : `Connecting to etcd at ${etcdServers.join(',')}`,
      async () => {
        keepPrivate(dataDir, FILE_MODES.dir, logger, 'the data dir');
        if (etcdServers.length === 0) {
          // SQLite gives its -wal and -shm files the database file's mode: a new one is made
          // 0600 by the store, and one an older kubesvc made 0644 is tightened here.
          const db = join(dataDir, 'state.db');
          for (const file of [db, `${db}-wal`, `${db}-shm`]) keepPrivate(file, FILE_MODES.secret, logger, 'the store file');
          return openSqliteStore({ path: db });
        }
        const etcd = await openEtcdStore({ endpoints: etcdServers });
        try {
          await etcd.revision();
        } catch (error) {
          await etcd.close();
          throw usageError(`cannot reach etcd at ${etcdServers.join(',')} (--etcd-servers): ${error instanceof Error ? error.message : String(error)}`);
        }
        return etcd;
      },
      () => (etcdServers.length === 0 ? `Store opened: ${join(dataDir, 'state.db')} (SQLite, schema applied)` : `Store opened: etcd at ${etcdServers.join(',')}`),
    );
    cleanups.push(() => store.close());
    // /metrics: the registry's store calls are timed, and kube-proxy's metrics share the registry.
    const metrics = createApiServerMetrics({ store });
    const proxyMetrics = createProxyMetrics(metrics.registry);
    const revision = await store.revision();
    const network =
      podNet === undefined
        ? undefined
        : await steps.step(
            'Making the pod network (a network namespace for each node)',
            async () => {
              try {
                return await podNet.createPodNetwork({ dataDir, nodes, advertiseAddress });
              } catch (error) {
                throw usageError(`--dataplane netns: ${error instanceof Error ? error.message : String(error)}`);
              }
            },
            (n) => `Pod network made: namespaces ${n.prefix}_host, ${n.nodes.map((x) => x.namespace).join(', ')}; each pod's is ${n.prefix}-<namespace>.<pod>`,
          );
    if (network !== undefined) cleanups.push(() => network.teardown());
    const creds = await steps.step('Loading the token and the serving certificate', () => credentials(dataDir, options.bindAddress, logger), () => `Token and serving certificate in ${dataDir}`);

    // The flags are read once, here, by api-types' parser; the control plane (the bootstrap
    // controller and the registry), the explorer and the node agent take the parsed value. A
    // refusal is reported as kube-apiserver's own startup failure, at the controllers' step.
    const plane: ControlPlane = await steps.step(
      'Starting the controllers',
      async () => {
        const parsed = parseServiceNetworking({ serviceClusterIPRange: options.serviceClusterIPRange, serviceNodePortRange: options.serviceNodePortRange });
        if (!parsed.ok) throw usageError(parsed.error.message);
        const started = await startControlPlane({
          store: instrumentStore(store, metrics),
          clock: systemClock,
          logger,
          serviceNetworking: parsed.value,
          clusterIPAllocation,
          preferSameTrafficDistribution: options.preferSameTrafficDistribution === true,
          advertiseAddress,
          securePort: options.securePort,
          endpointReconcilerType: options.endpointReconcilerType,
          kubernetesServiceNodePort: options.kubernetesServiceNodePort,
          hostname: options.nodeName,
          ...(options.apiserverCount === undefined ? {} : { masterCount: options.apiserverCount }),
          ...(options.repairIntervalMs === undefined ? {} : { repairIntervalMs: options.repairIntervalMs }),
          ...(options.endpointIntervalMs === undefined ? {} : { endpointIntervalMs: options.endpointIntervalMs }),
          ...(options.leaseTtlSeconds === undefined ? {} : { leaseTtlSeconds: options.leaseTtlSeconds }),
          ...(options.compactionIntervalMs === undefined ? {} : { compactionIntervalMs: options.compactionIntervalMs }),
          runControllers: options.runControllers ?? true,
          controllers: standardControllers(
            { hostName: options.nodeName, nodes },
            {
              preferSameTrafficDistribution: options.preferSameTrafficDistribution === true,
              ...(options.maxEndpointsPerSlice === undefined ? {} : { maxEndpointsPerSlice: options.maxEndpointsPerSlice }),
              ...(options.mirroringMaxEndpointsPerSubset === undefined ? {} : { mirroringMaxEndpointsPerSubset: options.mirroringMaxEndpointsPerSubset }),
            },
          ),
        });
        if (!started.ok) throw usageError(started.error.message);
        return started.value;
      },
      () => `Controllers started (store at revision ${revision})`,
    );
    cleanups.push(() => plane.stop());
    steps.note(`ClusterIPs: ${clusterIPAllocationText(clusterIPAllocation)}`);
    steps.note(nodesText(nodes));

    // The explorer reads the same objects the node agent does, from its own informer, and
    // computes the rules with the node agent's kube-proxy settings.
    const informer: Informer = await startInformer({ store, resources: ['services', 'endpointslices', 'pods', 'namespaces'] });
    cleanups.push(() => informer.stop());
    // The node side of exec, logs and port-forward for the pod network's pods. The Services'
    // variables come from the node agent (which starts after the API) and are fixed when the
    // pod's containers start, as the kubelet computes them once per container: a Service made
    // later is not in a running pod's environment.
    const agentForEnv: { current?: NodeAgent } = {};
    const environments = new Map<string, EnvVar[]>();
    const environmentOf = (pod: Pod): EnvVar[] => agentForEnv.current?.podEnvironmentOf(pod) ?? [];
    const containerRuntime =
      podNet !== undefined && network !== undefined
        ? podNet.netnsContainerRuntime({ network, dataDir, environment: (pod) => environments.get(pod.metadata.uid ?? '') ?? environmentOf(pod) })
        : undefined;
    let explorer: ExplorerHandler | undefined;
    if (await ensureUiBuilt()) {
      const proxier = proxierConfig({
        kernel: loadKernel(),
        nodeName: agentNode,
        // The first node's IP: the advertise address, or its address on the pod network (netns).
        nodeIPs: [nodes[0]?.internalIP ?? advertiseAddress, '127.0.0.1'],
        nodeIP: nodes[0]?.internalIP ?? advertiseAddress,
        topologyLabels: { ...(nodes[0]?.labels ?? {}) },
        preferSameTrafficDistribution: options.preferSameTrafficDistribution === true,
        localDetector: { kind: 'cidr', cidr: options.clusterCIDR },
      });
      if (!proxier.ok) throw usageError(proxier.error.message);
      const live = await startLiveExplorerSource(informer, store, `kubesvc up (${dataDir})`, {
        proxier: proxier.value,
        serviceNetworking: plane.config.serviceNetworking,
        now: () => systemClock.now(),
        // --dataplane netns: the page marks the pods that are namespaces and replays from them.
        ...(containerRuntime === undefined || network === undefined || podNet === undefined
          ? {}
          : { podNetwork: { runtime: containerRuntime, isSandbox: (pod: Pod) => podNet.isPodSandbox(network, pod) } }),
      });
      cleanups.push(() => live.stop());
      explorer = createExplorerHandler({ source: live });
      // The page draws the iptables mode's rules; say so when the node runs another mode.
      if (options.proxyMode === 'nftables') steps.note('The explorer draws kube-proxy\'s iptables rules for these Services; its nftables view is not built yet (kubesvc rules and trace --proxy-mode nftables show the nftables mode)');
    } else {
      steps.note('The explorer page is not built: /ui/ is not served');
    }

    const api: ApiServer = await steps.step(
      `Starting the API on ${options.bindAddress}:${options.securePort}`,
      async () => {
        try {
          return await startApiServer({
            registry: plane.registry,
            host: options.bindAddress,
            port: options.securePort,
            token: creds.token,
            tls: { cert: creds.cert, key: creds.key },
            ready: () => plane.isReady(),
            tables: printTable,
            logger,
            metrics,
            ...(explorer === undefined ? {} : { extensions: [explorer] }),
            // The pod network's pods (--dataplane netns) are reachable by exec, logs and
            // port-forward; otherwise the apiserver's default answers as a node running no container.
            ...(containerRuntime === undefined ? {} : { containerRuntime }),
          });
        } catch (error) {
          if (error instanceof ErrInsecureBind) throw usageError(error.message);
          const code = (error as { code?: string }).code;
          if (code === 'EADDRINUSE') throw usageError(`${options.bindAddress}:${options.securePort} is already in use: stop what listens there, or pick another port with --secure-port`);
          if (code === 'EADDRNOTAVAIL') throw usageError(`${options.bindAddress} is not an address of this host (--bind-address)`);
          throw error;
        }
      },
      (a) => `API listening on ${a.url}`,
    );
    cleanups.push(() => api.close());

    await steps.step('Waiting for the first reconcile', () => plane.whenReady(), () => 'First reconcile done');
    const mirror = await publishMirrorPod(plane.registry, {
      nodeName: agentNode,
      advertiseAddress,
      bindAddress: options.bindAddress,
      securePort: options.securePort,
      serviceClusterIPRange: options.serviceClusterIPRange,
      etcdServers,
      now: systemClock.now(),
    });
    if (mirror.ok) {
      steps.note(`Mirror pod ${MIRROR_POD_NAMESPACE}/${mirror.value} published`);
      const name = mirror.value;
      // Stopping the apiserver takes its pod away, as the kubelet removes a static pod's mirror
      // when its manifest goes; a crash leaves it, as a dead node's pods stay.
      cleanups.push(async () => {
        await plane.registry.delete('pods', MIRROR_POD_NAMESPACE, name);
      });
    } else {
      logger.log('error', `could not publish the apiserver's mirror pod: ${mirror.error}`);
    }
    const kubernetes = await plane.registry.get<Service>('services', 'default', 'kubernetes');
    const kubernetesClusterIP = kubernetes.ok ? (kubernetes.value.spec?.clusterIP ?? '') : '';
    steps.note(`default/kubernetes at ${kubernetesClusterIP}`);

    const agent: NodeAgent = await steps.step(
      `Starting the node agent (DNS on 127.0.0.1:${options.dnsPort}, kube-proxy ${options.proxyMode})`,
      async () => {
        // The lab's module is loaded only for `--dataplane netns`, which needs root. In nftables
        // mode the agent's cluster-ips-check drops ClusterIPs outside the ServiceCIDRs: its
        // informer does not watch `servicecidrs`, so they are --service-cluster-ip-range's,
        // from the serviceNetworking (a ServiceCIDR added with kubectl shows after a restart).
        const dataplane: DataplaneFactory = podNet !== undefined && network !== undefined ? podNet.podNetworkDataplane(network) : filesDataplane;
        const started = await startNodeAgent({
          source: informer,
          clock: systemClock,
          logger,
          nodeName: agentNode,
          nodeIP: nodes[0]?.internalIP ?? advertiseAddress,
          topology: { labels: nodes[0]?.labels ?? {}, preferSameTrafficDistribution: options.preferSameTrafficDistribution === true },
          clusterCIDR: options.clusterCIDR,
          serviceNetworking: plane.config.serviceNetworking,
          dataDir,
          proxyMode: options.proxyMode,
          dnsPort: options.dnsPort,
          dataplane,
          metrics: proxyMetrics,
          ...(options.tablesFilesIntervalMs === undefined ? {} : { iptables: { tablesFilesIntervalMs: options.tablesFilesIntervalMs }, nftables: { tablesFilesIntervalMs: options.tablesFilesIntervalMs } }),
        });
        if (!started.ok) throw usageError(started.error.message);
        return started.value;
      },
      (a) => `Node agent started: DNS on ${a.dns === undefined ? 'none' : `${a.dns.host}:${a.dns.port}`}, kube-proxy ${a.proxyMode}${proxyFilesText(a)}`,
    );
    cleanups.push(() => agent.stop());
    agentForEnv.current = agent;

    const otherProxies = await startOtherProxies(
      options,
      {
        nodes,
        dataDir,
        apiURL: api.url,
        token: creds.token,
        ca: creds.cert,
        serviceNetworking: plane.config.serviceNetworking,
        logger,
        metrics: proxyMetrics,
        ...(options.nodeWorkers === undefined ? {} : { workers: options.nodeWorkers }),
        ...(options.tablesFilesIntervalMs === undefined ? {} : { tablesFilesIntervalMs: options.tablesFilesIntervalMs }),
        ...(podNet !== undefined && network !== undefined ? { dataplane: podNet.podNetworkDataplane(network) } : {}),
      },
      steps,
    );
    cleanups.push(() => stopNodeProxies(otherProxies));
    const nodeProxies = otherProxies.proxies;

    let podNetwork: RunningCluster['podNetwork'];
    if (podNet !== undefined && network !== undefined) {
      const services = await steps.step(
        'Starting the pod network\'s relay and pods',
        () =>
          podNet.startPodNetworkServices({
            network,
            registry: plane.registry,
            informer,
            serviceNetworking: plane.config.serviceNetworking,
            dataDir,
            advertiseAddress,
            api: { host: loopbackOf(options.bindAddress), port: options.securePort },
            dns: agent.dns,
            logger,
            hostname: options.nodeName,
            sandboxMade: (pod) => environments.set(pod.metadata.uid ?? '', environmentOf(pod)),
            sandboxRemoved: (uid) => environments.delete(uid),
          }),
        (s) => `Pods run in namespaces ${network.prefix}-<namespace>.<pod>; ${advertiseAddress}:${options.securePort} and kube-system/kube-dns (${s.kubeDnsIP}) answer them through the relay`,
      );
      cleanups.push(() => services.stop());
      podNetwork = { prefix: network.prefix, kubeDnsIP: services.kubeDnsIP };
    }

    const kubeconfig = join(dataDir, 'kubeconfig');
    writeFileAtomicSync(kubeconfig, kubeconfigYaml(api.url, creds.cert, creds.token), FILE_MODES.secret);
    let stopped: Promise<void> | undefined;
    return {
      dataDir,
      kubeconfig,
      apiURL: api.url,
      kubernetesClusterIP,
      advertiseAddress,
      clusterIPAllocation,
      agent,
      ...(podNetwork === undefined ? {} : { podNetwork }),
      ...(containerRuntime === undefined ? {} : { containerRuntime }),
      nodeProxies,
      plane,
      ...(explorer === undefined ? {} : { explorerURL: explorerLink(api.url, creds.token) }),
      stop: () => (stopped ??= unwind()),
    };
  } catch (error) {
    await unwind();
    throw error;
  }
}

/**
 * The kube-proxies of nodes 2..N (iptables or nftables mode, files data plane), with the start-up
 * line that says how many kube-proxies run; none, and a line that says why, for the modes that
 * stay with the first node.
 */
async function startOtherProxies(
  options: UpOptions,
  context: Omit<Parameters<typeof startNodeProxies>[0], 'nodes' | 'proxyMode' | 'clusterCIDR' | 'preferSameTrafficDistribution'> & { readonly nodes: readonly (UpNode & { readonly internalIP: string })[] },
  steps: StepReporter,
): Promise<NodeProxies> {
  const none: NodeProxies = { proxies: [], workers: 0, stop: () => Promise.resolve() };
  const others = context.nodes.slice(1);
  if (others.length === 0) return none;
  const mode = options.proxyMode;
  if (mode === 'none') {
    steps.note(`No kube-proxy runs on the ${context.nodes.length} nodes (--proxy-mode none)`);
    return none;
  }
  const first = context.nodes[0]?.name ?? options.nodeName;
  if (mode === 'userspace') {
    const why = 'userspace mode binds ports on this host';
    steps.note(`1 kube-proxy runs, for ${first}: ${why}, so ${others.length === 1 ? `${others[0]?.name ?? ''} has` : `${others.map((n) => n.name).join(', ')} have`} none`);
    return none;
  }
  return steps.step(
    `Starting the kube-proxies of ${others.map((n) => n.name).join(', ')} (${mode}, each watching the API)`,
    () => startNodeProxies({ ...context, nodes: others, proxyMode: mode, clusterCIDR: options.clusterCIDR, preferSameTrafficDistribution: options.preferSameTrafficDistribution === true }),
    (started) =>
      `${started.proxies.length + 1} kube-proxies run (${mode}): ${first} in-process, ${started.proxies.length} through the API with rules in ${join(context.dataDir, 'nodes')}/<node>/${mode}/${started.workers > 0 ? ` (in ${started.workers} worker thread${started.workers === 1 ? '' : 's'})` : ''}${context.dataplane === undefined ? '' : ', each loaded into its node\'s namespace'}`,
  );
}

/** The loopback address a process on this host reaches the API at: the bind address, or 127.0.0.1 for the unspecified one. */
function loopbackOf(bindAddress: string): string {
  return bindAddress === '0.0.0.0' || bindAddress === '::' || bindAddress === '' ? '127.0.0.1' : bindAddress;
}

/** Where the agent's kube-proxy writes its rules, for the start-up line: ` (rules in DIR)`, or nothing. */
function proxyFilesText(agent: NodeAgent): string {
  const dir = agent.iptablesFiles?.dir ?? agent.nftablesFiles?.dir;
  return dir === undefined ? '' : ` (rules in ${dir})`;
}

/**
 * Publishes this apiserver's mirror pod (replacing one left by an earlier run on the same node
 * name, as the kubelet replaces a mirror pod whose config hash changed) and reports it Running.
 */
async function publishMirrorPod(registry: ControlPlane['registry'], options: Omit<ApiserverPodOptions, 'node'>): Promise<{ ok: true; value: string } | { ok: false; error: string }> {
  const node = await registry.get<Node>('nodes', '', options.nodeName);
  const full: ApiserverPodOptions = node.ok ? { ...options, node: node.value } : options;
  const pod = apiserverMirrorPod(full);
  const name = pod.metadata.name ?? '';
  await registry.delete('pods', MIRROR_POD_NAMESPACE, name);
  const created = await registry.create('pods', MIRROR_POD_NAMESPACE, pod);
  if (!created.ok) return { ok: false, error: created.error.message };
  const running = await registry.updateStatus('pods', MIRROR_POD_NAMESPACE, name, { ...created.value, status: apiserverPodStatus(full) });
  return running.ok ? { ok: true, value: name } : { ok: false, error: running.error.message };
}
