// The cluster's Service networking as kube-apiserver reads it from its flags: the service CIDRs
// (--service-cluster-ip-range, the primary and an optional secondary of the other family), the
// kubernetes Service's ClusterIP (network + 1 of the primary), the NodePort range
// (--service-node-port-range) and the cluster domain. This is the one parser of those flags;
// everything else (the bootstrap controller, the registry, the node agent, the explorer, the
// CLI's offline commands) takes the parsed value.
// upstream: cmd/kube-apiserver/app/options/completion.go (getServiceIPAndRanges: the default
//           range, the primary through ServiceIPRange, the secondary),
//           cmd/kube-apiserver/app/options/validation.go (validateClusterIPFlags: at most two
//           entries, of different families),
//           pkg/controlplane/apiserver/options/options.go (ServiceIPRange: the /29 minimum,
//           network + 1), pkg/kubeapiserver/options (DefaultServiceIPCIDR),
//           staging/src/k8s.io/apimachinery/pkg/util/net/port_range.go (PortRange.Set)
import type { TaggedError } from '../result.js';
import { err, ok, type Result } from '../result.js';
import { describeValue } from '../input-shape.js';
import { cidrEquals, formatCIDR, parseCIDRSloppy, type CIDR } from '../net/cidr.js';
import { rangeSize } from '../net/cidr-size.js';
import { getIndexedIP } from '../net/cidr-offset.js';
import { familyName, type IP } from '../net/ip.js';
import type { ClusterIPFamilies } from '../service-ip-families.js';
import { isDNS1123Subdomain } from '../validation/names.js';
import { DEFAULT_NODE_PORT_RANGE, formatPortRange, parsePortRange, type PortRange } from './port-range.js';

/** upstream kubeoptions.DefaultServiceIPCIDR, used when --service-cluster-ip-range is unset. */
export const DEFAULT_SERVICE_IP_CIDR = '10.0.0.0/24';

/** The kubelet's and CoreDNS's usual cluster domain. */
export const DEFAULT_CLUSTER_DOMAIN = 'cluster.local';

/** kube-apiserver's flag errors for --service-cluster-ip-range (validateClusterIPFlags). */
export const ERR_TOO_MANY_SERVICE_CIDRS = '--service-cluster-ip-range must not contain more than two entries';
export const ERR_SERVICE_CIDRS_SAME_FAMILY =
  '--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family';

/** upstream ServiceIPRange's refusal of a range with fewer than 8 addresses. */
export const ERR_SERVICE_RANGE_TOO_SMALL = 'the service cluster IP range must be at least 8 IP addresses';

/** The flags, as given on a command line. Absent means upstream's default; so does '' for the range and the domain. */
export interface ServiceNetworkingFlags {
  /** --service-cluster-ip-range: one CIDR, or two of different families, comma-separated, primary first. */
  readonly serviceClusterIPRange?: string;
  /** --service-node-port-range, e.g. `30000-32767`. */
  readonly serviceNodePortRange?: string;
  /** The cluster domain (the kubelet's --cluster-domain, CoreDNS's zone), e.g. `cluster.local`. */
  readonly clusterDomain?: string;
}

/** The parsed flags. Build one with parseServiceNetworking only. */
export interface ServiceNetworking {
  /** The primary service CIDR: its family is the cluster's primary family. */
  readonly primary: CIDR;
  /** The secondary service CIDR, of the other family (dual-stack), if any. */
  readonly secondary?: CIDR;
  /** The service CIDRs, primary first (one per family). */
  readonly serviceCIDRs: readonly [CIDR] | readonly [CIDR, CIDR];
  /** Their families, primary first: what a Service's ipFamilies default from. */
  readonly families: ClusterIPFamilies;
  /** network + 1 of the primary: the kubernetes Service's ClusterIP. */
  readonly apiServerServiceIP: IP;
  readonly nodePortRange: PortRange;
  /** The cluster domain, lower-case, without a trailing dot. */
  readonly clusterDomain: string;
}

/** A flag refused, with kube-apiserver's text; `flag` names it. */
export interface ErrServiceNetworking extends TaggedError<'ErrServiceNetworking'> {
  readonly flag: '--service-cluster-ip-range' | '--service-node-port-range' | '--cluster-domain';
}

export type ServiceNetworkingResult = Result<ServiceNetworking, ErrServiceNetworking>;

function refuse(flag: ErrServiceNetworking['flag'], message: string): Result<never, ErrServiceNetworking> {
  return err({ _tag: 'ErrServiceNetworking', flag, message });
}

/**
 * upstream ServiceIPRange: the kubernetes Service's IP, network + 1, of a range of at least 8
 * addresses (min(RangeSize, 65536) >= 8: /29 and /125 are the smallest, and /0 and /1 are
 * refused because RangeSize is 0 for them). The error text is ServiceIPRange's own.
 */
export function serviceIPOfRange(cidr: CIDR): Result<IP, TaggedError<'ErrServiceIPRange'>> {
  const size = rangeSize(cidr);
  if ((size < 65536n ? size : 65536n) < 8n) return err({ _tag: 'ErrServiceIPRange', message: ERR_SERVICE_RANGE_TOO_SMALL });
  const first = getIndexedIP(cidr, 1);
  if (!first.ok) return err({ _tag: 'ErrServiceIPRange', message: first.error.message });
  return ok(first.value);
}

