// The settings a single-family nftables proxier runs with, and their defaults.
// upstream: pkg/proxy/nftables/proxier.go (v1.33: NewProxier, OnServiceCIDRsChanged),
// pkg/proxy/util/nodeport_addresses.go, pkg/proxy/util/localdetector.go, cmd/kube-proxy
// defaults (masqueradeBit 14). The option names are proxy-iptables' proxierConfig's where
// they mean the same thing.
//
// The nftables proxier has no localhost NodePorts: it never accepts NodePort traffic on
// 127.0.0.0/8 or ::1 (its NodePort rules exclude loopback destinations, and a loopback
// address selected by nodePortAddresses is left out of @nodeport-ips), so there is no
// `localhostNodePorts` setting. Nor does it have the iptables proxier's large-cluster mode,
// nfacct counters, --random-fully switch (it always masquerades fully-random) or
// conntrack-liberal switch.

import {
  dedupeFieldErrors,
  err,
  fieldPath,
  formatIP,
  goStringSlice,
  invalid,
  isLoopback,
  notSupported,
  ok,
  parseCIDRSloppy,
  parseIPSloppy,
  renderAggregate,
  required,
  type FieldError,
  type Result,
} from '@kubesvc/api-types';

/** Which traffic counts as coming from a pod: a cluster CIDR (`ip saddr CIDR`), or no detection. */
export type NftablesLocalDetector = { readonly kind: 'cidr'; readonly cidr: string } | { readonly kind: 'none' };

export interface NftablesProxierConfigOptions {
  /** The node kube-proxy runs on; endpoints with this nodeName are local. */
  readonly nodeName: string;
  /**
   * The node's addresses (all interfaces, loopback included), any family: the candidates
   * that `nodePortAddresses` selects for the `nodeport-ips` set.
   */
  readonly nodeIPs?: readonly string[];
  /**
   * The node IP (loadBalancerSourceRanges containing it also admit the LB IPs as sources).
   * Default: the first non-loopback address of the proxier's family in `nodeIPs`.
   */
  readonly nodeIP?: string;
  /** The proxier's IP family; default 4 (table `ip kube-proxy`; 6: `ip6 kube-proxy`). */
  readonly family?: 4 | 6;
  /** Default `{ kind: 'none' }`. */
  readonly localDetector?: NftablesLocalDetector;
  /** Default 14 (mark 0x4000). */
  readonly masqueradeBit?: number;
  /**
   * The mark text used in rules. Default: Go's `%#08x` of 1 << masqueradeBit, `0x00004000`
   * for bit 14, as NewProxier writes it. Upstream's unit tests hard-code `0x4000`.
   */
  readonly masqueradeMark?: string;
  /** Masquerade all traffic to cluster IPs. Default false. */
  readonly masqueradeAll?: boolean;
  /**
   * CIDRs selecting the node addresses NodePorts are accepted on; none of the proxier's family
   * (the default) means every local address (`fib daddr type local`). kube-proxy's own default
   * for nftables mode, `primary` (the node IP), is its command line's: pass the node IP's CIDR.
   */
  readonly nodePortAddresses?: readonly string[];
  /**
   * The cluster's ServiceCIDRs, any family (OnServiceCIDRsChanged): those of the proxier's
   * family make the cluster-ips-check rule that drops traffic to unallocated ClusterIPs.
   * Default none (no such rule).
   */
  readonly serviceCIDRs?: readonly string[];
}

export interface NftablesProxierConfig {
  readonly nodeName: string;
  readonly nodeIPs: readonly string[];
  /** '' when there is none. */
  readonly nodeIP: string;
  readonly family: 4 | 6;
  readonly localDetector: NftablesLocalDetector;
  readonly masqueradeBit: number;
  readonly masqueradeMark: string;
  readonly masqueradeAll: boolean;
  readonly nodePortAddresses: readonly string[];
  /** The ServiceCIDRs of the proxier's family, in the order given, as given. */
  readonly serviceCIDRs: readonly string[];
}

