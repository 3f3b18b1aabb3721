// The settings every kube-proxy backend's proxier takes (the iptables and the nftables
// proxier's NewProxier share them), their field checks and their defaults. A backend checks
// its own settings around these, in its own order, so that an input with several bad fields
// is refused with the same aggregate message field for field: the pieces push their field
// errors onto the caller's list in the order they are called.
// upstream: pkg/proxy/iptables/proxier.go and pkg/proxy/nftables/proxier.go (NewProxier),
// pkg/proxy/util/localdetector.go, pkg/proxy/apis/config/validation/validation.go (the texts
// it has; the others are ours), cmd/kube-proxy defaults (masqueradeBit 14).

import {
  formatIP,
  goStringSlice,
  invalid,
  isLoopback,
  notSupported,
  parseCIDRSloppy,
  parseIPSloppy,
  required,
  fieldPath,
  type FieldError,
} from '@kubesvc/api-types';

/** Which traffic counts as coming from a pod: a cluster CIDR, or no detection. */
export type LocalDetector = { readonly kind: 'cidr'; readonly cidr: string } | { readonly kind: 'none' };

export interface CommonProxierConfigOptions {
  /** The node kube-proxy runs on; endpoints with this nodeName are local. */
  readonly nodeName: string;
  /**
   * The node's addresses (all interfaces, loopback included), any family: the candidates
   * that `nodePortAddresses` selects from.
   */
  readonly nodeIPs?: readonly string[];
  /**
   * The node IP (loadBalancerSourceRanges containing it also admit the LB IPs as sources).
   * Default: the first non-loopback address of the proxier's family in `nodeIPs`.
   */
  readonly nodeIP?: string;
  /** The proxier's IP family; default 4. A dual-stack node runs one proxier per family. */
  readonly family?: 4 | 6;
  /** Default `{ kind: 'none' }`. */
  readonly localDetector?: LocalDetector;
  /** Default 14 (mark 0x4000). */
  readonly masqueradeBit?: number;
  /**
   * The mark text used in rules. Default: Go's `%#08x` of 1 << masqueradeBit, which is
   * `0x00004000` for bit 14, as NewProxier writes it. Upstream's unit tests hard-code
   * `0x4000`; pass that to compare.
   */
  readonly masqueradeMark?: string;
  /** Masquerade all traffic to cluster IPs. Default false. */
  readonly masqueradeAll?: boolean;
  /** CIDRs selecting the node addresses NodePorts are accepted on; none of the family (default): all. */
  readonly nodePortAddresses?: readonly string[];
  /**
   * The node's labels (upstream's topologyLabels, from the Node object), of which
   * `topology.kubernetes.io/zone` is read: zone hints narrow Cluster endpoints to it. Default
   * none. A change asks for a full sync (upstream's OnTopologyChange). The iptables backend's
   * `kubeProxyVersion: '1.8'` predates hints and refuses labels, as its other later settings.
   */
  readonly topologyLabels?: Readonly<Record<string, string>>;
  /** The PreferSameTrafficDistribution feature gate: node hints narrow Cluster endpoints to this node. Default false (v1.33: alpha). */
  readonly preferSameTrafficDistribution?: boolean;
}

export interface CommonProxierConfig {
  readonly nodeName: string;
  readonly nodeIPs: readonly string[];
  /** '' when there is none. */
  readonly nodeIP: string;
  readonly family: 4 | 6;
  readonly localDetector: LocalDetector;
  readonly masqueradeBit: number;
  readonly masqueradeMark: string;
  readonly masqueradeAll: boolean;
  readonly nodePortAddresses: readonly string[];
  readonly topologyLabels: Readonly<Record<string, string>>;
  readonly preferSameTrafficDistribution: boolean;
}

/** The node settings checkNodeSettings reads: CommonProxierConfig less masqueradeAll and nodePortAddresses. */
export type NodeSettings = Omit<CommonProxierConfig, 'masqueradeAll' | 'nodePortAddresses'>;

/**
 * How the node IP is taken: `as-given` (any valid IP, kept as written: the iptables backend)
 * or `of-family` (refused unless of the proxier's family, and written canonically: the
 * nftables backend).
 */
export type NodeIPRule = 'as-given' | 'of-family';

export const DEFAULT_MASQUERADE_BIT = 14;

export const CIDR_DETAIL = 'must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)';
const MASQUERADE_BIT_DETAIL = 'must be within the range [0, 31]';
const NODE_PORT_ADDRESSES_DETAIL = 'must be a valid IP block';
const IP_DETAIL = 'must be a valid IP';

const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isStringArray = (v: unknown): v is readonly string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * Go's `fmt.Sprintf("%#08x", v)`: Go pads the digits to the width and then prepends `0x`
 * (the prefix does not count towards the width), so 0x4000 prints as `0x00004000`.
 */
export function goHexMark(value: number): string {
  return `0x${value.toString(16).padStart(8, '0')}`;
}

/** The family of a CIDR text, or undefined when it is not one. */
export function cidrFamily(text: string): 4 | 6 | undefined {
  const parsed = parseCIDRSloppy(text);
  return parsed.ok ? parsed.value.cidr.network.family : undefined;
}

