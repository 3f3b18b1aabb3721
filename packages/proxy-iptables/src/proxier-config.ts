// The settings a single-family iptables proxier runs with, and their defaults.
// upstream: pkg/proxy/iptables/proxier.go (NewProxier), pkg/proxy/util/nodeport_addresses.go,
// pkg/proxy/util/localdetector.go, cmd/kube-proxy defaults (masqueradeBit 14).

import {
  dedupeFieldErrors,
  err,
  fieldPath,
  forbidden,
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
  type FieldPath,
  type Result,
} from '@kubesvc/api-types';
import { nodePortAddressesContainIPv4Loopback } from './node-port-addresses.js';
import type { RuleKernel } from './rule-kernel.js';

/** Which traffic counts as coming from a pod: a cluster CIDR (`-s CIDR`), or no detection. */
export type LocalDetector = { readonly kind: 'cidr'; readonly cidr: string } | { readonly kind: 'none' };

/** How `--probability` is printed: `%0.10f` (v1.17 and later) or the old `%0.5f`. */
export type ProbabilityFormat = 'modern' | 'old';

/**
 * Which kube-proxy's text to write: the v1.31 line (the default), or v1.8 (2017), whose rules
 * differ in chains, rule shapes, comments and number formats (README, "kube-proxy 1.8").
 */
export type KubeProxyVersion = '1.8' | '1.31';

export interface ProxierConfigOptions {
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
   * `0x00004000` for bit 14. Upstream's unit tests hard-code `0x4000`; pass that to compare.
   */
  readonly masqueradeMark?: string;
  /** Masquerade all traffic to cluster IPs. Default false. */
  readonly masqueradeAll?: boolean;
  /** CIDRs selecting the node addresses NodePorts listen on; empty (default) means all. */
  readonly nodePortAddresses?: readonly string[];
  /** Allow NodePorts on 127.0.0.0/8 (IPv4 only). Default true, as upstream. */
  readonly localhostNodePorts?: boolean;
  /** Above this many endpoints in total, comments are left out of per-endpoint rules. Default 1000. */
  readonly largeClusterThreshold?: number;
  /** The nfacct counters exist (ct_state_invalid_dropped_pkts, localhost_nps_accepted_pkts). Default false. */
  readonly nfacctCounters?: boolean;
  /** iptables supports `--random-fully` on MASQUERADE. Default false. */
  readonly randomFully?: boolean;
  /** nf_conntrack_tcp_be_liberal is set: no DROP rule for INVALID packets. Default false. */
  readonly conntrackTCPLiberal?: boolean;
  /** Default 'modern' ('old' with kubeProxyVersion '1.8'). */
  readonly probabilityFormat?: ProbabilityFormat;
  /** Default '1.31'. */
  readonly kubeProxyVersion?: KubeProxyVersion;
  /**
   * The fast kernel the renders use (`@kubesvc/proxy-iptables/wasm`'s loadKernel()); absent:
   * the pure-JavaScript paths. The texts and chain names are the same bytes either way.
   */
  readonly kernel?: RuleKernel | undefined;
}

export interface ProxierConfig {
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
  /** After upstream's adjustment: false when nodePortAddresses excludes 127.0.0.1. */
  readonly localhostNodePorts: boolean;
  readonly largeClusterThreshold: number;
  readonly nfacctCounters: boolean;
  readonly randomFully: boolean;
  readonly conntrackTCPLiberal: boolean;
  readonly probabilityFormat: ProbabilityFormat;
  readonly kubeProxyVersion: KubeProxyVersion;
  /** ProxierConfigOptions.kernel; not a setting (no config key, no text depends on it). */
  readonly kernel?: RuleKernel;
}

export const DEFAULT_MASQUERADE_BIT = 14;
/** upstream: pkg/proxy/iptables/proxier.go largeClusterEndpointsThreshold */
export const LARGE_CLUSTER_ENDPOINTS_THRESHOLD = 1000;

/**
 * Go's `fmt.Sprintf("%#08x", v)`: Go pads the digits to the width and then prepends `0x`
 * (the prefix does not count towards the width), so 0x4000 prints as `0x00004000`.
 */
export function goHexMark(value: number): string {
  return `0x${value.toString(16).padStart(8, '0')}`;
}

/** A refused `proxierConfig` input: every bad field, as upstream's field errors. */
export interface ErrProxierConfig {
  readonly _tag: 'ErrProxierConfig';
  /** upstream's ErrorList.ToAggregate().Error() of `causes`. */
  readonly message: string;
  readonly causes: readonly FieldError[];
}