/** A refused `nftablesProxierConfig` input: every bad field, as upstream's field errors. */
export interface ErrNftablesProxierConfig {
  readonly _tag: 'ErrNftablesProxierConfig';
  /** upstream's ErrorList.ToAggregate().Error() of `causes`. */
  readonly message: string;
  readonly causes: readonly FieldError[];
}

export const NFTABLES_DEFAULT_MASQUERADE_BIT = 14;

// upstream: pkg/proxy/apis/config/validation/validation.go for the texts it has; the others are ours.
const CIDR_DETAIL = 'must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)';
const MASQUERADE_BIT_DETAIL = 'must be within the range [0, 31]';
const NODE_PORT_ADDRESSES_DETAIL = 'must be a valid IP block';
const IP_DETAIL = 'must be a valid IP';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is readonly string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * Go's `fmt.Sprintf("%#08x", v)`: the digits padded to eight, then `0x` (which does not count
 * towards the width), so 0x4000 prints as `0x00004000`.
 */
function goHexMark(value: number): string {
  return `0x${value.toString(16).padStart(8, '0')}`;
}

function cidrFamily(text: string): 4 | 6 | undefined {
  const parsed = parseCIDRSloppy(text);
  return parsed.ok ? parsed.value.cidr.network.family : undefined;
}

function defaultNodeIP(addresses: readonly string[], family: 4 | 6): string {
  for (const text of addresses) {
    const parsed = parseIPSloppy(text);
    if (parsed.ok && parsed.value.family === family && !isLoopback(parsed.value)) return formatIP(parsed.value);
  }
  return '';
}

/**
 * Checks every field and fills the defaults, as NewProxier (and kube-proxy's config validation
 * before it) would. A bad field is refused with an `ErrNftablesProxierConfig` naming the
 * field and the value; nothing is thrown, whatever the input.
 */
