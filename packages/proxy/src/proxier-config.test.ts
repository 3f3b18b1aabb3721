// The settings both backends' proxiers take: defaults, the two ways a node IP is taken, and
// field errors pushed in the order the checks are called (the backends' aggregate messages
// depend on it; their own tests pin those messages).
import { renderAggregate } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { checkBooleanSetting, checkNodePortAddresses, commonProxierConfig, proxierOptionsInput } from './proxier-config.js';

describe('commonProxierConfig', () => {
  it('fills the defaults: IPv4, no local detector, bit 14 written as Go %#08x, the first non-loopback node address', () => {
    const { input, errors } = proxierOptionsInput({ nodeName: 'n', nodeIPs: ['127.0.0.1', '2001:db8::1', '192.168.0.10'] });
    expect(commonProxierConfig(input, errors, 'as-given')).toEqual({
      nodeName: 'n',
      nodeIPs: ['127.0.0.1', '2001:db8::1', '192.168.0.10'],
      nodeIP: '192.168.0.10',
      family: 4,
      localDetector: { kind: 'none' },
      masqueradeBit: 14,
      masqueradeMark: '0x00004000',
      masqueradeAll: false,
      nodePortAddresses: [],
      topologyLabels: {},
      preferSameTrafficDistribution: false,
    });
    expect(errors).toEqual([]);
  });

  it('keeps a node IP as written (as-given) or checks its family and writes it canonically (of-family)', () => {
    const given = proxierOptionsInput({ nodeName: 'n', nodeIP: '2001:DB8::0:1' });
    expect(commonProxierConfig(given.input, given.errors, 'as-given').nodeIP).toBe('2001:DB8::0:1');
    expect(given.errors).toEqual([]);
    const checked = proxierOptionsInput({ nodeName: 'n', nodeIP: '2001:DB8::0:1', family: 6 });
    expect(commonProxierConfig(checked.input, checked.errors, 'of-family').nodeIP).toBe('2001:db8::1');
    const wrong = proxierOptionsInput({ nodeName: 'n', nodeIP: '2001:db8::1' });
    commonProxierConfig(wrong.input, wrong.errors, 'of-family');
    expect(renderAggregate(wrong.errors)).toBe('nodeIP: Invalid value: "2001:db8::1": must be an IPv4 address for an IPv4 proxier');
  });

  it('pushes its field errors in the order of the checks, after what the caller found first', () => {
    const { input, errors } = proxierOptionsInput({ nodePortAddresses: ['x'], masqueradeAll: 'yes', masqueradeBit: 32, nodeName: 1 });
    commonProxierConfig(input, errors, 'as-given');
    expect(renderAggregate(errors)).toBe(
      '[nodeName: Required value: must be a string, masqueradeBit: Invalid value: 32: must be within the range [0, 31], masqueradeAll: Invalid value: "yes": must be true or false, nodePortAddresses: Invalid value: []string{"x"}: must be a valid IP block]',
    );
  });

  it('takes the node\'s topology labels (string values) and the PreferSameTrafficDistribution gate', () => {
    const good = proxierOptionsInput({ nodeName: 'n', topologyLabels: { 'topology.kubernetes.io/zone': 'z1' }, preferSameTrafficDistribution: true });
    const config = commonProxierConfig(good.input, good.errors, 'of-family');
    expect(good.errors).toEqual([]);
    expect([config.topologyLabels, config.preferSameTrafficDistribution]).toEqual([{ 'topology.kubernetes.io/zone': 'z1' }, true]);
    const bad = proxierOptionsInput({ nodeName: 'n', topologyLabels: { zone: 1 }, preferSameTrafficDistribution: 'on', masqueradeAll: 2 });
    commonProxierConfig(bad.input, bad.errors, 'of-family');
    expect(bad.errors.map((e) => e.field)).toEqual(['topologyLabels', 'preferSameTrafficDistribution', 'masqueradeAll']);
    const list = proxierOptionsInput({ nodeName: 'n', topologyLabels: ['zone'] });
    commonProxierConfig(list.input, list.errors, 'of-family');
    expect(renderAggregate(list.errors)).toContain('topologyLabels: Invalid value:');
  });

  it('refuses options that are not an object, and checks the pieces on their own', () => {
    const { errors } = proxierOptionsInput(null);
    expect(renderAggregate(errors)).toBe('options: Invalid value: "null": must be an object');
    const piece = proxierOptionsInput({ flag: 1, nodePortAddresses: ['10.0.0.0/8', '2001:db8::/64'] });
    expect(checkBooleanSetting(piece.input, 'flag', true, piece.errors)).toBe(true);
    expect(checkNodePortAddresses(piece.input, piece.errors)).toEqual(['10.0.0.0/8', '2001:db8::/64']);
    expect(renderAggregate(piece.errors)).toBe('flag: Invalid value: 1: must be true or false');
  });
});
