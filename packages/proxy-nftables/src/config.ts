// The settings a single-family nftables proxier runs with, and their defaults.
// upstream: pkg/proxy/nftables/proxier.go (v1.33: NewProxier, OnServiceCIDRsChanged),
// pkg/proxy/util/nodeport_addresses.go, pkg/proxy/util/localdetector.go, cmd/kube-proxy
// defaults (masqueradeBit 14). The settings both backends take, their checks and defaults are
// @kubesvc/proxy's (commonProxierConfig), as proxy-iptables' proxierConfig takes them; only
// serviceCIDRs is checked here.
//
// The nftables proxier has no localhost NodePorts: it never accepts NodePort traffic on
// 127.0.0.0/8 or ::1 (its NodePort rules exclude loopback destinations, and a loopback
// address selected by nodePortAddresses is left out of @nodeport-ips), so there is no
// `localhostNodePorts` setting. Nor does it have the iptables proxier's large-cluster mode,
// nfacct counters, --random-fully switch (it always masquerades fully-random) or
// conntrack-liberal switch.

import { dedupeFieldErrors, err, fieldPath, invalid, ok, renderAggregate, type FieldError, type Result } from '@kubesvc/api-types';
import {
  CIDR_DETAIL,
  DEFAULT_MASQUERADE_BIT,
  cidrFamily,
  commonProxierConfig,
  isStringArray,
  proxierOptionsInput,
  type CommonProxierConfig,
  type CommonProxierConfigOptions,
  type LocalDetector,
} from '@kubesvc/proxy';

/** Which traffic counts as coming from a pod: a cluster CIDR (`ip saddr CIDR`), or no detection. */
export type NftablesLocalDetector = LocalDetector;

/**
 * The shared settings (`@kubesvc/proxy`'s CommonProxierConfigOptions: nodeName, nodeIPs, nodeIP,
 * family, localDetector, masqueradeBit, masqueradeMark, masqueradeAll, nodePortAddresses) and
 * the nftables proxier's own. Here `family` also picks the table (`ip kube-proxy`, 6:
 * `ip6 kube-proxy`); `nodeIP` must be of the proxier's family and is written canonically; none
 * of `nodePortAddresses` of the family means every local address (`fib daddr type local`), and
 * kube-proxy's own default for nftables mode, `primary` (the node IP), is its command line's:
 * pass the node IP's CIDR.
 */
export interface NftablesProxierConfigOptions extends CommonProxierConfigOptions {
  /**
   * The cluster's ServiceCIDRs, any family (OnServiceCIDRsChanged): those of the proxier's
   * family make the cluster-ips-check rule that drops traffic to unallocated ClusterIPs.
   * Default none (no such rule).
   */
  readonly serviceCIDRs?: readonly string[];
}

export interface NftablesProxierConfig extends CommonProxierConfig {
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

export const NFTABLES_DEFAULT_MASQUERADE_BIT = DEFAULT_MASQUERADE_BIT;

/**
 * Checks every field and fills the defaults, as NewProxier (and kube-proxy's config validation
 * before it) would. A bad field is refused with an `ErrNftablesProxierConfig` naming the
 * field and the value; nothing is thrown, whatever the input.
 */
export function nftablesProxierConfig(options: NftablesProxierConfigOptions): Result<NftablesProxierConfig, ErrNftablesProxierConfig> {
  const { input, errors } = proxierOptionsInput(options);
  const common = commonProxierConfig(input, errors, 'of-family');

  const cidrsIn = input['serviceCIDRs'] ?? [];
  let serviceCIDRs: readonly string[] = [];
  if (!isStringArray(cidrsIn)) {
    errors.push(invalid(fieldPath('serviceCIDRs'), cidrsIn, 'must be a list of CIDR blocks'));
  } else {
    cidrsIn.forEach((text, i) => {
      if (cidrFamily(text) === undefined) errors.push(invalid(fieldPath('serviceCIDRs').index(i), text, CIDR_DETAIL));
    });
    // OnServiceCIDRsChanged: the CIDRs of the proxier's family, as given.
    serviceCIDRs = cidrsIn.filter((text) => cidrFamily(text) === common.family);
  }

  if (errors.length > 0) {
    return err({ _tag: 'ErrNftablesProxierConfig', message: renderAggregate(errors), causes: dedupeFieldErrors(errors) });
  }
  return ok({ ...common, serviceCIDRs });
}
