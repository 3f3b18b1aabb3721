// --feature-gates and --emulated-version against kube-apiserver v1.33's texts and gate tables.
// upstream: staging/src/k8s.io/component-base/featuregate/feature_gate.go and feature_gate_test.go,
//           staging/src/k8s.io/component-base/compatibility/registry.go and registry_test.go,
//           staging/src/k8s.io/apimachinery/pkg/util/version/version.go,
//           pkg/features/kube_features.go (v1.33)
import { describe, expect, it } from 'vitest';
import { BITMAP_CLUSTER_IP_ALLOCATION, DEFAULT_CLUSTER_IP_ALLOCATION } from './cluster-ip-allocation.js';
import { parseClusterIPFeatureGates, UNMODELLED_GATE_NOTE, type FeatureGateFlags } from './feature-gates.js';

function accepted(flags: FeatureGateFlags) {
  const r = parseClusterIPFeatureGates(flags);
  if (!r.ok) throw new Error(`refused ${JSON.stringify(flags)}: ${r.error.message}`);
  return r.value;
}

function refusal(flags: FeatureGateFlags): { flag: string; message: string; causes: readonly string[] } {
  const r = parseClusterIPFeatureGates(flags);
  if (r.ok) throw new Error(`accepted ${JSON.stringify(flags)}`);
  expect(r.error._tag).toBe('ErrFeatureGates');
  return { flag: r.error.flag, message: r.error.message, causes: r.error.causes };
}

describe('parseClusterIPFeatureGates: the defaults', () => {
  it("v1.33's: MultiCIDRServiceAllocator on, DisableAllocatorDualWrite off, so IPAddress objects with the dual write", () => {
    const v = accepted({});
    expect(v.emulatedVersion).toBe('1.33');
    expect(v.enabled).toEqual({ MultiCIDRServiceAllocator: true, DisableAllocatorDualWrite: false, PreferSameTrafficDistribution: false });
    expect(v.allocation).toEqual(DEFAULT_CLUSTER_IP_ALLOCATION);
    expect(v.warnings).toEqual([]);
    // Empty flags are unset flags.
    expect(accepted({ featureGates: '', emulatedVersion: '' })).toEqual(v);
  });

  it.each([
    // 1.31 and 1.32: MultiCIDRServiceAllocator is beta and off, so the bitmap.
    ['1.31', false, false, BITMAP_CLUSTER_IP_ALLOCATION],
    ['1.32', false, false, BITMAP_CLUSTER_IP_ALLOCATION],
    ['1.33', true, false, DEFAULT_CLUSTER_IP_ALLOCATION],
    ['v1.32', false, false, BITMAP_CLUSTER_IP_ALLOCATION],
    ['kube=1.32', false, false, BITMAP_CLUSTER_IP_ALLOCATION],
    [' kube = 1.31 ', false, false, BITMAP_CLUSTER_IP_ALLOCATION],
    // A patch of 0 is allowed, and dropped.
    ['1.32.0', false, false, BITMAP_CLUSTER_IP_ALLOCATION],
  ])('--emulated-version %j: the defaults of that release', (emulatedVersion, multiCIDR, disableDualWrite, allocation) => {
    const v = accepted({ emulatedVersion });
    expect(v.enabled).toEqual({ MultiCIDRServiceAllocator: multiCIDR, DisableAllocatorDualWrite: disableDualWrite, PreferSameTrafficDistribution: false });
    expect(v.allocation).toEqual(allocation);
    expect(v.emulatedVersion).toBe(/1\.3\d/.exec(emulatedVersion)?.[0]);
  });
});

