// NewNodePortAddresses and GetNodeIPs over a node's address list (upstream reads the
// interfaces), and the two forms of IsZeroCIDR the backends follow.
import { formatIP } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { nodePortAddresses, nodePortAddressesContainIPv4Loopback, nodePortIPs } from './node-port-addresses.js';

const ips = (cidrs: readonly string[], family: 4 | 6, addresses: readonly string[]): string[] =>
  nodePortIPs(nodePortAddresses(cidrs, family), addresses).map(formatIP);

describe('nodePortAddresses', () => {
  it('matches every address when no CIDR is of the family', () => {
    expect(nodePortAddresses([], 4).matchAll).toBe(true);
    expect(nodePortAddresses(['2001:db8::/64'], 4).matchAll).toBe(true);
    expect(nodePortAddresses(['10.0.0.0/8'], 4).matchAll).toBe(false);
  });

  it('tells the zero CIDR by its text, or by its prefix length', () => {
    expect(nodePortAddresses(['10.0.0.0/8', '0.0.0.0/0'], 4).matchAll).toBe(true);
    expect(nodePortAddresses(['10.0.0.0/8', '10.0.0.0/0'], 4, 'text').matchAll).toBe(false);
    expect(nodePortAddresses(['10.0.0.0/8', '10.0.0.0/0'], 4, 'prefix').matchAll).toBe(true);
    expect(nodePortAddresses(['10.0.0.0/8', '10.0.0.0/0'], 4, 'prefix').cidrs).toHaveLength(1);
  });

  it('says whether 127.0.0.1 is admitted (IPv4 only)', () => {
    expect(nodePortAddressesContainIPv4Loopback([], 4)).toBe(true);
    expect(nodePortAddressesContainIPv4Loopback(['127.0.0.0/8'], 4)).toBe(true);
    expect(nodePortAddressesContainIPv4Loopback(['10.0.0.0/8'], 4)).toBe(false);
    expect(nodePortAddressesContainIPv4Loopback([], 6)).toBe(false);
  });
});

describe('nodePortIPs', () => {
  const node = ['10.0.0.1', '127.0.0.1', '192.168.1.1', '2001:db8::1', '10.0.0.1'];
  it('gives the node addresses in the CIDRs, each once, in the order of the CIDRs and then of the addresses', () => {
    expect(ips(['192.168.0.0/16', '10.0.0.0/8'], 4, node)).toEqual(['192.168.1.1', '10.0.0.1']);
    expect(ips(['0.0.0.0/0'], 4, node)).toEqual(['10.0.0.1', '127.0.0.1', '192.168.1.1']);
    expect(ips(['2001:db8::/64'], 6, node)).toEqual(['2001:db8::1']);
  });
});