/** The first non-loopback address of the family, written canonically; '' when there is none. */
export function defaultNodeIP(addresses: readonly string[], family: 4 | 6): string {
  for (const text of addresses) {
    const parsed = parseIPSloppy(text);
    if (parsed.ok && parsed.value.family === family && !isLoopback(parsed.value)) return formatIP(parsed.value);
  }
  return '';
}

/** A proxier config's input as a record, and the field errors found so far (a non-object input's). */
export interface ProxierOptionsInput {
  readonly input: Record<string, unknown>;
  readonly errors: FieldError[];
}

/** Starts a check: the options as a record (empty when they are not an object, which is refused). */
export function proxierOptionsInput(options: unknown): ProxierOptionsInput {
  const errors: FieldError[] = [];
  if (!isObject(options)) errors.push(invalid(fieldPath('options'), options, 'must be an object'));
  return { input: isObject(options) ? options : {}, errors };
}

/** A boolean setting, `fallback` when absent; anything else is refused. */
export function checkBooleanSetting(input: Record<string, unknown>, name: string, fallback: boolean, errors: FieldError[]): boolean {
  const v = input[name];
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') {
    errors.push(invalid(fieldPath(name), v, 'must be true or false'));
    return fallback;
  }
  return v;
}

/**
 * nodeName, family, nodeIPs, nodeIP, localDetector, masqueradeBit, masqueradeMark,
 * topologyLabels and preferSameTrafficDistribution, in this order: checked, their errors pushed onto `errors`, the defaults filled in. The values are
 * meaningful only when no error was pushed.
 */
export function checkNodeSettings(input: Record<string, unknown>, errors: FieldError[], nodeIPRule: NodeIPRule): NodeSettings {
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
    else if (nodeIPRule === 'as-given') nodeIP = nodeIPIn as string;
    else if (parsed.value.family !== family) errors.push(invalid(field('nodeIP'), nodeIPIn, `must be an IPv${family} address for an IPv${family} proxier`));
    else nodeIP = formatIP(parsed.value);
  } else {
    nodeIP = defaultNodeIP(nodeIPs, family);
  }

  const detectorIn = input['localDetector'] ?? { kind: 'none' };
  let localDetector: LocalDetector = { kind: 'none' };
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

  const bitIn = input['masqueradeBit'] ?? DEFAULT_MASQUERADE_BIT;
  let masqueradeBit = DEFAULT_MASQUERADE_BIT;
  if (typeof bitIn !== 'number' || !Number.isInteger(bitIn) || bitIn < 0 || bitIn > 31) {
    errors.push(invalid(field('masqueradeBit'), bitIn, MASQUERADE_BIT_DETAIL));
  } else {
    masqueradeBit = bitIn;
  }
  const markIn = input['masqueradeMark'];
  if (markIn !== undefined && (typeof markIn !== 'string' || !/^(0[xX][0-9a-fA-F]{1,8}|[0-9]{1,10})$/.test(markIn))) {
    errors.push(invalid(field('masqueradeMark'), markIn, 'must be a mark value, hexadecimal (0x4000) or decimal'));
  }

  const labelsIn = input['topologyLabels'] ?? NO_LABELS;
  let topologyLabels: Readonly<Record<string, string>> = NO_LABELS;
  if (!isObject(labelsIn) || !Object.values(labelsIn).every((v) => typeof v === 'string')) {
    errors.push(invalid(field('topologyLabels'), labelsIn, 'must be a map of label names to string values'));
  } else {
    topologyLabels = labelsIn as Readonly<Record<string, string>>;
  }
  const preferSameTrafficDistribution = checkBooleanSetting(input, 'preferSameTrafficDistribution', false, errors);

  return {
    nodeName: typeof nodeName === 'string' ? nodeName : '',
    nodeIPs,
    nodeIP,
    family,
    localDetector,
    masqueradeBit,
    masqueradeMark: typeof markIn === 'string' ? markIn : goHexMark(2 ** masqueradeBit),
    topologyLabels,
    preferSameTrafficDistribution,
  };
}

/** nodePortAddresses: a list of CIDRs of any family; a bad one refuses the whole list, as upstream reports it. */
export function checkNodePortAddresses(input: Record<string, unknown>, errors: FieldError[]): readonly string[] {
  const npaIn = input['nodePortAddresses'] ?? [];
  if (!isStringArray(npaIn)) {
    errors.push(invalid(fieldPath('nodePortAddresses'), npaIn, NODE_PORT_ADDRESSES_DETAIL));
    return [];
  }
  if (npaIn.some((text) => cidrFamily(text) === undefined)) {
    // upstream reports the whole list once, with the list as the value.
    errors.push(invalid(fieldPath('nodePortAddresses'), goStringSlice(npaIn), NODE_PORT_ADDRESSES_DETAIL));
    return [];
  }
  return npaIn;
}

/**
 * The shared settings in one go: checkNodeSettings, then masqueradeAll, then nodePortAddresses
 * (the nftables backend's order; the iptables backend checks settings of its own in between
 * and calls the pieces).
 */
export function commonProxierConfig(input: Record<string, unknown>, errors: FieldError[], nodeIPRule: NodeIPRule): CommonProxierConfig {
  const node = checkNodeSettings(input, errors, nodeIPRule);
  const masqueradeAll = checkBooleanSetting(input, 'masqueradeAll', false, errors);
  const nodePortAddresses = checkNodePortAddresses(input, errors);
  return { ...node, masqueradeAll, nodePortAddresses };
}
