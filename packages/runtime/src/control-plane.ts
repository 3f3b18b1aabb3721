// The control plane `kubesvc up` starts: kube-apiserver's flags checked as kube-apiserver checks
// them, the registry over the caller's store, one informer shared by everything, the bootstrap
// controller (the kubernetes Service, its endpoints, the system namespaces, the NodePort repair
// loop and, with the bitmap allocator, the ClusterIP repair loop) and the keyed controllers
// (the namespace controller, and whatever the caller adds: endpoints, EndpointSlices, the
// simulated kubelet). With the IPAddress allocator (v1.33's default) the apiserver also runs
// the default ServiceCIDR controller and RepairIPAddress, and the controllers include the
// ServiceCIDR controller.
// upstream: cmd/kube-apiserver/app/server.go (Run: validate the options, build the storage,
//           start the post-start hooks; on SIGTERM the pre-shutdown hooks, among them the
//           bootstrap controller's Stop), pkg/controlplane/controller.go,
//           pkg/controlplane/instance.go (v1.33: the start-kubernetes-service-cidr-controller
//           hook, which readyz waits for), pkg/registry/core/rest/storage_core.go (v1.33: the
//           start-service-ip-repair-controllers hook: RepairIPAddress or the bitmap repair),
//           cmd/kube-controller-manager (the controllers, each with its workqueue; the
//           ServiceCIDR controller with MultiCIDRServiceAllocator)
import { DEFAULT_CLUSTER_IP_ALLOCATION, err, ok, type ClusterIPAllocation, type Result, type ServiceNetworking, type TaggedError } from '@kubesvc/api-types';
import { bootstrapConfig, type BootstrapConfig, type ErrBootstrapConfig } from '@kubesvc/bootstrap-controller';
import { namespaceController, serviceCIDRKeyedController, type KeyedController } from '@kubesvc/controllers';
import type { ReconcilerType } from '@kubesvc/reconcilers';
import { type Clock, DEFAULT_COMPACTION_INTERVAL_MS, startCompactor, type Store } from '@kubesvc/store';
import { BOOTSTRAP_RESOURCES, startBootstrapHost, type BootstrapHost } from './host/bootstrap-host.js';
import { startControllerRunner, type ControllerRunner } from './host/controller-runner.js';
import { startDefaultServiceCIDRHost, type DefaultServiceCIDRHost } from './host/default-service-cidr-host.js';
import { startInformer, type Informer } from './host/informer.js';
import { IP_ADDRESS_REPAIR_RESOURCES, startIPAddressRepairHost, type IPAddressRepairHost } from './host/ip-address-repair-host.js';
import { consoleLogger, type Logger, type CrashHook, openRegistry, type Registry, type ResourceName } from '@kubesvc/apiserver';
import type { RateLimiterOptions } from './host/workqueue.js';

