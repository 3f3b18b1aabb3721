// upstream: pkg/controlplane/services_test.go TestServiceIPRange (earlier pkg/master
// TestDefaultServiceIPRange) and the /29 minimum.
import { formatCIDR, formatIP, parseCIDR } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { serviceIPRange } from './service-ip-range.js';

function describeResult(input: string | undefined): string {
  const r = serviceIPRange(input);
  return r.ok ? `${formatCIDR(r.value.cidr)} ${formatIP(r.value.apiServerServiceIP)}` : `${r.error._tag}: ${r.error.message}`;
}

const TOO_SMALL = 'ErrServiceIPRange: the service cluster IP range must be at least 8 IP addresses';

describe('serviceIPRange', () => {
  it.each([
    [undefined, '10.0.0.0/24 10.0.0.1'],
    ['', '10.0.0.0/24 10.0.0.1'],
    ['192.168.1.0/24', '192.168.1.0/24 192.168.1.1'],
    ['10.96.0.0/16', '10.96.0.0/16 10.96.0.1'],
    ['10.96.0.0/12', '10.96.0.0/12 10.96.0.1'],
    ['2001:db8::/64', '2001:db8::/64 2001:db8::1'],
    ['10.0.0.0/29', '10.0.0.0/29 10.0.0.1'],
    ['2001:db8::/125', '2001:db8::/125 2001:db8::1'],
    ['192.168.1.0/30', TOO_SMALL],
    ['10.0.0.0/31', TOO_SMALL],
    ['10.0.0.0/32', TOO_SMALL],
    ['2001:db8::/126', TOO_SMALL],
    ['2001:db8::/128', TOO_SMALL],
    ['0.0.0.0/0', TOO_SMALL],
    ['0.0.0.0/1', TOO_SMALL],
    ['::/0', TOO_SMALL],
    ['::/1', TOO_SMALL],
    ['::/2', '::/2 ::1'],
    ['10.0.0.0/33', 'ErrServiceIPRange: invalid CIDR address: 10.0.0.0/33'],
  ] as const)('%s -> %s', (input, expected) => {
    expect(describeResult(input)).toBe(expected);
  });

  it('takes a parsed CIDR as well as a string', () => {
    const parsed = parseCIDR('172.16.0.0/20');
    if (!parsed.ok) throw new Error(parsed.error.message);
    const r = serviceIPRange(parsed.value.cidr);
    expect(r.ok && formatIP(r.value.apiServerServiceIP)).toBe('172.16.0.1');
  });
});
