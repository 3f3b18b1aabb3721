// inet_pton's reading of an address, with the values written out by hand from the address's
// bytes (glibc inet_pton(3): AF_INET takes four decimal octets only, AF_INET6 keeps an
// IPv4-mapped address as its 128 bits, ::ffff:0:0/96 plus the IPv4 value).
import { describe, expect, it } from 'vitest';
import { parseAddress, parseIPv4, parseIPv6 } from './address.js';

describe('inet_pton(AF_INET)', () => {
  it('reads a dotted quad as its 32-bit value', () => {
    expect(parseIPv4('10.0.0.2')).toBe(0x0a000002n);
    expect(parseIPv4('255.255.255.255')).toBe(0xffffffffn);
  });

  it('refuses an IPv4-mapped IPv6 text, which only AF_INET6 reads', () => {
    expect(parseIPv4('::ffff:10.0.0.2')).toBeUndefined();
  });

  it('refuses leading zeros, IPv6 and words', () => {
    expect(parseIPv4('010.0.0.2')).toBeUndefined();
    expect(parseIPv4('fd00::2')).toBeUndefined();
    expect(parseIPv4('localhost')).toBeUndefined();
  });
});

describe('inet_pton(AF_INET6)', () => {
  it('reads an IPv6 address as its 128-bit value', () => {
    expect(parseIPv6('2001:db8::1')).toBe(0x20010db8000000000000000000000001n);
    expect(parseIPv6('fd00::2')).toBe(0xfd000000000000000000000000000002n);
  });

  it('keeps an IPv4-mapped address as 128 bits: ::ffff:0:0/96 and the IPv4 value', () => {
    expect(parseIPv6('::ffff:10.0.0.2')).toBe(0xffff0a000002n);
  });

  it('refuses a dotted quad without a colon, and text that is not an address', () => {
    expect(parseIPv6('10.0.0.2')).toBeUndefined();
    expect(parseIPv6('fd00::g')).toBeUndefined();
  });
});

describe('parseAddress', () => {
  it('reads by the family asked for', () => {
    expect(parseAddress('10.0.0.2', 4)).toBe(0x0a000002n);
    expect(parseAddress('10.0.0.2', 6)).toBeUndefined();
    expect(parseAddress('::ffff:10.0.0.2', 4)).toBeUndefined();
    expect(parseAddress('::ffff:10.0.0.2', 6)).toBe(0xffff0a000002n);
  });
});
