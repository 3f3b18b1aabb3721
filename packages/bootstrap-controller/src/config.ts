// The bootstrap controller's configuration: the kube-apiserver flags it depends on, their
// defaults, and the checks kube-apiserver makes on them before it starts, with upstream's text.
// upstream: cmd/kube-apiserver/app/options/validation.go (ServerRunOptions.Validate's
//           --apiserver-count check, validateClusterIPFlags, validateMaxCIDRRange,
//           validateServiceNodePort),
//           pkg/controlplane/controller.go NewBootstrapController (the IP family check).
// The flags themselves (--service-cluster-ip-range, --service-node-port-range) are read by
// api-types' parseServiceNetworking, the one parser of them; this file checks the value.
import {
  DEFAULT_CLUSTER_IP_ALLOCATION,
  cidrFamily,
  familyBits,
  formatCIDR,
  formatIP,
  formatPortRange,
  goQuote,
  err as errResult,
  ok,
  parseIPSloppy,
  parseServiceNetworking,
  portRangeContains,
  type CIDR,
  type ClusterIPAllocation,
  type ClusterIPAllocator,
  type EndpointPort,
  type IP,
  type PortRange,
  type Result,
  type ServiceNetworking,
  type ServicePort,
} from '@kubesvc/api-types';
import { DEFAULT_ENDPOINT_RECONCILER_INTERVAL_MS, DEFAULT_ENDPOINT_RECONCILER_TTL_MS, type ReconcilerType } from '@kubesvc/reconcilers';

/** upstream: kube-apiserver --secure-port default. */
export const DEFAULT_SECURE_PORT = 6443;
/** upstream: APIServerServicePort, the port of the kubernetes Service. */
export const DEFAULT_SERVICE_PORT = 443;
/** upstream: SystemNamespacesInterval. */
export const DEFAULT_SYSTEM_NAMESPACES_INTERVAL_MS = 60_000;
/** upstream: RepairServicesInterval (--repair-services-interval default 3m). */
export const DEFAULT_REPAIR_INTERVAL_MS = 180_000;
/** upstream: Start waits this long for the first successful repairs before klog.Fatalf. */
export const INITIAL_REPAIR_TIMEOUT_MS = 60_000;
/** upstream: validateClusterIPFlags maxCIDRBits (unless the IPAddress allocator runs without the dual write). */
export const MAX_CIDR_BITS = 20;

export interface BootstrapOptions {
  /**
   * The service CIDRs and the node port range, as api-types' parseServiceNetworking read them
   * from the flags. When absent, `serviceClusterIPRange` and `serviceNodePortRange` are read
   * with that parser here, and its refusal is one of the failed checks.
   */
  readonly serviceNetworking?: ServiceNetworking;
  /**
   * The ClusterIP allocator (MultiCIDRServiceAllocator, DisableAllocatorDualWrite), as
   * api-types' parseClusterIPFeatureGates read it. Default: v1.33's, DEFAULT_CLUSTER_IP_ALLOCATION.
   * It decides whether the CIDR-size limit applies.
   */
  readonly clusterIPAllocation?: ClusterIPAllocation;
  /** --service-cluster-ip-range: one CIDR, or two of different families separated by a comma. Unset means 10.0.0.0/24. Ignored with serviceNetworking. */
  readonly serviceClusterIPRange?: string;
  /** --advertise-address: this apiserver's address, written into the kubernetes Endpoints. */
  readonly publicIP: string;
  /** --secure-port: the endpoints' port and the Service's targetPort. */
  readonly securePort?: number;
  /** The kubernetes Service's port. */
  readonly servicePort?: number;
  /** --kubernetes-service-node-port: 0 makes the Service type ClusterIP. */
  readonly kubernetesServiceNodePort?: number;
  /** --service-node-port-range. Ignored with serviceNetworking. */
  readonly serviceNodePortRange?: string;
  /** Appended to the Service's ports (older upstream's ExtraServicePorts). */
  readonly extraServicePorts?: readonly ServicePort[];
  /** Appended to the endpoint ports (older upstream's ExtraEndpointPorts). */
  readonly extraEndpointPorts?: readonly EndpointPort[];
  /** --endpoint-reconciler-type, default lease. */
  readonly endpointReconcilerType?: ReconcilerType;
  /** --apiserver-count, for the master-count reconciler. */
  readonly masterCount?: number;
  readonly leaseTtlMs?: number;
  readonly endpointIntervalMs?: number;
  readonly systemNamespacesIntervalMs?: number;
  readonly repairIntervalMs?: number;
  /**
   * Reconcile the Service's ports and type on the first run after start (checkServiceFormat).
   * Upstream did so until v1.16; since v1.17 the call passes false and the path never runs.
   */
  readonly reconcileServiceOnStart?: boolean;
  /**
   * Which ClusterIP allocator the apiserver runs, and so which ClusterIP repair: 'bitmap'
   * (the default here, unless clusterIPAllocation names one) runs this controller's repair of the RangeAllocations; 'ipaddress'
   * (MultiCIDRServiceAllocator) leaves the ClusterIPs to RepairIPAddress, which runs outside
   * this reducer and reports its first successful pass with an IPAddressRepairSucceeded message
   * (the NodePort repair runs either way).
   * upstream: pkg/registry/core/rest/storage_core.go (v1.33: startServiceClusterIPRepair)
   */
  readonly clusterIPAllocator?: ClusterIPAllocator;
}

