// kube-proxy's --feature-gates for `rules` and `trace`: the gates of v1.33's kube-proxy that
// change the rules modelled here. Pure.
// upstream (v1.33): staging/src/k8s.io/component-base/featuregate/feature_gate.go (Set: pairs
// key=value, strconv.ParseBool values, AllAlpha/AllBeta), pkg/features/kube_features.go
// (PreferSameTrafficDistribution: alpha, off by default).
import { err, ok, readFeatureGatePairs, type Result, type TaggedError } from '@kubesvc/api-types';

export type ErrProxyFeatureGates = TaggedError<'ErrProxyFeatureGates'>;

export interface ProxyFeatureGates {
  /** Node hints (EndpointSlice `hints.forNodes`) narrow Cluster endpoints to the node's. */
  readonly preferSameTrafficDistribution: boolean;
}

const GATE = 'PreferSameTrafficDistribution';
const NOTE = `kubesvc's rules and trace model only ${GATE}, and AllAlpha and AllBeta over it`;

const refuse = (message: string): Result<never, ErrProxyFeatureGates> => err({ _tag: 'ErrProxyFeatureGates', message: `--feature-gates: ${message}` });

/** The gates `text` (comma-separated key=value pairs, flags repeated joined by commas) sets; v1.33's defaults for the rest. */
export function parseProxyFeatureGates(text: string | undefined): Result<ProxyFeatureGates, ErrProxyFeatureGates> {
  const pairs = readFeatureGatePairs(text ?? '');
  if (!pairs.ok) return refuse(pairs.error.message);
  let explicit: boolean | undefined;
  let allAlpha = false;
  for (const [key, bool] of pairs.value) {
    if (key === GATE) explicit = bool;
    else if (key === 'AllAlpha') allAlpha = bool;
    else if (key !== 'AllBeta') return refuse(`unrecognized feature gate: ${key} (${NOTE})`);
  }
  // An alpha gate: AllAlpha turns it on unless it is set by name.
  return ok({ preferSameTrafficDistribution: explicit ?? allAlpha });
}