describe('parseClusterIPFeatureGates: --feature-gates', () => {
  it.each<[string, boolean, boolean, { allocator: string; dualWrite: boolean }]>([
    ['DisableAllocatorDualWrite=true', true, true, { allocator: 'ipaddress', dualWrite: false }],
    ['MultiCIDRServiceAllocator=false', false, false, { allocator: 'bitmap', dualWrite: false }],
    // The bitmap has only the bitmap to write: DisableAllocatorDualWrite changes nothing there.
    ['MultiCIDRServiceAllocator=false,DisableAllocatorDualWrite=true', false, true, { allocator: 'bitmap', dualWrite: false }],
    // Go's strconv.ParseBool spellings, spaces around key and value, empty pairs, the kube: prefix.
    [' DisableAllocatorDualWrite = T ,,', true, true, { allocator: 'ipaddress', dualWrite: false }],
    ['kube:DisableAllocatorDualWrite=1', true, true, { allocator: 'ipaddress', dualWrite: false }],
    ['MultiCIDRServiceAllocator=False', false, false, { allocator: 'bitmap', dualWrite: false }],
    // A later value of one gate replaces the earlier, as in upstream's map.
    ['DisableAllocatorDualWrite=true,DisableAllocatorDualWrite=0', true, false, { allocator: 'ipaddress', dualWrite: true }],
    // AllBeta turns on the beta gates that are not set by name, whatever the order.
    ['AllBeta=true', true, true, { allocator: 'ipaddress', dualWrite: false }],
    ['DisableAllocatorDualWrite=false,AllBeta=true', true, false, { allocator: 'ipaddress', dualWrite: true }],
    ['AllBeta=true,DisableAllocatorDualWrite=false', true, false, { allocator: 'ipaddress', dualWrite: true }],
    // At 1.33 neither allocator gate is alpha (PreferSameTrafficDistribution is: see below).
    ['AllAlpha=true', true, false, { allocator: 'ipaddress', dualWrite: true }],
  ])('%j', (featureGates, multiCIDR, disableDualWrite, allocation) => {
    const v = accepted({ featureGates });
    expect(v.enabled).toEqual({ MultiCIDRServiceAllocator: multiCIDR, DisableAllocatorDualWrite: disableDualWrite, PreferSameTrafficDistribution: featureGates === 'AllAlpha=true' });
    expect(v.allocation).toEqual(allocation);
  });

  it('the gates at the emulated version: AllAlpha and AllBeta follow each gate\'s stage there', () => {
    // 1.31: MultiCIDRServiceAllocator beta, DisableAllocatorDualWrite alpha.
    expect(accepted({ emulatedVersion: '1.31', featureGates: 'AllBeta=true' }).enabled).toEqual({ MultiCIDRServiceAllocator: true, DisableAllocatorDualWrite: false, PreferSameTrafficDistribution: false });
    expect(accepted({ emulatedVersion: '1.31', featureGates: 'AllAlpha=true' }).enabled).toEqual({ MultiCIDRServiceAllocator: false, DisableAllocatorDualWrite: true, PreferSameTrafficDistribution: false });
    expect(accepted({ emulatedVersion: '1.32', featureGates: 'MultiCIDRServiceAllocator=true' }).allocation).toEqual(DEFAULT_CLUSTER_IP_ALLOCATION);
  });

  it("warns as kube-apiserver logs when a GA gate is set by hand (MultiCIDRServiceAllocator is GA in 1.33, beta before)", () => {
    expect(accepted({ featureGates: 'MultiCIDRServiceAllocator=false' }).warnings).toEqual([
      'Setting GA feature gate MultiCIDRServiceAllocator=false. It will be removed in a future release.',
    ]);
    expect(accepted({ featureGates: 'MultiCIDRServiceAllocator=true' }).warnings).toEqual([
      'Setting GA feature gate MultiCIDRServiceAllocator=true. It will be removed in a future release.',
    ]);
    expect(accepted({ emulatedVersion: '1.32', featureGates: 'MultiCIDRServiceAllocator=false,DisableAllocatorDualWrite=true' }).warnings).toEqual([]);
  });

  it.each<[FeatureGateFlags, string]>([
    [{ featureGates: 'MultiCIDRServiceAllocator' }, 'missing bool value for MultiCIDRServiceAllocator'],
    [{ featureGates: ' MultiCIDRServiceAllocator ,DisableAllocatorDualWrite=true' }, 'missing bool value for MultiCIDRServiceAllocator'],
    [
      { featureGates: 'MultiCIDRServiceAllocator=yes' },
      'invalid value of MultiCIDRServiceAllocator=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
    ],
    [
      { featureGates: 'DisableAllocatorDualWrite=tRuE' },
      'invalid value of DisableAllocatorDualWrite=tRuE, err: strconv.ParseBool: parsing "tRuE": invalid syntax',
    ],
    [{ featureGates: 'DisableAllocatorDualWrite=' }, 'invalid value of DisableAllocatorDualWrite=, err: strconv.ParseBool: parsing "": invalid syntax'],
    // The pairs are read before any gate is looked up: the bad value is the error, not the unknown gate.
    [{ featureGates: 'Nope=true,MultiCIDRServiceAllocator=maybe' }, 'invalid value of MultiCIDRServiceAllocator=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax'],
    [{ featureGates: 'NFTablesProxyMode=true' }, `unrecognized feature gate: NFTablesProxyMode (${UNMODELLED_GATE_NOTE})`],
    [{ featureGates: 'kube:multiCIDRServiceAllocator=true' }, `unrecognized feature gate: multiCIDRServiceAllocator (${UNMODELLED_GATE_NOTE})`],
    [{ featureGates: 'wardle:Banana=true' }, 'component not registered: wardle'],
    [
      { featureGates: 'kube:DisableAllocatorDualWrite=true,MultiCIDRServiceAllocator=true' },
      'set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use',
    ],
  ])('refuses %j', (flags, message) => {
    const r = refusal(flags);
    expect(r).toEqual({ flag: '--feature-gates', message, causes: [message] });
  });

  it('an unknown gate ends the walk: the errors found before it, then it, aggregated as upstream prints them', () => {
    // Nothing is refused before the unknown gate here, so it is alone.
    expect(refusal({ featureGates: 'DisableAllocatorDualWrite=true,Banana=true,AlsoNot=true' }).causes).toEqual([
      `unrecognized feature gate: Banana (${UNMODELLED_GATE_NOTE})`,
    ]);
  });
});