export interface BootstrapConfig {
  /** The parsed flags the rest of this config was checked from. */
  readonly serviceNetworking: ServiceNetworking;
  /** The service CIDRs, primary first. */
  readonly serviceCIDRs: readonly CIDR[];
  /** network + 1 of the primary CIDR: the kubernetes Service's ClusterIP. */
  readonly serviceIP: IP;
  readonly publicIP: IP;
  readonly securePort: number;
  readonly servicePort: number;
  readonly kubernetesServiceNodePort: number;
  readonly nodePortRange: PortRange;
  readonly extraServicePorts: readonly ServicePort[];
  readonly extraEndpointPorts: readonly EndpointPort[];
  readonly endpointReconcilerType: ReconcilerType;
  readonly masterCount: number;
  readonly leaseTtlMs: number;
  readonly endpointIntervalMs: number;
  readonly systemNamespacesIntervalMs: number;
  readonly repairIntervalMs: number;
  readonly reconcileServiceOnStart: boolean;
  readonly clusterIPAllocator: ClusterIPAllocator;
}

/** One failed check, with upstream's text. */
export interface ErrBootstrapFlag {
  readonly _tag: 'ErrBootstrapFlag';
  readonly message: string;
}

/**
 * Every failed check at once, in upstream's order, as `causes`; `message` is them as
 * kube-apiserver prints its aggregated validation errors (utilerrors.NewAggregate): the one
 * message alone, or `[a, b, …]`.
 */
export interface ErrBootstrapConfig {
  readonly _tag: 'ErrBootstrapConfig';
  readonly message: string;
  readonly causes: readonly ErrBootstrapFlag[];
}

export type BootstrapConfigResult = Result<BootstrapConfig, ErrBootstrapConfig>;

function err(message: string): ErrBootstrapFlag {
  return { _tag: 'ErrBootstrapFlag', message };
}

/** upstream utilerrors aggregate's Error(): one message as it is, several as `[a, b]`. */
function aggregate(causes: readonly ErrBootstrapFlag[]): string {
  return causes.length === 1 ? (causes[0]?.message ?? '') : `[${causes.map((c) => c.message).join(', ')}]`;
}

function maxCIDRRange(cidr: CIDR, flag: string): ErrBootstrapFlag | undefined {
  const bits = familyBits(cidr.network.family);
  if (bits - cidr.prefix > MAX_CIDR_BITS) {
    return err(`specified ${flag} is too large; for ${bits}-bit addresses, the mask must be >= ${bits - MAX_CIDR_BITS}`);
  }
  return undefined;
}

/**
 * validateClusterIPFlags checks the CIDR size only when MultiCIDRServiceAllocator or
 * DisableAllocatorDualWrite is off: an IPAddress allocator that writes no bitmap has no size
 * limit, while a bitmap (the allocator itself, or the dual write's mirror) holds one bit per
 * address.
 */
function cidrSizeLimited(allocation: ClusterIPAllocation): boolean {
  return allocation.allocator !== 'ipaddress' || allocation.dualWrite;
}

function positiveMs(name: string, value: number | undefined, fallback: number, errors: ErrBootstrapFlag[]): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) errors.push(err(`${name} must be a positive number of milliseconds, got ${value}`));
  return value;
}