function defaultRange(): CIDR {
  const parsed = parseCIDRSloppy(DEFAULT_SERVICE_IP_CIDR);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value.cidr;
}

/**
 * The one parser of --service-cluster-ip-range, --service-node-port-range and the cluster
 * domain. The node port range is read first (the flag parser's PortRange.Set runs before
 * kube-apiserver completes its options), then the service CIDRs as getServiceIPAndRanges reads
 * them, then validateClusterIPFlags' checks on their number and families. The CIDR-size limit
 * (validateMaxCIDRRange) is a check of a valid value, made with the other startup checks
 * (bootstrap-controller's bootstrapConfig).
 *
 * A secondary CIDR must be of at least 8 addresses too: kubesvc allocates from it as from the
 * primary (the registry's allocator), so it is held to ServiceIPRange's minimum, with its text.
 */
export function parseServiceNetworking(flags: ServiceNetworkingFlags = {}): ServiceNetworkingResult {
  // The edge: a JavaScript caller may pass anything.
  const given: unknown = flags;
  if (typeof given !== 'object' || given === null) return refuse('--service-cluster-ip-range', `parseServiceNetworking: expected the flags as an object, got ${describeValue(given)}`);
  for (const [key, flag] of [['serviceClusterIPRange', '--service-cluster-ip-range'], ['clusterDomain', '--cluster-domain']] as const) {
    const value: unknown = flags[key];
    if (value !== undefined && typeof value !== 'string') return refuse(flag, `${flag}: expected a string, got ${describeValue(value)}`);
  }
  const ports = parsePortRange(flags.serviceNodePortRange ?? DEFAULT_NODE_PORT_RANGE);
  if (!ports.ok) return refuse('--service-node-port-range', ports.error.message);

  const rangeFlag = flags.serviceClusterIPRange ?? '';
  // upstream: strings.Split on ',' with nothing trimmed; '' is the default range.
  const entries = rangeFlag === '' ? [] : rangeFlag.split(',');
  let primary: CIDR;
  let apiServerServiceIP: IP;
  let secondary: CIDR | undefined;
  if (entries.length === 0) {
    primary = defaultRange();
    const ip = serviceIPOfRange(primary);
    if (!ip.ok) return refuse('--service-cluster-ip-range', `error determining service IP ranges: ${ip.error.message}`);
    apiServerServiceIP = ip.value;
  } else {
    const first = parseCIDRSloppy(entries[0] ?? '');
    if (!first.ok) return refuse('--service-cluster-ip-range', 'service-cluster-ip-range[0] is not a valid cidr');
    primary = first.value.cidr;
    const ip = serviceIPOfRange(primary);
    if (!ip.ok) return refuse('--service-cluster-ip-range', `error determining service IP ranges for primary service cidr: ${ip.error.message}`);
    apiServerServiceIP = ip.value;
    if (entries.length > 1) {
      const second = parseCIDRSloppy(entries[1] ?? '');
      if (!second.ok) return refuse('--service-cluster-ip-range', 'service-cluster-ip-range[1] is not an ip net');
      secondary = second.value.cidr;
    }
  }
  if (entries.length > 2) return refuse('--service-cluster-ip-range', ERR_TOO_MANY_SERVICE_CIDRS);
  if (secondary !== undefined) {
    if (secondary.network.family === primary.network.family) return refuse('--service-cluster-ip-range', ERR_SERVICE_CIDRS_SAME_FAMILY);
    const ip = serviceIPOfRange(secondary);
    if (!ip.ok) return refuse('--service-cluster-ip-range', ip.error.message);
  }

  const domainFlag = flags.clusterDomain ?? '';
  const clusterDomain = domainFlag === '' ? DEFAULT_CLUSTER_DOMAIN : domainFlag.toLowerCase().replace(/\.$/, '');
  const domainErrors = isDNS1123Subdomain(clusterDomain);
  if (domainErrors.length > 0) return refuse('--cluster-domain', `--cluster-domain ${JSON.stringify(domainFlag)}: ${domainErrors.join('; ')}`);

  const primaryFamily = familyName(primary.network.family);
  return ok({
    primary,
    ...(secondary === undefined ? {} : { secondary }),
    serviceCIDRs: secondary === undefined ? [primary] : [primary, secondary],
    families: secondary === undefined ? [primaryFamily] : [primaryFamily, familyName(secondary.network.family)],
    apiServerServiceIP,
    nodePortRange: ports.value,
    clusterDomain,
  });
}

/** The flags that parse back to `networking`: formatCIDR of each CIDR, PortRange.String(). */
export function serviceNetworkingFlags(networking: ServiceNetworking): Required<ServiceNetworkingFlags> {
  return {
    serviceClusterIPRange: networking.serviceCIDRs.map(formatCIDR).join(','),
    serviceNodePortRange: formatPortRange(networking.nodePortRange),
    clusterDomain: networking.clusterDomain,
  };
}

/** Two values are the same configuration. */
export function serviceNetworkingEquals(a: ServiceNetworking, b: ServiceNetworking): boolean {
  return (
    a.serviceCIDRs.length === b.serviceCIDRs.length &&
    a.serviceCIDRs.every((c, i) => {
      const other = b.serviceCIDRs[i];
      return other !== undefined && cidrEquals(c, other);
    }) &&
    a.nodePortRange.base === b.nodePortRange.base &&
    a.nodePortRange.size === b.nodePortRange.size &&
    a.clusterDomain === b.clusterDomain
  );
}
