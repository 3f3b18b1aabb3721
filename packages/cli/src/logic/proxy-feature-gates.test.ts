// kube-proxy's --feature-gates as `rules` and `trace` read them.
import { describe, expect, it } from 'vitest';
import { parseProxyFeatureGates } from './proxy-feature-gates.js';

const gate = (text: string | undefined) => {
  const parsed = parseProxyFeatureGates(text);
  return parsed.ok ? parsed.value.preferSameTrafficDistribution : parsed.error.message;
};

describe('parseProxyFeatureGates', () => {
  it("is off by default (alpha in v1.33), on by name or by AllAlpha, a name's value winning over AllAlpha", () => {
    expect(gate(undefined)).toBe(false);
    expect(gate('PreferSameTrafficDistribution=true')).toBe(true);
    expect(gate('PreferSameTrafficDistribution=T, AllBeta=true')).toBe(true);
    expect(gate('AllAlpha=true')).toBe(true);
    expect(gate('AllAlpha=true,PreferSameTrafficDistribution=false')).toBe(false);
    expect(gate('PreferSameTrafficDistribution=1,PreferSameTrafficDistribution=0')).toBe(false);
  });

  it("refuses what kube-proxy's parser refuses, and the gates not modelled", () => {
    expect(gate('PreferSameTrafficDistribution')).toBe('--feature-gates: missing bool value for PreferSameTrafficDistribution');
    expect(gate('PreferSameTrafficDistribution=yes')).toBe(
      '--feature-gates: invalid value of PreferSameTrafficDistribution=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
    );
    expect(gate('TopologyAwareHints=true')).toBe(
      "--feature-gates: unrecognized feature gate: TopologyAwareHints (kubesvc's rules and trace model only PreferSameTrafficDistribution, and AllAlpha and AllBeta over it)",
    );
  });
});