export function nftablesProxierConfig(options: NftablesProxierConfigOptions): Result<NftablesProxierConfig, ErrNftablesProxierConfig> {
  const errors: FieldError[] = [];
  const input: Record<string, unknown> = isObject(options) ? options : {};
  if (!isObject(options)) errors.push(invalid(fieldPath('options'), options, 'must be an object'));
  const field = fieldPath;

  const nodeName = input['nodeName'];
  if (typeof nodeName !== 'string') errors.push(required(field('nodeName'), 'must be a string'));

  const familyIn = input['family'] ?? 4;
  if (familyIn !== 4 && familyIn !== 6) errors.push(notSupported(field('family'), familyIn, ['4', '6']));
  const family: 4 | 6 = familyIn === 6 ? 6 : 4;

  const nodeIPsIn = input['nodeIPs'] ?? [];
  let nodeIPs: readonly string[] = [];
  if (!isStringArray(nodeIPsIn)) {
    errors.push(invalid(field('nodeIPs'), nodeIPsIn, 'must be a list of IP addresses'));
  } else {
    nodeIPs = nodeIPsIn;
    nodeIPsIn.forEach((text, i) => {
      if (!parseIPSloppy(text).ok) errors.push(invalid(field('nodeIPs').index(i), text, IP_DETAIL));
    });
  }

  const nodeIPIn = input['nodeIP'];
  let nodeIP = '';
  if (nodeIPIn !== undefined) {
    const parsed = typeof nodeIPIn === 'string' ? parseIPSloppy(nodeIPIn) : undefined;
    if (parsed === undefined || !parsed.ok) errors.push(invalid(field('nodeIP'), nodeIPIn, IP_DETAIL));
    else if (parsed.value.family !== family) errors.push(invalid(field('nodeIP'), nodeIPIn, `must be an IPv${family} address for an IPv${family} proxier`));
    else nodeIP = formatIP(parsed.value);
  } else {
    nodeIP = defaultNodeIP(nodeIPs, family);
  }

  const detectorIn = input['localDetector'] ?? { kind: 'none' };
  let localDetector: NftablesLocalDetector = { kind: 'none' };
  if (isObject(detectorIn) && detectorIn['kind'] === 'none') {
    localDetector = { kind: 'none' };
  } else if (isObject(detectorIn) && detectorIn['kind'] === 'cidr') {
    const cidr = detectorIn['cidr'];
    const cidrFam = typeof cidr === 'string' ? cidrFamily(cidr) : undefined;
    if (typeof cidr !== 'string' || cidrFam === undefined) {
      errors.push(invalid(field('localDetector').child('cidr'), cidr, CIDR_DETAIL));
    } else if (cidrFam !== family) {
      errors.push(invalid(field('localDetector').child('cidr'), cidr, `must be an IPv${family} CIDR for an IPv${family} proxier`));
    } else {
      localDetector = { kind: 'cidr', cidr };
    }
  } else {
    errors.push(notSupported(field('localDetector').child('kind'), isObject(detectorIn) ? detectorIn['kind'] : detectorIn, ['cidr', 'none']));
  }

  const bitIn = input['masqueradeBit'] ?? NFTABLES_DEFAULT_MASQUERADE_BIT;
  let masqueradeBit = NFTABLES_DEFAULT_MASQUERADE_BIT;
  if (typeof bitIn !== 'number' || !Number.isInteger(bitIn) || bitIn < 0 || bitIn > 31) {
    errors.push(invalid(field('masqueradeBit'), bitIn, MASQUERADE_BIT_DETAIL));
  } else {
    masqueradeBit = bitIn;
  }
  const markIn = input['masqueradeMark'];
  if (markIn !== undefined && (typeof markIn !== 'string' || !/^(0[xX][0-9a-fA-F]{1,8}|[0-9]{1,10})$/.test(markIn))) {
    errors.push(invalid(field('masqueradeMark'), markIn, 'must be a mark value, hexadecimal (0x4000) or decimal'));
  }

  const masqueradeAllIn = input['masqueradeAll'] ?? false;
  if (typeof masqueradeAllIn !== 'boolean') errors.push(invalid(field('masqueradeAll'), masqueradeAllIn, 'must be true or false'));

  const npaIn = input['nodePortAddresses'] ?? [];
  let nodePortAddresses: readonly string[] = [];
  if (!isStringArray(npaIn)) {
    errors.push(invalid(field('nodePortAddresses'), npaIn, NODE_PORT_ADDRESSES_DETAIL));
  } else if (npaIn.some((text) => cidrFamily(text) === undefined)) {
    // upstream reports the whole list once, with the list as the value.
    errors.push(invalid(field('nodePortAddresses'), goStringSlice(npaIn), NODE_PORT_ADDRESSES_DETAIL));
  } else {
    nodePortAddresses = npaIn;
  }

  const cidrsIn = input['serviceCIDRs'] ?? [];
  let serviceCIDRs: readonly string[] = [];
  if (!isStringArray(cidrsIn)) {
    errors.push(invalid(field('serviceCIDRs'), cidrsIn, 'must be a list of CIDR blocks'));
  } else {
    cidrsIn.forEach((text, i) => {
      if (cidrFamily(text) === undefined) errors.push(invalid(field('serviceCIDRs').index(i), text, CIDR_DETAIL));
    });
    // OnServiceCIDRsChanged: the CIDRs of the proxier's family, as given.
    serviceCIDRs = cidrsIn.filter((text) => cidrFamily(text) === family);
  }

  if (errors.length > 0) {
    return err({ _tag: 'ErrNftablesProxierConfig', message: renderAggregate(errors), causes: dedupeFieldErrors(errors) });
  }
  return ok({
    nodeName: nodeName as string,
    nodeIPs,
    nodeIP,
    family,
    localDetector,
    masqueradeBit,
    masqueradeMark: typeof markIn === 'string' ? markIn : goHexMark(2 ** masqueradeBit),
    masqueradeAll: masqueradeAllIn === true,
    nodePortAddresses,
    serviceCIDRs,
  });
}
