// Services as the proxier sees them. upstream: pkg/proxy/iptables/proxier_test.go
// TestBuildServiceMapAddRemove, TestBuildServiceMapServiceHeadless,
// TestBuildServiceMapServiceTypeExternalName, TestLoadBalancerIngressRouteTypeProxy;
// pkg/proxy/serviceport.go (newBaseServiceInfo).
import type { ServicePort } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { isCanonicalIPv4, isExternallyAccessible, servicePortInfos, usesClusterEndpoints, usesLocalEndpoints } from './service-ports.js';
import { makeService } from './model.fixtures.js';

const port = (name: string, protocol: 'TCP' | 'UDP' | 'SCTP', p: number, nodePort: number, targetPort: number): ServicePort => ({
  name,
  protocol,
  port: p,
  nodePort,
  targetPort,
});

describe('servicePortInfos', () => {
  it('TestBuildServiceMapAddRemove: 10 service ports, one health-check port', () => {
    const services = [
      makeService('somewhere-else', 'cluster-ip', {
        type: 'ClusterIP',
        clusterIP: '172.30.55.4',
        ports: [port('something', 'UDP', 1234, 4321, 0), port('somethingelse', 'UDP', 1235, 5321, 0), port('sctpport', 'SCTP', 1236, 6321, 0)],
      }),
      makeService('somewhere-else', 'node-port', {
        type: 'NodePort',
        clusterIP: '172.30.55.10',
        ports: [port('blahblah', 'UDP', 345, 678, 0), port('moreblahblah', 'TCP', 344, 677, 0), port('muchmoreblah', 'SCTP', 343, 676, 0)],
      }),
      makeService(
        'somewhere',
        'load-balancer',
        { type: 'LoadBalancer', clusterIP: '172.30.55.11', loadBalancerIP: '1.2.3.4', ports: [port('foobar', 'UDP', 8675, 30061, 7000), port('baz', 'UDP', 8676, 30062, 7001)] },
        { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
      ),
      makeService(
        'somewhere',
        'only-local-load-balancer',
        {
          type: 'LoadBalancer',
          clusterIP: '172.30.55.12',
          loadBalancerIP: '5.6.7.8',
          ports: [port('foobar2', 'UDP', 8677, 30063, 7002), port('baz', 'UDP', 8678, 30064, 7003)],
          externalTrafficPolicy: 'Local',
          healthCheckNodePort: 345,
        },
        { loadBalancer: { ingress: [{ ip: '5.6.7.8' }] } },
      ),
    ];
    const infos = services.flatMap((s) => servicePortInfos(s, 4));
    expect(infos).toHaveLength(10);
    const withHealthCheck = infos.filter((i) => i.healthCheckNodePort !== 0);
    expect(new Set(withHealthCheck.map((i) => `${i.namespace}/${i.name}=${i.healthCheckNodePort}`))).toEqual(
      new Set(['somewhere/only-local-load-balancer=345']),
    );
    expect(infos.map((i) => i.nameString)).toContain('somewhere-else/cluster-ip:sctpport');
  });

  it('TestBuildServiceMapServiceHeadless / -TypeExternalName: skipped', () => {
    expect(servicePortInfos(makeService('somewhere-else', 'headless', { type: 'ClusterIP', clusterIP: 'None', ports: [port('rpc', 'UDP', 1234, 0, 0)] }), 4)).toEqual([]);
    expect(servicePortInfos(makeService('somewhere-else', 'headless-without-port', { type: 'ClusterIP', clusterIP: 'None' }), 4)).toEqual([]);
    expect(
      servicePortInfos(
        makeService('somewhere-else', 'external-name', {
          type: 'ExternalName',
          clusterIP: '172.30.55.4',
          externalName: 'foo2.bar.com',
          ports: [port('blah', 'UDP', 1235, 5321, 0)],
        }),
        4,
      ),
    ).toEqual([]);
  });

  it('filters addresses to the family, normalises them, and skips Proxy-mode LB IPs', () => {
    const service = makeService(
      'ns1',
      'svc1',
      {
        type: 'LoadBalancer',
        clusterIP: '172.30.0.41',
        clusterIPs: ['172.30.0.41', 'fd00:172:30::41'],
        externalIPs: ['192.168.99.11', '2001:db8::0:1', 'not-an-ip'],
        loadBalancerSourceRanges: [' 203.0.113.5/25', '2001:db8::/64'],
        ports: [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001 }],
      },
      { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { ip: '5.6.7.8', ipMode: 'Proxy' }, { ip: 'fd00::1' }, { hostname: 'lb.example' }] } },
    );
    const [v4] = servicePortInfos(service, 4);
    expect(v4?.externalIPs).toEqual(['192.168.99.11']);
    expect(v4?.loadBalancerVIPs).toEqual(['1.2.3.4']);
    expect(v4?.loadBalancerSourceRanges).toEqual(['203.0.113.0/25']);
    const [v6] = servicePortInfos(service, 6);
    expect(v6?.clusterIP).toBe('fd00:172:30::41');
    expect(v6?.externalIPs).toEqual(['2001:db8::1']);
    expect(v6?.loadBalancerVIPs).toEqual(['fd00::1']);
    expect(v6?.loadBalancerSourceRanges).toEqual(['2001:db8::/64']);
    // A single-stack IPv4 service has nothing for an IPv6 proxier.
    expect(servicePortInfos(makeService('ns1', 's', { clusterIP: '10.0.0.1', ports: [{ port: 80 }] }), 6)).toEqual([]);
  });

  it('defaults: unnamed port "ns/name", TCP, the default affinity timeout', () => {
    const [info] = servicePortInfos(makeService('ns1', 'svc1', { clusterIP: '10.0.0.1', sessionAffinity: 'ClientIP', ports: [{ port: 80 }] }), 4);
    expect(info?.nameString).toBe('ns1/svc1');
    expect(info?.protocol).toBe('tcp');
    expect(info?.stickyMaxAgeSeconds).toBe(10800);
  });

  it('Cluster endpoints are used by any externally reachable port, even with eTP Local (short-circuit)', () => {
    const [lb] = servicePortInfos(
      makeService('ns1', 'svc1', {
        type: 'NodePort',
        clusterIP: '10.0.0.1',
        externalTrafficPolicy: 'Local',
        internalTrafficPolicy: 'Local',
        ports: [{ port: 80, nodePort: 30080 }],
      }),
      4,
    );
    expect(lb !== undefined && isExternallyAccessible(lb) && usesClusterEndpoints(lb) && usesLocalEndpoints(lb)).toBe(true);
    const [internal] = servicePortInfos(makeService('ns1', 'svc2', { clusterIP: '10.0.0.2', internalTrafficPolicy: 'Local', ports: [{ port: 80 }] }), 4);
    expect(internal !== undefined && !usesClusterEndpoints(internal) && usesLocalEndpoints(internal)).toBe(true);
    // eTP Local on a ClusterIP service without external IPs has no effect.
    const [plain] = servicePortInfos(makeService('ns1', 'svc3', { clusterIP: '10.0.0.3', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] }), 4);
    expect(plain?.externalPolicyLocal).toBe(false);
  });
});

describe('isCanonicalIPv4', () => {
  // Go's net.IP.String() prints an IPv4 address as four decimal parts 0-255 without leading zeros.
  it('accepts exactly the dotted quads Go prints', () => {
    for (const text of ['10.128.0.1', '0.0.0.0', '255.255.255.255', '172.30.0.8', '1.2.3.4']) expect(isCanonicalIPv4(text), text).toBe(true);
    for (const text of ['010.0.0.1', '1.2.3.256', '1.2.3', '1.2.3.4.5', '1..2.3', '.1.2.3', '1.2.3.', '::ffff:1.2.3.4', ' 1.2.3.4', '1.2.3.4 ', '1.2.3.4/32', '', '1234.1.1.1']) {
      expect(isCanonicalIPv4(text), text).toBe(false);
    }
  });

  it('a cluster IP with leading zeros is still read as decimal (k8s.io/utils/net ParseIPSloppy) and printed as Go does', () => {
    const [info] = servicePortInfos(makeService('ns1', 'svc', { clusterIP: '010.000.000.012', ports: [{ port: 80 }] }), 4);
    expect(info?.clusterIP).toBe('10.0.0.12');
  });
});
