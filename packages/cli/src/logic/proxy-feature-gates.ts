// kube-proxy's --feature-gates for `rules` and `trace`: the gates of v1.33's kube-proxy that
// change the rules modelled here. Pure.
// upstream (v1.33): staging/src/k8s.io/component-base/featuregate/feature_gate.go (Set: pairs
// key=value, strconv.ParseBool values, AllAlpha/AllBeta), pkg/features/kube_features.go
// (PreferSameTrafficDistribution: alpha, off by default).
import { err, ok, type Result, type TaggedError } from '@kubesvc/api-types';

export type ErrProxyFeatureGates = TaggedError<'ErrProxyFeatureGates'>;

export interface ProxyFeatureGates {
  /** Node hints (EndpointSlice `hints.forNodes`) narrow Cluster endpoints to the node's. */
  readonly preferSameTrafficDistribution: boolean;
}

const GATE = 'PreferSameTrafficDistribution';
const NOTE = `kubesvc's rules and trace model only ${GATE}, and AllAlpha and AllBeta over it`;

/** strconv.ParseBool. */
function goBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

const refuse = (message: string): Result<never, ErrProxyFeatureGates> => err({ _tag: 'ErrProxyFeatureGates', message: `--feature-gates: ${message}` });

/** The gates `text` (comma-separated key=value pairs, flags repeated joined by commas) sets; v1.33's defaults for the rest. */
export function parseProxyFeatureGates(text: string | undefined): Result<ProxyFeatureGates, ErrProxyFeatureGates> {
  let explicit: boolean | undefined;
  let allAlpha = false;
  for (const pair of (text ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    const key = (at < 0 ? pair : pair.slice(0, at)).trim();
    if (at < 0) return refuse(`missing bool value for ${key}`);
    const value = pair.slice(at + 1).trim();
    const bool = goBool(value);
    if (bool === undefined) return refuse(`invalid value of ${key}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
    if (key === GATE) explicit = bool;
    else if (key === 'AllAlpha') allAlpha = bool;
    else if (key !== 'AllBeta') return refuse(`unrecognized feature gate: ${key} (${NOTE})`);
  }
  // An alpha gate: AllAlpha turns it on unless it is set by name.
  return ok({ preferSameTrafficDistribution: explicit ?? allAlpha });
}
