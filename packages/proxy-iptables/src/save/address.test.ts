import { describe, expect, test } from 'vitest';
import { formatAddress, formatMaskedAddress, parseIPv4, parseIPv6, parseMaskedAddress } from './address.js';

function v6(text: string): string {
  const value = parseIPv6(text);
  if (value === undefined) throw new Error(`bad test address ${text}`);
  return formatAddress(value, 6);
}

describe('addresses as iptables reads and prints them', () => {
  // The expected strings are what ip6tables-save printed (fixtures/kube-proxy.v6.*).
  test.each([
    ['fd00:10:96::0001', 'fd00:10:96::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['::ffff:10.0.0.1', '::ffff:10.0.0.1'],
    ['::10.0.0.1', '::10.0.0.1'],
    ['1:0:0:1:0:0:0:1', '1:0:0:1::1'],
    ['1:0:0:0:1:0:0:1', '1::1:0:0:1'],
    ['1:2:3:4:5:6:7:0', '1:2:3:4:5:6:7:0'],
    ['0:0:1:0:0:1:0:0', '::1:0:0:1:0:0'],
    ['::', '::'],
    ['::1', '::1'],
    ['1::', '1::'],
    ['ffff::', 'ffff::'],
  ])('IPv6 %s prints as %s', (text, printed) => {
    expect(v6(text)).toBe(printed);
  });

  test('IPv4 is strict dotted decimal', () => {
    expect(parseIPv4('10.0.0.1')).toBe(0x0a00_0001n);
    for (const bad of ['10.0.0', '10.0.0.256', '010.0.0.1', '10.0.0.1.2', 'a.b.c.d', '']) {
      expect(parseIPv4(bad)).toBeUndefined();
    }
  });

  test('IPv6 refuses malformed text', () => {
    for (const bad of ['1:2:3:4:5:6:7', '1::2::3', '12345::', 'g::', '1:2:3:4:5:6:7:8:9', '::1.2.3', ':1::']) {
      expect(parseIPv6(bad)).toBeUndefined();
    }
  });

  test('no prefix means a host, and host bits are cleared', () => {
    const show = (text: string, family: 4 | 6): string => {
      const parsed = parseMaskedAddress(text, family);
      return parsed === undefined ? 'refused' : formatMaskedAddress(parsed, family);
    };
    expect(show('10.244.1.5', 4)).toBe('10.244.1.5/32');
    expect(show('5.6.7.8/24', 4)).toBe('5.6.7.0/24');
    expect(show('10.1.2.3/0', 4)).toBe('0.0.0.0/0');
    expect(show('2001:db8::1/64', 6)).toBe('2001:db8::/64');
    expect(show('fd00::5', 6)).toBe('fd00::5/128');
    expect(show('10.0.0.1/33', 4)).toBe('refused');
    expect(show('10.0.0.1/255.0.0.0', 4)).toBe('refused');
    expect(show('fd00::5', 4)).toBe('refused');
    expect(show('10.0.0.1', 6)).toBe('refused');
  });
});