export const KUBE_PROXY_VERSIONS: readonly KubeProxyVersion[] = ['1.8', '1.31'];

/** What a kube-proxy version's proxier takes: looked up once per config (its rules: backend.ts). */
interface VersionSettings {
  /** The probability format when none is given. */
  readonly probabilityFormat: ProbabilityFormat;
  /** Whether it has an ip6tables proxier. */
  readonly ipv6: boolean;
  /** Whether it can accept NodePorts on localhost. */
  readonly localhostNodePorts: boolean;
  /** Settings added after this version, with the release that added them: refused when set, not ignored. */
  readonly addedLater: readonly (readonly [setting: LaterSetting, release: string])[];
}
type LaterSetting = 'randomFully' | 'nfacctCounters' | 'conntrackTCPLiberal' | 'nodePortAddresses' | 'localhostNodePorts' | 'largeClusterThreshold';

const VERSION_SETTINGS: Readonly<Record<KubeProxyVersion, VersionSettings>> = {
  '1.31': { probabilityFormat: 'modern', ipv6: true, localhostNodePorts: true, addedLater: [] },
  '1.8': {
    probabilityFormat: 'old',
    ipv6: false,
    localhostNodePorts: false,
    addedLater: [
      ['randomFully', 'v1.16'],
      ['nfacctCounters', 'v1.29'],
      ['conntrackTCPLiberal', 'v1.29'],
      ['nodePortAddresses', 'v1.10'],
      ['localhostNodePorts', 'v1.27'],
      ['largeClusterThreshold', 'v1.12'],
    ],
  },
};

// upstream: pkg/proxy/apis/config/validation/validation.go (Validate, validateKubeProxyIPTablesConfiguration,
// validateKubeProxyNodePortAddress) for the texts it has; the other texts are ours.
const CIDR_DETAIL = 'must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)';
const MASQUERADE_BIT_DETAIL = 'must be within the range [0, 31]';
const NODE_PORT_ADDRESSES_DETAIL = 'must be a valid IP block';
const IP_DETAIL = 'must be a valid IP';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is readonly string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/**
 * Checks every field and fills the defaults, as NewProxier (and kube-proxy's config validation
 * before it) would. A bad field is refused with an `ErrProxierConfig` naming the field and the
 * value; nothing is thrown, whatever the input (it may come from JavaScript or a parsed file).
 */
