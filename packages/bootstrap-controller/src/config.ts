// The bootstrap controller's configuration: the kube-apiserver flags it depends on, their
// defaults, and the checks kube-apiserver makes on them before it starts, with upstream's text.
// upstream: cmd/kube-apiserver/app/options/validation.go (ServerRunOptions.Validate's
//           --apiserver-count check, validateClusterIPFlags, validateMaxCIDRRange,
//           validateServiceNodePort),
//           pkg/controlplane/controller.go NewBootstrapController (the IP family check),
//           pkg/controlplane/services.go ServiceIPRange (the /29 minimum, network + 1)
import {
  cidrFamily,
  familyBits,
  formatCIDR,
  formatIP,
  goQuote,
  parseCIDRSloppy,
  err as errResult,
  ok,
  parseIPSloppy,
  type CIDR,
  type EndpointPort,
  type IP,
  type Result,
  type ServicePort,
} from '@kubesvc/api-types';
import { ERR_SERVICE_CIDRS_SAME_FAMILY, ERR_TOO_MANY_SERVICE_CIDRS, serviceIPRange } from '@kubesvc/ipallocator';
import { DEFAULT_NODE_PORT_RANGE, formatPortRange, parsePortRange, portRangeContains, type PortRange } from '@kubesvc/portallocator';
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
/** upstream: validateClusterIPFlags maxCIDRBits (without MultiCIDRServiceAllocator). */
export const MAX_CIDR_BITS = 20;

export interface BootstrapOptions {
  /** --service-cluster-ip-range: one CIDR, or two of different families separated by a comma. Unset means 10.0.0.0/24. */
  readonly serviceClusterIPRange?: string;
  /** --advertise-address: this apiserver's address, written into the kubernetes Endpoints. */
  readonly publicIP: string;
  /** --secure-port: the endpoints' port and the Service's targetPort. */
  readonly securePort?: number;
  /** The kubernetes Service's port. */
  readonly servicePort?: number;
  /** --kubernetes-service-node-port: 0 makes the Service type ClusterIP. */
  readonly kubernetesServiceNodePort?: number;
  /** --service-node-port-range. */
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
}

export interface BootstrapConfig {
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

  const rangeText = options.serviceClusterIPRange?.trim() ?? '';
  const entries = rangeText === '' ? [] : rangeText.split(',');
  if (entries.length > 2) errors.push(err(ERR_TOO_MANY_SERVICE_CIDRS));
  const primary = serviceIPRange(entries[0]?.trim() ?? '');
  if (!primary.ok) {
    errors.push(err(primary.error.message));
  } else {
    cidrs.push(primary.value.cidr);
    const tooLarge = maxCIDRRange(primary.value.cidr, '--service-cluster-ip-range');
    if (tooLarge) errors.push(tooLarge);
  }
  const secondaryText = entries[1]?.trim();
  if (secondaryText !== undefined) {
    const secondary = parseCIDRSloppy(secondaryText);
    if (!secondary.ok) {
      errors.push(err(secondary.error.message));
    } else {
      if (primary.ok && cidrFamily(primary.value.cidr) === cidrFamily(secondary.value.cidr)) {
        errors.push(err(ERR_SERVICE_CIDRS_SAME_FAMILY));
      }
      const tooLarge = maxCIDRRange(secondary.value.cidr, '--service-cluster-ip-range[1]');
      if (tooLarge) errors.push(tooLarge);
      cidrs.push(secondary.value.cidr);
    }
  }

  const nodePort = options.kubernetesServiceNodePort ?? 0;
  const portRange = parsePortRange(options.serviceNodePortRange ?? DEFAULT_NODE_PORT_RANGE);
  if (!portRange.ok) errors.push(err(portRange.error.message));
  if (!Number.isInteger(nodePort) || nodePort < 0 || nodePort > 65535) {
    errors.push(
      err(`--kubernetes-service-node-port ${nodePort} must be between 0 and 65535, inclusive. If 0, the Kubernetes master service will be of type ClusterIP`),
    );
  }
  if (portRange.ok && nodePort > 0 && !portRangeContains(portRange.value, nodePort)) {
    errors.push(err(`kubernetes service node port range ${formatPortRange(portRange.value)} doesn't contain ${nodePort}`));
  }

  const reconcilerType = options.endpointReconcilerType ?? 'lease';
  const publicIP = parseIPSloppy(options.publicIP);
  if (!publicIP.ok) errors.push(err(publicIP.error.message));
  if (publicIP.ok && primary.ok && reconcilerType !== 'none' && publicIP.value.family !== cidrFamily(primary.value.cidr)) {
    errors.push(err(`service IP family ${goQuote(formatCIDR(primary.value.cidr))} must match public address family ${goQuote(formatIP(publicIP.value))}`));
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

  if (errors.length > 0 || !primary.ok || !publicIP.ok || !portRange.ok) {
    return errResult({ _tag: 'ErrBootstrapConfig', message: aggregate(errors), causes: errors });
  }
  return ok({
    serviceCIDRs: cidrs,
    serviceIP: primary.value.apiServerServiceIP,
    publicIP: publicIP.value,
    securePort: options.securePort ?? DEFAULT_SECURE_PORT,
    servicePort: options.servicePort ?? DEFAULT_SERVICE_PORT,
    kubernetesServiceNodePort: nodePort,
    nodePortRange: portRange.value,
    extraServicePorts: options.extraServicePorts ?? [],
    extraEndpointPorts: options.extraEndpointPorts ?? [],
    endpointReconcilerType: reconcilerType,
    masterCount,
    leaseTtlMs,
    endpointIntervalMs,
    systemNamespacesIntervalMs,
    repairIntervalMs,
    reconcileServiceOnStart: options.reconcileServiceOnStart ?? true,
  });
}