describe('parseClusterIPFeatureGates: --emulated-version', () => {
  it.each<[string, string]>([
    // effectiveVersion.Validate: a v1.33 binary emulates 1.31 to 1.33 (binary - 3 is 1.30, below
    // 1.31, the first release that had emulation).
    ['1.30', 'emulation version 1.30 is not between [1.31, 1.33.0]'],
    ['1.34', 'emulation version 1.34 is not between [1.31, 1.33.0]'],
    ['2.0', 'emulation version 2.0 is not between [1.31, 1.33.0]'],
    ['1.33.1', 'patch version not allowed, got: kube=1.33.1'],
    ['kube=1.32.3-rc.1', 'patch version not allowed, got: kube=1.32.3-rc.1'],
    ['1.32,kube=1.31', 'duplicate version flag, kube=1.32 and kube=1.31'],
    ['wardle=1.2', 'component not registered: wardle'],
    ['banana', 'could not parse "banana" as version'],
    ['1', 'illegal version string "1"'],
    ['01.32', 'illegal zero-prefixed version component "01" in "01.32"'],
    ['1.32,', 'could not parse "" as version'],
    [
      '1.99999999999999999999',
      'illegal non-numeric version component "99999999999999999999" in "1.99999999999999999999": strconv.ParseUint: parsing "99999999999999999999": value out of range',
    ],
  ])('refuses %j', (emulatedVersion, message) => {
    expect(refusal({ emulatedVersion })).toEqual({ flag: '--emulated-version', message, causes: [message] });
  });

  it("reads a generic version as upstream's version.Parse does: text after the numbers is ignored", () => {
    expect(accepted({ emulatedVersion: '1.32foo' }).emulatedVersion).toBe('1.32');
    expect(accepted({ emulatedVersion: '1.032' }).emulatedVersion).toBe('1.32');
  });

  it('sets the emulated version before the gates, and checks its range after them (registry Set, then Validate)', () => {
    // 1.30 is below the floor; the gate error, found while setting the gates at 1.30, comes first:
    // DisableAllocatorDualWrite did not exist before 1.31.
    expect(refusal({ emulatedVersion: '1.30', featureGates: 'DisableAllocatorDualWrite=true' })).toEqual({
      flag: '--feature-gates',
      message: 'cannot set feature gate DisableAllocatorDualWrite to true, feature is PreAlpha at emulated version 1.30',
      causes: ['cannot set feature gate DisableAllocatorDualWrite to true, feature is PreAlpha at emulated version 1.30'],
    });
    // Several refused gates come as kube-apiserver aggregates them.
    const both = refusal({ emulatedVersion: '1.26', featureGates: 'MultiCIDRServiceAllocator=true,DisableAllocatorDualWrite=false' });
    expect(both.causes).toEqual([
      'cannot set feature gate MultiCIDRServiceAllocator to true, feature is PreAlpha at emulated version 1.26',
      'cannot set feature gate DisableAllocatorDualWrite to false, feature is PreAlpha at emulated version 1.26',
    ]);
    expect(both.message).toBe(`[${both.causes.join(', ')}]`);
    // A bad emulated version is refused before the gates are read.
    expect(refusal({ emulatedVersion: '1.33.2', featureGates: 'Banana=true' }).flag).toBe('--emulated-version');
  });
});

describe('parseClusterIPFeatureGates: PreferSameTrafficDistribution', () => {
  // pkg/features/kube_features.go (v1.33): alpha from 1.33, off by default; unknown before.
  it('is off by default, set by name or by AllAlpha at 1.33', () => {
    expect(accepted({}).enabled.PreferSameTrafficDistribution).toBe(false);
    expect(accepted({ featureGates: 'PreferSameTrafficDistribution=true' }).enabled.PreferSameTrafficDistribution).toBe(true);
    expect(accepted({ featureGates: 'AllAlpha=true' }).enabled.PreferSameTrafficDistribution).toBe(true);
    expect(accepted({ featureGates: 'AllAlpha=true,PreferSameTrafficDistribution=false' }).enabled.PreferSameTrafficDistribution).toBe(false);
    // It does not choose the allocator.
    expect(accepted({ featureGates: 'PreferSameTrafficDistribution=true' }).allocation).toEqual(DEFAULT_CLUSTER_IP_ALLOCATION);
  });

  it('is pre-alpha at an emulated 1.32: setting it is refused, AllAlpha leaves it off', () => {
    const message = 'cannot set feature gate PreferSameTrafficDistribution to true, feature is PreAlpha at emulated version 1.32';
    expect(refusal({ emulatedVersion: '1.32', featureGates: 'PreferSameTrafficDistribution=true' })).toEqual({ flag: '--feature-gates', message, causes: [message] });
    expect(accepted({ emulatedVersion: '1.32', featureGates: 'AllAlpha=true' }).enabled.PreferSameTrafficDistribution).toBe(false);
  });
});
