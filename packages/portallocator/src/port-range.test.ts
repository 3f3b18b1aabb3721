// upstream: staging/src/k8s.io/apimachinery/pkg/util/net/port_range_test.go and the
// portallocator's calculateRangeOffset test.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { calculatePortRangeOffset, formatPortRange, parsePortRange, portRangeContains } from './port-range.js';

function parse(text: string): string {
  const r = parsePortRange(text);
  return r.ok ? `${r.value.base}+${r.value.size}` : `${r.error._tag}: ${r.error.message}`;
}

describe('parsePortRange', () => {
  it.each([
    ['', '0+0'],
    ['  ', '0+0'],
    ['100-200', '100+101'],
    [' 100-200 ', '100+101'],
    ['0-0', '0+1'],
    ['65535-65535', '65535+1'],
    ['30000-32767', '30000+2768'],
    ['8080', '8080+1'],
    ['+80', '80+1'],
    ['65536', 'ErrPortRange: the port range should between 0 and 65535'],
    ['200-100', 'ErrPortRange: end port cannot be less than start port: 200-100'],
    ['100-65536', 'ErrPortRange: the port range cannot be greater than 65535: 100-65536'],
    ['65536-65537', 'ErrPortRange: the port range cannot be greater than 65535: 65536-65537'],
    ['abc', 'ErrPortRange: unable to parse port range: abc: strconv.Atoi: parsing "abc": invalid syntax, expected hyphen in port range or a single port number'],
    ['-100', 'ErrPortRange: unable to parse port range: -100: strconv.Atoi: parsing "": invalid syntax'],
    ['100-', 'ErrPortRange: unable to parse port range: 100-: strconv.Atoi: parsing "": invalid syntax'],
    ['1-2-3', 'ErrPortRange: unable to parse port range: 1-2-3: strconv.Atoi: parsing "2-3": invalid syntax'],
    ['100--5', 'ErrPortRange: end port cannot be less than start port: 100--5'],
    ['99999999999999999999', 'ErrPortRange: unable to parse port range: 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range, expected hyphen in port range or a single port number'],
  ])('%j -> %s', (text, expected) => {
    expect(parse(text)).toBe(expected);
  });
});

describe('formatPortRange and contains', () => {
  it('prints base-last, a single port as p-p, and nothing for an empty range', () => {
    expect(formatPortRange({ base: 30000, size: 2768 })).toBe('30000-32767');
    expect(formatPortRange({ base: 80, size: 1 })).toBe('80-80');
    expect(formatPortRange({ base: 0, size: 0 })).toBe('');
  });
  it('contains its ends and nothing else', () => {
    const r = { base: 10000, size: 201 };
    expect([9999, 10000, 10200, 10201].map((p) => portRangeContains(r, p))).toEqual([false, true, true, false]);
    expect(portRangeContains({ base: 0, size: 0 }, 0)).toBe(false);
  });
});

describe('static band', () => {
  it.each([
    [2768, 86],
    [201, 16],
    [16, 0],
    [17, 16],
    [512, 16],
    [1024, 32],
    [4096, 128],
    [65536, 128],
  ])('size %i -> offset %i', (size, offset) => {
    expect(calculatePortRangeOffset({ base: 1, size })).toBe(offset);
  });
});

test.prop([fc.integer({ min: 0, max: 65535 }), fc.integer({ min: 0, max: 65535 })])(
  'a range prints as it parses: parse(format(r)) gives r back',
  (a, b) => {
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    const text = `${lo}-${hi}`;
    const r = parsePortRange(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toEqual({ base: lo, size: hi - lo + 1 });
    expect(formatPortRange(r.value)).toBe(text);
  },
);