export function proxierConfig(options: ProxierConfigOptions): Result<ProxierConfig, ErrProxierConfig> {
  const errors: FieldError[] = [];
  const input: Record<string, unknown> = isObject(options) ? options : {};
  if (!isObject(options)) errors.push(invalid(fieldPath('options'), options, 'must be an object'));
  const field = (name: string): FieldPath => fieldPath(name);
  const bool = (name: string, fallback: boolean): boolean => {
    const v = input[name];
    if (v === undefined) return fallback;
    if (typeof v !== 'boolean') {
      errors.push(invalid(field(name), v, 'must be true or false'));
      return fallback;
    }
    return v;
  };

  const version = input['kubeProxyVersion'] ?? '1.31';
  if (!KUBE_PROXY_VERSIONS.includes(version as KubeProxyVersion)) {
    errors.push(notSupported(field('kubeProxyVersion'), version, KUBE_PROXY_VERSIONS));
  }
  const kubeProxyVersion: KubeProxyVersion = KUBE_PROXY_VERSIONS.includes(version as KubeProxyVersion) ? (version as KubeProxyVersion) : '1.31';
  const settings = VERSION_SETTINGS[kubeProxyVersion];

  const nodeName = input['nodeName'];
  if (typeof nodeName !== 'string') errors.push(required(field('nodeName'), 'must be a string'));

  const family = input['family'] ?? 4;
  if (family !== 4 && family !== 6) errors.push(notSupported(field('family'), family, ['4', '6']));
  const fam: 4 | 6 = family === 6 ? 6 : 4;

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
  if (nodeIPIn !== undefined && (typeof nodeIPIn !== 'string' || !parseIPSloppy(nodeIPIn).ok)) {
    errors.push(invalid(field('nodeIP'), nodeIPIn, IP_DETAIL));
  }

  const detectorIn = input['localDetector'] ?? { kind: 'none' };
  let localDetector: LocalDetector = { kind: 'none' };
  if (isObject(detectorIn) && detectorIn['kind'] === 'none') {
    localDetector = { kind: 'none' };
  } else if (isObject(detectorIn) && detectorIn['kind'] === 'cidr') {
    const cidr = detectorIn['cidr'];
    const parsed = typeof cidr === 'string' ? parseCIDRSloppy(cidr) : undefined;
    if (typeof cidr !== 'string' || parsed === undefined || !parsed.ok) {
      errors.push(invalid(field('localDetector').child('cidr'), cidr, CIDR_DETAIL));
    } else if (parsed.value.cidr.network.family !== fam) {
      errors.push(invalid(field('localDetector').child('cidr'), cidr, `must be an IPv${fam} CIDR for an IPv${fam} proxier`));
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

  const npaIn = input['nodePortAddresses'] ?? [];
  let nodePortAddressesList: readonly string[] = [];
  if (!isStringArray(npaIn)) {
    errors.push(invalid(field('nodePortAddresses'), npaIn, NODE_PORT_ADDRESSES_DETAIL));
  } else if (npaIn.some((text) => !parseCIDRSloppy(text).ok)) {
    // upstream reports the whole list once, with the list as the value.
    errors.push(invalid(field('nodePortAddresses'), goStringSlice(npaIn), NODE_PORT_ADDRESSES_DETAIL));
  } else {
    nodePortAddressesList = npaIn;
  }

  const thresholdIn = input['largeClusterThreshold'] ?? LARGE_CLUSTER_ENDPOINTS_THRESHOLD;
  let largeClusterThreshold = LARGE_CLUSTER_ENDPOINTS_THRESHOLD;
  if (typeof thresholdIn !== 'number' || !Number.isInteger(thresholdIn) || thresholdIn < 0) {
    errors.push(invalid(field('largeClusterThreshold'), thresholdIn, 'must be greater than or equal to 0'));
  } else {
    largeClusterThreshold = thresholdIn;
  }

  const formatIn = input['probabilityFormat'] ?? settings.probabilityFormat;
  if (formatIn !== 'old' && formatIn !== 'modern') errors.push(notSupported(field('probabilityFormat'), formatIn, ['modern', 'old']));
  const probabilityFormat: ProbabilityFormat = formatIn === 'old' ? 'old' : 'modern';

  const masqueradeAll = bool('masqueradeAll', false);
  const nfacctCounters = bool('nfacctCounters', false);
  const randomFully = bool('randomFully', false);
  const conntrackTCPLiberal = bool('conntrackTCPLiberal', false);
  let localhostNodePorts = bool('localhostNodePorts', true);

  // What an older kube-proxy could not do: refused rather than silently ignored.
  if (!settings.ipv6 && fam === 6) errors.push(forbidden(field('family'), `the kube-proxy ${kubeProxyVersion} iptables proxier is IPv4 only`));
  const isSet: Readonly<Record<LaterSetting, boolean>> = {
    randomFully,
    nfacctCounters,
    conntrackTCPLiberal,
    nodePortAddresses: nodePortAddressesList.length > 0,
    localhostNodePorts: input['localhostNodePorts'] !== undefined,
    largeClusterThreshold: input['largeClusterThreshold'] !== undefined,
  };
  for (const [name, release] of settings.addedLater) {
    if (isSet[name]) errors.push(forbidden(field(name), `kube-proxy ${kubeProxyVersion} has no such setting (added in ${release})`));
  }

  if (errors.length > 0) {
    return err({ _tag: 'ErrProxierConfig', message: renderAggregate(errors), causes: dedupeFieldErrors(errors) });
  }
  // upstream NewProxier: localhost NodePorts are off unless nodePortAddresses admits 127.0.0.1.
  if (!settings.localhostNodePorts || !nodePortAddressesContainIPv4Loopback(nodePortAddressesList, fam)) localhostNodePorts = false;
  return ok({
    nodeName: nodeName as string,
    nodeIPs,
    nodeIP: typeof nodeIPIn === 'string' ? nodeIPIn : defaultNodeIP(nodeIPs, fam),
    family: fam,
    localDetector,
    masqueradeBit,
    masqueradeMark: typeof markIn === 'string' ? markIn : goHexMark(2 ** masqueradeBit),
    masqueradeAll,
    nodePortAddresses: nodePortAddressesList,
    localhostNodePorts,
    largeClusterThreshold,
    nfacctCounters,
    randomFully,
    conntrackTCPLiberal,
    probabilityFormat,
    kubeProxyVersion,
    ...(input['kernel'] !== undefined ? { kernel: input['kernel'] as RuleKernel } : {}),
  });
}

function defaultNodeIP(addresses: readonly string[], family: 4 | 6): string {
  for (const text of addresses) {
    const parsed = parseIPSloppy(text);
    if (parsed.ok && parsed.value.family === family && !isLoopback(parsed.value)) return formatIP(parsed.value);
  }
  return '';
}