/** Defaults and kube-apiserver's checks; every failed check is returned, in upstream's order. */
export function bootstrapConfig(options: BootstrapOptions): BootstrapConfigResult {
  const errors: ErrBootstrapFlag[] = [];
  const cidrs: CIDR[] = [];

  // upstream: ServerRunOptions.Validate checks --apiserver-count first.
  const masterCount = options.masterCount ?? 1;
  if (!Number.isInteger(masterCount) || masterCount < 1) errors.push(err(`--apiserver-count should be a positive number, but value '${masterCount}' provided`));

  const parsed =
    options.serviceNetworking !== undefined
      ? ok(options.serviceNetworking)
      : parseServiceNetworking({
          ...(options.serviceClusterIPRange === undefined ? {} : { serviceClusterIPRange: options.serviceClusterIPRange }),
          ...(options.serviceNodePortRange === undefined ? {} : { serviceNodePortRange: options.serviceNodePortRange }),
        });
  if (!parsed.ok) errors.push(err(parsed.error.message));
  const networking = parsed.ok ? parsed.value : undefined;
  if (networking !== undefined) cidrs.push(...networking.serviceCIDRs);
  if (networking !== undefined && cidrSizeLimited(options.clusterIPAllocation ?? DEFAULT_CLUSTER_IP_ALLOCATION)) {
    const tooLarge = maxCIDRRange(networking.primary, '--service-cluster-ip-range');
    if (tooLarge) errors.push(tooLarge);
    if (networking.secondary !== undefined) {
      const secondaryTooLarge = maxCIDRRange(networking.secondary, '--service-cluster-ip-range[1]');
      if (secondaryTooLarge) errors.push(secondaryTooLarge);
    }
  }

  const nodePort = options.kubernetesServiceNodePort ?? 0;
  if (!Number.isInteger(nodePort) || nodePort < 0 || nodePort > 65535) {
    errors.push(
      err(`--kubernetes-service-node-port ${nodePort} must be between 0 and 65535, inclusive. If 0, the Kubernetes master service will be of type ClusterIP`),
    );
  }
  if (networking !== undefined && nodePort > 0 && !portRangeContains(networking.nodePortRange, nodePort)) {
    errors.push(err(`kubernetes service node port range ${formatPortRange(networking.nodePortRange)} doesn't contain ${nodePort}`));
  }

  const reconcilerType = options.endpointReconcilerType ?? 'lease';
  const publicIP = parseIPSloppy(options.publicIP);
  if (!publicIP.ok) errors.push(err(publicIP.error.message));
  if (publicIP.ok && networking !== undefined && reconcilerType !== 'none' && publicIP.value.family !== cidrFamily(networking.primary)) {
    errors.push(err(`service IP family ${goQuote(formatCIDR(networking.primary))} must match public address family ${goQuote(formatIP(publicIP.value))}`));
  }

  const leaseTtlMs = positiveMs('the lease TTL', options.leaseTtlMs, DEFAULT_ENDPOINT_RECONCILER_TTL_MS, errors);
  const endpointIntervalMs = positiveMs('the endpoint interval', options.endpointIntervalMs, DEFAULT_ENDPOINT_RECONCILER_INTERVAL_MS, errors);
  const systemNamespacesIntervalMs = positiveMs(
    'the system namespaces interval',
    options.systemNamespacesIntervalMs,
    DEFAULT_SYSTEM_NAMESPACES_INTERVAL_MS,
    errors,
  );
  const repairIntervalMs = positiveMs('the repair interval', options.repairIntervalMs, DEFAULT_REPAIR_INTERVAL_MS, errors);

  if (errors.length > 0 || networking === undefined || !publicIP.ok) {
    return errResult({ _tag: 'ErrBootstrapConfig', message: aggregate(errors), causes: errors });
  }
  return ok({
    serviceNetworking: networking,
    serviceCIDRs: cidrs,
    serviceIP: networking.apiServerServiceIP,
    publicIP: publicIP.value,
    securePort: options.securePort ?? DEFAULT_SECURE_PORT,
    servicePort: options.servicePort ?? DEFAULT_SERVICE_PORT,
    kubernetesServiceNodePort: nodePort,
    nodePortRange: networking.nodePortRange,
    extraServicePorts: options.extraServicePorts ?? [],
    extraEndpointPorts: options.extraEndpointPorts ?? [],
    endpointReconcilerType: reconcilerType,
    masterCount,
    leaseTtlMs,
    endpointIntervalMs,
    systemNamespacesIntervalMs,
    repairIntervalMs,
    reconcileServiceOnStart: options.reconcileServiceOnStart ?? true,
    clusterIPAllocator: options.clusterIPAllocator ?? options.clusterIPAllocation?.allocator ?? 'bitmap',
  });
}
