// kube-apiserver's checks on the flags the bootstrap controller uses, with upstream's text.
// upstream: cmd/kube-apiserver/app/options/validation.go, pkg/controlplane/controller.go
// (NewBootstrapController), pkg/controlplane/services.go, and their tests.
import { BITMAP_CLUSTER_IP_ALLOCATION, DEFAULT_CLUSTER_IP_ALLOCATION, formatCIDR, formatIP, parseServiceNetworking } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { bootstrapConfig, type BootstrapOptions } from './config.js';

function messages(options: BootstrapOptions): string[] {
  const result = bootstrapConfig(options);
  if (result.ok) return [];
  // message is the causes as kube-apiserver aggregates them: one alone, several as [a, b].
  const causes = result.error.causes.map((e) => e.message);
  expect(result.error.message).toBe(causes.length === 1 ? causes[0] : `[${causes.join(', ')}]`);
  expect(result.error._tag).toBe('ErrBootstrapConfig');
  return causes;
}

describe('bootstrapConfig', () => {
  it('defaults: 10.0.0.0/24 and 10.0.0.1, 6443, 443, ClusterIP, 30000-32767, lease, 10 s / 1 min / 3 min, TTL 15 s', () => {
    const result = bootstrapConfig({ publicIP: '192.168.0.10' });
    if (!result.ok) throw new Error(result.error.message);
    const c = result.value;
    expect(c.serviceCIDRs.map(formatCIDR)).toEqual(['10.0.0.0/24']);
    expect(formatIP(c.serviceIP)).toBe('10.0.0.1');
    expect(formatIP(c.publicIP)).toBe('192.168.0.10');
    expect([c.securePort, c.servicePort, c.kubernetesServiceNodePort]).toEqual([6443, 443, 0]);
    expect(c.nodePortRange).toEqual({ base: 30000, size: 2768 });
    expect(c.endpointReconcilerType).toBe('lease');
    expect(c.masterCount).toBe(1);
    expect([c.endpointIntervalMs, c.systemNamespacesIntervalMs, c.repairIntervalMs, c.leaseTtlMs]).toEqual([10_000, 60_000, 180_000, 15_000]);
  });

  it.each([
    ['192.168.1.0/24', '192.168.1.1'],
    ['10.96.0.0/12', '10.96.0.1'],
    ['10.96.0.0/29', '10.96.0.1'],
    ['10.0.0.0/24,fd00:10:96::/112', '10.0.0.1'],
  ])('the service IP of %s is %s', (range, ip) => {
    const result = bootstrapConfig({ serviceClusterIPRange: range, publicIP: '192.168.0.10' });
    expect(result.ok && formatIP(result.value.serviceIP)).toBe(ip);
  });

  it('IPv6: the family must match the public address', () => {
    const result = bootstrapConfig({ serviceClusterIPRange: '2001:db8::/112', publicIP: '2001:db8:1::10' });
    expect(result.ok && formatIP(result.value.serviceIP)).toBe('2001:db8::1');
  });

  it.each<[BootstrapOptions, string[]]>([
    // upstream: getServiceIPAndRanges wraps ServiceIPRange's refusal of the primary.
    [
      { serviceClusterIPRange: '192.168.1.0/30', publicIP: '192.168.0.10' },
      ['error determining service IP ranges for primary service cidr: the service cluster IP range must be at least 8 IP addresses'],
    ],
    [
      { serviceClusterIPRange: '10.0.0.0/11', publicIP: '192.168.0.10' },
      ['specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12'],
    ],
    [
      { serviceClusterIPRange: 'fd00::/107', publicIP: 'fd00::10' },
      ['specified --service-cluster-ip-range is too large; for 128-bit addresses, the mask must be >= 108'],
    ],
    [
      { serviceClusterIPRange: '10.0.0.0/24,10.1.0.0/24', publicIP: '192.168.0.10' },
      ['--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family'],
    ],
    [
      { serviceClusterIPRange: '10.0.0.0/24,fd00::/112,10.1.0.0/24', publicIP: '192.168.0.10' },
      ['--service-cluster-ip-range must not contain more than two entries'],
    ],
    [
      { publicIP: '192.168.0.10', kubernetesServiceNodePort: 70000 },
      [
        '--kubernetes-service-node-port 70000 must be between 0 and 65535, inclusive. If 0, the Kubernetes master service will be of type ClusterIP',
        // upstream checks Contains for any port > 0, so an out-of-range port gets both messages.
        "kubernetes service node port range 30000-32767 doesn't contain 70000",
      ],
    ],
    [{ publicIP: '192.168.0.10', kubernetesServiceNodePort: 29999 }, ["kubernetes service node port range 30000-32767 doesn't contain 29999"]],
    [
      { serviceClusterIPRange: '10.96.0.0/16', publicIP: 'fd00::10' },
      ['service IP family "10.96.0.0/16" must match public address family "fd00::10"'],
    ],
    [
      // upstream: ServerRunOptions.Validate checks the count before the cluster IP flags.
      { serviceClusterIPRange: '10.0.0.0/11', publicIP: '192.168.0.10', endpointReconcilerType: 'master-count', masterCount: 0 },
      [
        "--apiserver-count should be a positive number, but value '0' provided",
        'specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12',
      ],
    ],
  ])('refuses %j', (options, expected) => {
    expect(messages(options)).toEqual(expected);
  });

  it('takes the parsed flags as they are, and checks the value as kube-apiserver does', () => {
    const parsed = parseServiceNetworking({ serviceClusterIPRange: '10.0.0.0/11', serviceNodePortRange: '30000-30100' });
    if (!parsed.ok) throw new Error(parsed.error.message);
    // The strings are ignored when the parsed value is given.
    expect(messages({ serviceNetworking: parsed.value, serviceClusterIPRange: 'bad', publicIP: '192.168.0.10', kubernetesServiceNodePort: 30200 })).toEqual([
      'specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12',
      "kubernetes service node port range 30000-30100 doesn't contain 30200",
    ]);
    const fine = parseServiceNetworking({ serviceClusterIPRange: '10.96.0.0/16,fd00::/112' });
    if (!fine.ok) throw new Error(fine.error.message);
    const result = bootstrapConfig({ serviceNetworking: fine.value, publicIP: '192.168.0.10' });
    expect(result.ok && result.value.serviceNetworking).toBe(fine.value);
    expect(result.ok && result.value.serviceCIDRs.map(formatCIDR)).toEqual(['10.96.0.0/16', 'fd00::/112']);
  });

  it('the CIDR-size limit follows the allocator: only IPAddress objects without the dual write lift it (validateClusterIPFlags)', () => {
    const wide = (clusterIPAllocation: BootstrapOptions['clusterIPAllocation']) =>
      messages({ serviceClusterIPRange: '10.0.0.0/8,fd00::/64', publicIP: '192.168.0.10', ...(clusterIPAllocation === undefined ? {} : { clusterIPAllocation }) });
    const limited = [
      'specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12',
      'specified --service-cluster-ip-range[1] is too large; for 128-bit addresses, the mask must be >= 108',
    ];
    // v1.33's default (DisableAllocatorDualWrite off) mirrors every IP into a bitmap: limited.
    expect(wide(undefined)).toEqual(limited);
    expect(wide(DEFAULT_CLUSTER_IP_ALLOCATION)).toEqual(limited);
    expect(wide(BITMAP_CLUSTER_IP_ALLOCATION)).toEqual(limited);
    // MultiCIDRServiceAllocator and DisableAllocatorDualWrite both on: no bitmap, no limit.
    expect(wide({ allocator: 'ipaddress', dualWrite: false })).toEqual([]);
    const result = bootstrapConfig({ serviceClusterIPRange: 'fd00::/64', publicIP: 'fd00::10', clusterIPAllocation: { allocator: 'ipaddress', dualWrite: false } });
    expect(result.ok && result.value.serviceCIDRs.map(formatCIDR)).toEqual(['fd00::/64']);
  });

  it('accepts a node port inside the range and a family mismatch with the none reconciler', () => {
    expect(messages({ publicIP: '192.168.0.10', kubernetesServiceNodePort: 30443 })).toEqual([]);
    expect(messages({ serviceClusterIPRange: '10.96.0.0/16', publicIP: 'fd00::10', endpointReconcilerType: 'none' })).toEqual([]);
  });
});
