// The one parser of the Service networking flags, against kube-apiserver's own messages.
// upstream: cmd/kube-apiserver/app/options/completion.go (getServiceIPAndRanges),
//           cmd/kube-apiserver/app/options/validation.go (validateClusterIPFlags) and their
//           tests, pkg/controlplane/apiserver/options/options.go (ServiceIPRange),
//           staging/src/k8s.io/apimachinery/pkg/util/net/port_range_test.go
import { describe, expect, it } from 'vitest';
import { formatCIDR } from '../net/cidr.js';
import { formatIP } from '../net/ip.js';
import { parseServiceNetworking, serviceNetworkingFlags, type ServiceNetworkingFlags } from './service-networking.js';

function refusal(flags: ServiceNetworkingFlags): string {
  const r = parseServiceNetworking(flags);
  if (r.ok) throw new Error(`accepted ${JSON.stringify(flags)}`);
  expect(r.error._tag).toBe('ErrServiceNetworking');
  return r.error.message;
}

describe('parseServiceNetworking', () => {
  it("defaults: upstream's 10.0.0.0/24 and 10.0.0.1, 30000-32767, cluster.local", () => {
    const r = parseServiceNetworking();
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.serviceCIDRs.map(formatCIDR)).toEqual(['10.0.0.0/24']);
    expect(r.value.families).toEqual(['IPv4']);
    expect(formatIP(r.value.apiServerServiceIP)).toBe('10.0.0.1');
    expect(r.value.nodePortRange).toEqual({ base: 30000, size: 2768 });
    expect(r.value.clusterDomain).toBe('cluster.local');
    expect(r.value.secondary).toBeUndefined();
    expect(parseServiceNetworking({ serviceClusterIPRange: '' })).toEqual(r);
  });

  it('dual-stack: primary first, families in order, the service IP from the primary', () => {
    const r = parseServiceNetworking({ serviceClusterIPRange: 'fd00:10:96::/112,10.96.0.0/12', serviceNodePortRange: '30000-30999' });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.serviceCIDRs.map(formatCIDR)).toEqual(['fd00:10:96::/112', '10.96.0.0/12']);
    expect(r.value.families).toEqual(['IPv6', 'IPv4']);
    expect(formatIP(r.value.apiServerServiceIP)).toBe('fd00:10:96::1');
    expect(r.value.secondary && formatCIDR(r.value.secondary)).toBe('10.96.0.0/12');
  });

  it('reads CIDRs as ParseCIDRSloppy does: leading zeros, host bits cleared', () => {
    const r = parseServiceNetworking({ serviceClusterIPRange: '010.096.0.5/16' });
    expect(r.ok && formatCIDR(r.value.primary)).toBe('10.96.0.0/16');
  });

  it.each<[ServiceNetworkingFlags, string]>([
    // getServiceIPAndRanges
    [{ serviceClusterIPRange: 'bad' }, 'service-cluster-ip-range[0] is not a valid cidr'],
    [{ serviceClusterIPRange: '10.0.0.0/33' }, 'service-cluster-ip-range[0] is not a valid cidr'],
    // strings.Split with nothing trimmed: a space is part of the entry
    [{ serviceClusterIPRange: ' 10.0.0.0/24' }, 'service-cluster-ip-range[0] is not a valid cidr'],
    [{ serviceClusterIPRange: '10.0.0.0/30' }, 'error determining service IP ranges for primary service cidr: the service cluster IP range must be at least 8 IP addresses'],
    [{ serviceClusterIPRange: 'fd00::/126' }, 'error determining service IP ranges for primary service cidr: the service cluster IP range must be at least 8 IP addresses'],
    [{ serviceClusterIPRange: '0.0.0.0/0' }, 'error determining service IP ranges for primary service cidr: the service cluster IP range must be at least 8 IP addresses'],
    [{ serviceClusterIPRange: '10.0.0.0/24,bad' }, 'service-cluster-ip-range[1] is not an ip net'],
    [{ serviceClusterIPRange: '10.0.0.0/24,' }, 'service-cluster-ip-range[1] is not an ip net'],
    // validateClusterIPFlags
    [{ serviceClusterIPRange: '10.0.0.0/24,fd00::/112,10.1.0.0/24' }, '--service-cluster-ip-range must not contain more than two entries'],
    [{ serviceClusterIPRange: '10.0.0.0/24,10.1.0.0/24' }, '--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family'],
    // kubesvc allocates from the secondary too: ServiceIPRange's minimum, with its text
    [{ serviceClusterIPRange: '10.0.0.0/24,fd00::/126' }, 'the service cluster IP range must be at least 8 IP addresses'],
    // PortRange.Set (ParsePortRange), before the CIDRs: the flag parser runs first
    [{ serviceClusterIPRange: 'bad', serviceNodePortRange: 'x' }, 'unable to parse port range: x: strconv.Atoi: parsing "x": invalid syntax, expected hyphen in port range or a single port number'],
    [{ serviceNodePortRange: '30000-70000' }, 'the port range cannot be greater than 65535: 30000-70000'],
    [{ serviceNodePortRange: '32767-30000' }, 'end port cannot be less than start port: 32767-30000'],
    [{ serviceNodePortRange: '70000' }, 'the port range should between 0 and 65535'],
  ])('refuses %j: %s', (flags, message) => {
    expect(refusal(flags)).toBe(message);
  });

  it('answers a JavaScript caller passing anything with an error value', () => {
    for (const flags of [null, 7, { serviceClusterIPRange: 7 }, { clusterDomain: [] }, { serviceNodePortRange: {} }]) {
      const r = parseServiceNetworking(flags as unknown as ServiceNetworkingFlags);
      expect(r.ok).toBe(false);
    }
  });

  it('names the flag it refuses', () => {
    const r = parseServiceNetworking({ serviceNodePortRange: 'x' });
    expect(!r.ok && r.error.flag).toBe('--service-node-port-range');
    const d = parseServiceNetworking({ clusterDomain: 'Not_A_Domain' });
    expect(!d.ok && d.error.flag).toBe('--cluster-domain');
  });

  it('prints flags that read back: formatCIDR of each CIDR, PortRange.String()', () => {
    const r = parseServiceNetworking({ serviceClusterIPRange: '10.96.0.5/12,FD00::0/108', serviceNodePortRange: ' 30000-32767 ', clusterDomain: 'Example.ORG.' });
    if (!r.ok) throw new Error(r.error.message);
    expect(serviceNetworkingFlags(r.value)).toEqual({ serviceClusterIPRange: '10.96.0.0/12,fd00::/108', serviceNodePortRange: '30000-32767', clusterDomain: 'example.org' });
  });
});