export interface ControlPlaneOptions {
  /** The caller's store; the control plane never closes it. */
  readonly store: Store;
  readonly clock: Clock;
  /** Default: one line per message on stderr. */
  readonly logger?: Logger;
  /** Seeds the registry's allocation draws, generated names and UIDs. Default: the clock's time. */
  readonly seed?: number;
  /**
   * The service CIDRs, the node port range and the cluster domain, as api-types'
   * parseServiceNetworking read them from the flags: the value the bootstrap controller and
   * the registry both take. When absent, the two flags below are read with that parser.
   */
  readonly serviceNetworking?: ServiceNetworking;
  /** --service-cluster-ip-range: one CIDR, or two of different families (the flag's text, or its entries as a list). Unset: 10.0.0.0/24, upstream's default. Ignored with serviceNetworking. */
  readonly serviceClusterIPRange?: string | readonly string[];
  /** --service-node-port-range. Default 30000-32767. Ignored with serviceNetworking. */
  readonly serviceNodePortRange?: string;
  /**
   * Which ClusterIP allocator runs (kube-apiserver's MultiCIDRServiceAllocator and
   * DisableAllocatorDualWrite gates). Default: v1.33's, IPAddress objects with the dual write.
   * With 'ipaddress' the apiserver runs the default ServiceCIDR controller (readiness waits
   * for it) and RepairIPAddress instead of the bitmap ClusterIP repair, and the controllers
   * include the ServiceCIDR controller; with 'bitmap' none of them runs.
   */
  readonly clusterIPAllocation?: ClusterIPAllocation;
  /**
   * kube-apiserver's PreferSameTrafficDistribution gate (alpha in v1.33, off by default): the
   * Service validation then takes trafficDistribution PreferSameZone and PreferSameNode. The
   * EndpointSlice controller reads the same gate from its own options
   * (`endpointSliceController({ preferSameTrafficDistribution })`, `standardControllers`).
   */
  readonly preferSameTrafficDistribution?: boolean;
  /** --advertise-address: this apiserver's address in the kubernetes Endpoints. */
  readonly advertiseAddress: string;
  /** --secure-port. Default 6443. */
  readonly securePort?: number;
  /** --endpoint-reconciler-type. Default lease, as upstream since 1.11. */
  readonly endpointReconcilerType?: ReconcilerType;
  /** --kubernetes-service-node-port. Default 0: the kubernetes Service is a ClusterIP Service. */
  readonly kubernetesServiceNodePort?: number;
  /** --apiserver-count, for the master-count reconciler. Default 1. */
  readonly masterCount?: number;
  /** The repair loops' interval. Default 3 minutes. */
  readonly repairIntervalMs?: number;
  /** The kubernetes Service's reconcile interval. Default 10 s. */
  readonly endpointIntervalMs?: number;
  /** The system namespaces' interval. Default 1 minute. */
  readonly systemNamespacesIntervalMs?: number;
  /** --etcd-compaction-interval: how often the store's history is compacted (upstream's protocol, one apiserver per round). Default 5 minutes; 0 turns it off. */
  readonly compactionIntervalMs?: number;
  /** The master lease TTL. Default 15 s. */
  readonly leaseTtlSeconds?: number;
  /** Reset a hand-edited kubernetes Service on the first pass after start (upstream until 1.16; default true). */
  readonly reconcileServiceOnStart?: boolean;
  /** Keyed controllers to run beside the namespace controller, over the same informer. */
  readonly controllers?: readonly KeyedController[];
  /**
   * Run the namespace controller and `controllers` (kube-controller-manager's part). Default
   * true. Several apiservers on one store run them in one process only, as a cluster runs one
   * active kube-controller-manager: false leaves this one with the bootstrap controller and its
   * repair loops, which every kube-apiserver runs.
   */
  readonly runControllers?: boolean;
  /** The controllers' rate limiter. Default client-go's. */
  readonly rateLimiter?: RateLimiterOptions;
  /** The events' reportingInstance suffix. Default os.hostname(). */
  readonly hostname?: string;
  /** The registry's crash points, for tests. */
  readonly crashHook?: CrashHook;
  /** Called once if the bootstrap controller asks the apiserver to exit; the control plane has stopped its controllers. */
  readonly onFatal?: (message: string) => void;
}

export interface ControlPlane {
  readonly registry: Registry;
  readonly informer: Informer;
  readonly config: BootstrapConfig;
  readonly bootstrap: BootstrapHost;
  readonly controllers: ControllerRunner;
  /** The default ServiceCIDR controller: only with the 'ipaddress' allocator. */
  readonly defaultServiceCIDR: DefaultServiceCIDRHost | undefined;
  /** RepairIPAddress: only with the 'ipaddress' allocator. */
  readonly ipAddressRepair: IPAddressRepairHost | undefined;
  /**
   * The API server's readiness: the bootstrap controller has reconciled the kubernetes Service
   * once; with the 'ipaddress' allocator, the default ServiceCIDR has been initialized and
   * RepairIPAddress's first pass has succeeded first (their post-start hooks have returned).
   */
  isReady(): boolean;
  whenReady(): Promise<void>;
  /** Resolves once nothing is left to do: the caches have caught up with the store, and no controller has work queued (timers aside). */
  idle(): Promise<void>;
  /** The message of the fatal error the bootstrap controller raised, if it did. */
  fatalError(): string | undefined;
  /** kube-apiserver's SIGTERM: this apiserver's endpoint and lease are removed, then the controllers stop. The store stays open. */
  stop(): Promise<void>;
  /** SIGKILL: everything stops writing at once; a master lease is left to expire. The store stays open. */
  kill(): Promise<void>;
}

