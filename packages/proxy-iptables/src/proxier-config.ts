// The settings a single-family iptables proxier runs with, and their defaults.
// upstream: pkg/proxy/iptables/proxier.go (NewProxier), pkg/proxy/util/nodeport_addresses.go,
// pkg/proxy/util/localdetector.go, cmd/kube-proxy defaults (masqueradeBit 14).

import { dedupeFieldErrors, err, fieldPath, forbidden, invalid, notSupported, ok, renderAggregate, type FieldError, type Result } from '@kubesvc/api-types';
import {
  checkBooleanSetting,
  checkNodePortAddresses,
  checkNodeSettings,
  nodePortAddressesContainIPv4Loopback,
  proxierOptionsInput,
  type CommonProxierConfig,
  type CommonProxierConfigOptions,
} from '@kubesvc/proxy';
import type { RuleKernel } from './rule-kernel.js';

// The shared settings' types and defaults, under the names this package has always exported.
export type { LocalDetector } from '@kubesvc/proxy';
export { DEFAULT_MASQUERADE_BIT, goHexMark } from '@kubesvc/proxy';

/** How `--probability` is printed: `%0.10f` (v1.17 and later) or the old `%0.5f`. */
export type ProbabilityFormat = 'modern' | 'old';

/**
 * Which kube-proxy's text to write: the v1.31 line (the default), or v1.8 (2017), whose rules
 * differ in chains, rule shapes, comments and number formats (README, "kube-proxy 1.8").
 */
export type KubeProxyVersion = '1.8' | '1.31';

/**
 * The shared settings (`@kubesvc/proxy`'s CommonProxierConfigOptions: nodeName, nodeIPs, nodeIP,
 * family, localDetector, masqueradeBit, masqueradeMark, masqueradeAll, nodePortAddresses,
 * topologyLabels, preferSameTrafficDistribution; here
 * an empty nodePortAddresses means every address and nodeIP is kept as written) and the
 * iptables proxier's own.
 */
export interface ProxierConfigOptions extends CommonProxierConfigOptions {
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

export interface ProxierConfig extends CommonProxierConfig {
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

/** upstream: pkg/proxy/iptables/proxier.go largeClusterEndpointsThreshold */
export const LARGE_CLUSTER_ENDPOINTS_THRESHOLD = 1000;

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
type LaterSetting =
  | 'randomFully'
  | 'nfacctCounters'
  | 'conntrackTCPLiberal'
  | 'nodePortAddresses'
  | 'localhostNodePorts'
  | 'largeClusterThreshold'
  | 'topologyLabels'
  | 'preferSameTrafficDistribution';

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
      // Topology hints (TopologyAwareHints, v1.21) and node hints (PreferSameTrafficDistribution, v1.33).
      ['topologyLabels', 'v1.21'],
      ['preferSameTrafficDistribution', 'v1.33'],
    ],
  },
};

/**
 * Checks every field and fills the defaults, as NewProxier (and kube-proxy's config validation
 * before it) would. A bad field is refused with an `ErrProxierConfig` naming the field and the
 * value; nothing is thrown, whatever the input (it may come from JavaScript or a parsed file).
 */
export function proxierConfig(options: ProxierConfigOptions): Result<ProxierConfig, ErrProxierConfig> {
  const { input, errors } = proxierOptionsInput(options);
  const field = fieldPath;
  const bool = (name: string, fallback: boolean): boolean => checkBooleanSetting(input, name, fallback, errors);

  const version = input['kubeProxyVersion'] ?? '1.31';
  if (!KUBE_PROXY_VERSIONS.includes(version as KubeProxyVersion)) {
    errors.push(notSupported(field('kubeProxyVersion'), version, KUBE_PROXY_VERSIONS));
  }
  const kubeProxyVersion: KubeProxyVersion = KUBE_PROXY_VERSIONS.includes(version as KubeProxyVersion) ? (version as KubeProxyVersion) : '1.31';
  const settings = VERSION_SETTINGS[kubeProxyVersion];

  const node = checkNodeSettings(input, errors, 'as-given');
  const fam = node.family;
  const nodePortAddressesList = checkNodePortAddresses(input, errors);

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
    topologyLabels: Object.keys(node.topologyLabels).length > 0,
    preferSameTrafficDistribution: node.preferSameTrafficDistribution,
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
    ...node,
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
