// upstream: pkg/kubelet/network/dns/dns.go GetPodDNS and dns_test.go (TestGetPodDNS...); the
// file layout is containerd CRI's (search, nameserver, options).
import { describe, expect, it } from 'vitest';
import type { Result } from '@kubesvc/api-types';
import type { ErrDiscoveryInput } from '../env/service-env.js';
import { resolvConf as resolvConfResult } from './resolv-conf.js';

/** The value of a Result that the test's well-formed input must give. */
function unwrap<T>(r: Result<T, ErrDiscoveryInput>): T {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}
const resolvConf = (...args: Parameters<typeof resolvConfResult>) => unwrap(resolvConfResult(...args));

const host = { nameservers: ['192.0.2.53'], searches: ['corp.example'], options: ['timeout:2'] };

describe('resolvConf', () => {
  it('ClusterFirst: the namespace, svc and zone search paths, the cluster DNS, ndots:5', () => {
    expect(resolvConf({ namespace: 'shop', dnsServiceIP: '10.96.0.10' })).toBe(
      'search shop.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n',
    );
  });

  it('ClusterFirst keeps the host’s search paths after the cluster ones', () => {
    expect(resolvConf({ namespace: 'shop', dnsServiceIP: '10.96.0.10', zone: 'k8s.test', dnsPolicy: 'ClusterFirstWithHostNet', host })).toBe(
      'search shop.svc.k8s.test svc.k8s.test k8s.test corp.example\nnameserver 10.96.0.10\noptions ndots:5\n',
    );
  });

  it('Default copies the node’s resolv.conf, as does ClusterFirst on the host network', () => {
    const want = 'search corp.example\nnameserver 192.0.2.53\noptions timeout:2\n';
    expect(resolvConf({ namespace: 'shop', dnsServiceIP: '10.96.0.10', dnsPolicy: 'Default', host })).toBe(want);
    expect(resolvConf({ namespace: 'shop', dnsServiceIP: '10.96.0.10', hostNetwork: true, host })).toBe(want);
  });

  it('None takes everything from dnsConfig; dnsConfig options merge by name for the others', () => {
    const dnsConfig = { nameservers: ['1.1.1.1'], searches: ['a.example'], options: ['ndots:2', 'edns0'] };
    expect(resolvConf({ namespace: 'shop', dnsServiceIP: '10.96.0.10', dnsPolicy: 'None', dnsConfig })).toBe(
      'search a.example\nnameserver 1.1.1.1\noptions ndots:2 edns0\n',
    );
    expect(resolvConf({ namespace: 'shop', dnsServiceIP: '10.96.0.10', dnsConfig })).toBe(
      'search shop.svc.cluster.local svc.cluster.local cluster.local a.example\nnameserver 10.96.0.10\nnameserver 1.1.1.1\noptions ndots:2 edns0\n',
    );
    expect(resolvConf({ namespace: 'shop', dnsServiceIP: '10.96.0.10', dnsPolicy: 'None' })).toBe('');
  });
});