export type ControlPlaneError = ErrBootstrapConfig | TaggedError;
/** api-types' one result shape: the control plane, or why its options cannot work. */
export type ControlPlaneResult = Result<ControlPlane, ControlPlaneError>;

/** Checks the options, opens the registry, and starts the informer, the bootstrap controller and the controllers. */
export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlaneResult> {
  // The flags are read once, by api-types' parser inside bootstrapConfig (so that a refusal is
  // aggregated with the other startup checks); the registry takes the parsed value.
  const range = options.serviceClusterIPRange;
  const clusterIPAllocation = options.clusterIPAllocation ?? DEFAULT_CLUSTER_IP_ALLOCATION;
  const checked = bootstrapConfig({
    ...(options.serviceNetworking === undefined ? {} : { serviceNetworking: options.serviceNetworking }),
    ...(range === undefined ? {} : { serviceClusterIPRange: typeof range === 'string' ? range : range.join(',') }),
    publicIP: options.advertiseAddress,
    ...(options.securePort === undefined ? {} : { securePort: options.securePort }),
    ...(options.kubernetesServiceNodePort === undefined ? {} : { kubernetesServiceNodePort: options.kubernetesServiceNodePort }),
    ...(options.serviceNodePortRange === undefined ? {} : { serviceNodePortRange: options.serviceNodePortRange }),
    clusterIPAllocation,
    ...(options.endpointReconcilerType === undefined ? {} : { endpointReconcilerType: options.endpointReconcilerType }),
    ...(options.masterCount === undefined ? {} : { masterCount: options.masterCount }),
    ...(options.leaseTtlSeconds === undefined ? {} : { leaseTtlMs: options.leaseTtlSeconds * 1000 }),
    ...(options.endpointIntervalMs === undefined ? {} : { endpointIntervalMs: options.endpointIntervalMs }),
    ...(options.systemNamespacesIntervalMs === undefined ? {} : { systemNamespacesIntervalMs: options.systemNamespacesIntervalMs }),
    ...(options.repairIntervalMs === undefined ? {} : { repairIntervalMs: options.repairIntervalMs }),
    ...(options.reconcileServiceOnStart === undefined ? {} : { reconcileServiceOnStart: options.reconcileServiceOnStart }),
  });
  if (!checked.ok) return checked;
  const ipAddressMode = clusterIPAllocation.allocator === 'ipaddress';
  const config = checked.value;
  const logger = options.logger ?? consoleLogger;
  const { store, clock } = options;

  const opened = await openRegistry({
    store,
    clock,
    seed: options.seed ?? clock.now(),
    serviceNetworking: config.serviceNetworking,
    clusterIPAllocation,
    ...(options.preferSameTrafficDistribution === undefined ? {} : { preferSameTrafficDistribution: options.preferSameTrafficDistribution }),
    ...(options.crashHook === undefined ? {} : { crashHook: options.crashHook }),
  });
  if (!opened.ok) return err(opened.error);
  const registry = opened.value;

  // kube-controller-manager runs the ServiceCIDR controller with MultiCIDRServiceAllocator on.
  const controllers = options.runControllers === false ? [] : [namespaceController, ...(ipAddressMode ? [serviceCIDRKeyedController()] : []), ...(options.controllers ?? [])];
  const resources = new Set<ResourceName>(BOOTSTRAP_RESOURCES);
  if (ipAddressMode) for (const r of IP_ADDRESS_REPAIR_RESOURCES) resources.add(r);
  for (const c of controllers) for (const r of c.watches) resources.add(r);
  const informer = await startInformer({
    store,
    resources: [...resources],
    onRelist: (e) => logger.log('warning', `informer: watch ended, listing again: ${e instanceof Error ? e.message : String(e)}`),
  });

  let fatal: string | undefined;
  const runner = startControllerRunner({
    registry,
    informer,
    clock,
    controllers,
    logger,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
    ...(options.hostname === undefined ? {} : { hostname: options.hostname }),
  });
  // The post-start hooks readyz waits for beside the store: with the IPAddress allocator, the
  // default ServiceCIDR's and RepairIPAddress's first pass (the kubernetes Service is created
  // only once readyz answers, so its ClusterIP comes from a ready ServiceCIDR).
  let defaultServiceCIDR: DefaultServiceCIDRHost | undefined;
  let ipAddressRepair: IPAddressRepairHost | undefined;
  let repaired = false;
  const hooksDone = () => !ipAddressMode || (defaultServiceCIDR?.isInitialized() === true && repaired);
  const bootstrap = startBootstrapHost({
    registry,
    informer,
    clock,
    config,
    logger,
    ...(options.hostname === undefined ? {} : { hostname: options.hostname }),
    onFatal: (message) => {
      fatal = message;
      void Promise.all([runner.stop(), defaultServiceCIDR?.stop(), ipAddressRepair?.stop()]).then(() => informer.stop());
      options.onFatal?.(message);
    },
    readyzChecks: hooksDone,
  });
  if (ipAddressMode) {
    defaultServiceCIDR = startDefaultServiceCIDRHost({
      registry,
      informer,
      clock,
      serviceCIDRs: config.serviceCIDRs,
      logger,
      onInitialized: () => bootstrap.recheckReadyz(),
    });
    ipAddressRepair = startIPAddressRepairHost({
      registry,
      informer,
      clock,
      intervalMs: config.repairIntervalMs,
      logger,
      ...(options.hostname === undefined ? {} : { hostname: options.hostname }),
      ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
      onFirstSuccess: () => {
        repaired = true;
        bootstrap.ipAddressRepairSucceeded();
        bootstrap.recheckReadyz();
      },
    });
  }
  const started = runner;
  const compactionIntervalMs = options.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
  const compactor = compactionIntervalMs > 0 ? startCompactor({ store, clock, intervalMs: compactionIntervalMs, logger }) : undefined;

  let stopping: Promise<void> | undefined;
  const shutdown = (graceful: boolean) => {
    stopping ??= (async () => {
      compactor?.stop();
      if (graceful) await bootstrap.stop();
      else await bootstrap.kill();
      await Promise.all([started.stop(), defaultServiceCIDR?.stop(), ipAddressRepair?.stop()]);
      informer.stop();
    })();
    return stopping;
  };

  const plane: ControlPlane = {
    registry,
    informer,
    config,
    bootstrap,
    controllers: started,
    defaultServiceCIDR,
    ipAddressRepair,
    isReady: () => hooksDone() && bootstrap.isReady(),
    whenReady: () => bootstrap.whenReady(),
    fatalError: () => fatal,
    async idle() {
      // Bounded: a control plane that never settles (two master-count apiservers flapping on a
      // real clock, say) still returns.
      for (let round = 0; round < 1000; round++) {
        const revision = await store.revision();
        await informer.waitFor(revision);
        await started.idle();
        await bootstrap.idle();
        await defaultServiceCIDR?.idle();
        await ipAddressRepair?.idle();
        if ((await store.revision()) === revision) return;
      }
    },
    stop: () => shutdown(true),
    kill: () => shutdown(false),
  };
  return ok(plane);
}
