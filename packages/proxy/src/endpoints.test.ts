// EndpointSlices as the proxier sees them. upstream: pkg/proxy/endpointslicecache.go,
// pkg/proxy/iptables/proxier_test.go TestUpdateEndpointsMap (case 13's ordering).
import type { EndpointSlice } from '@kubesvc/api-types';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  compareHostPorts,
  endpointInfo,
  endpointsMap,
  sameHostPort,
  servicePortKey,
  type EndpointInfo,
} from './endpoints.js';
import { servicePortInfos } from './service-ports.js';
import { categorizeEndpoints } from './topology.js';
import { makeService, makeSlice } from './model.fixtures.js';

const udp = (name: string, port: number) => ({ name, port, protocol: 'UDP' as const });

describe('endpointsMap', () => {
  it('sorts endpoints by their "ip:port" string, as upstream ("10.1.1.11:11" before "10.1.1.1:11")', () => {
    const slices = [
      makeSlice('ns1', 'ep1', 1, 'IPv4', [{ addresses: ['10.1.1.1'] }, { addresses: ['10.1.1.11'] }], [udp('p11', 11)]),
      makeSlice('ns1', 'ep1', 2, 'IPv4', [{ addresses: ['10.1.1.2'] }], [udp('p12', 12), udp('p122', 122)]),
    ];
    const map = endpointsMap(slices, 4, 'test-node');
    expect(map.get(servicePortKey('ns1', 'ep1', 'p11', 'udp'))?.map((e) => e.hostPort)).toEqual(['10.1.1.11:11', '10.1.1.1:11']);
    expect(map.get(servicePortKey('ns1', 'ep1', 'p122', 'udp'))?.map((e) => e.hostPort)).toEqual(['10.1.1.2:122']);
  });

  it('merges slices, keeps a live endpoint over a terminating duplicate, ignores other families and unlabelled slices', () => {
    const live = { addresses: ['10.0.0.1'], conditions: { ready: true } };
    const terminating = { addresses: ['10.0.0.1'], conditions: { ready: false, serving: true, terminating: true }, nodeName: 'test-node' };
    const port = [{ name: 'http', port: 80, protocol: 'TCP' as const }];
    const unlabelled: EndpointSlice = { ...makeSlice('ns1', 'web', 9, 'IPv4', [{ addresses: ['10.0.0.9'] }], port), metadata: { namespace: 'ns1', name: 'web-9' } };
    const map = endpointsMap(
      [
        makeSlice('ns1', 'web', 1, 'IPv4', [live], port),
        makeSlice('ns1', 'web', 2, 'IPv4', [terminating, { addresses: ['10.0.0.2'], nodeName: 'test-node' }], port),
        makeSlice('ns1', 'web', 3, 'IPv6', [{ addresses: ['fd00::1'] }], port),
        unlabelled,
      ],
      4,
      'test-node',
    );
    const fields = ({ ip, port, hostPort, isLocal, ready, serving, terminating }: EndpointInfo) => ({ ip, port, hostPort, isLocal, ready, serving, terminating });
    expect(map.get(servicePortKey('ns1', 'web', 'http', 'tcp'))?.map(fields)).toEqual([
      { ip: '10.0.0.1', port: 80, hostPort: '10.0.0.1:80', isLocal: false, ready: true, serving: true, terminating: false },
      { ip: '10.0.0.2', port: 80, hostPort: '10.0.0.2:80', isLocal: true, ready: true, serving: true, terminating: false },
    ]);
  });

  it('reads an IPv4 address with leading zeros as decimal (ParseIPSloppy) and prints it as Go does', () => {
    const map = endpointsMap([makeSlice('ns1', 'web', 1, 'IPv4', [{ addresses: ['010.001.000.009'] }, { addresses: ['10.1.0.10'] }], [{ name: '', port: 80 }])], 4, 'n');
    expect(map.get(servicePortKey('ns1', 'web', '', 'tcp'))?.map((e) => e.hostPort)).toEqual(['10.1.0.10:80', '10.1.0.9:80']);
  });

  it('brackets IPv6 endpoints and prints addresses as Go does', () => {
    const map = endpointsMap([makeSlice('ns1', 'web', 1, 'IPv6', [{ addresses: ['FD00:10:180:0::1'] }], [{ name: '', port: 80 }])], 6, 'n');
    expect(map.get(servicePortKey('ns1', 'web', '', 'tcp'))?.map((e) => e.hostPort)).toEqual(['[fd00:10:180::1]:80']);
  });
});

describe('categorizeEndpoints', () => {
  const ep = (ip: string, local: boolean, ready: boolean, serving: boolean, terminating: boolean) => endpointInfo(ip, 80, local, ready, serving, terminating);
  const svc = (spec: Parameters<typeof makeService>[2]) => {
    const [info] = servicePortInfos(makeService('ns1', 'svc1', { clusterIP: '10.0.0.1', ports: [{ port: 80 }], ...spec }), 4);
    if (info === undefined) throw new Error('no service port');
    return info;
  };

  it('prefers ready endpoints and falls back to serving+terminating ones', () => {
    const endpoints = [ep('10.0.1.1', false, true, true, false), ep('10.0.1.2', false, false, true, true), ep('10.0.1.3', false, false, false, true)];
    expect(categorizeEndpoints(endpoints, svc({})).clusterEndpoints.map((e) => e.ip)).toEqual(['10.0.1.1']);
    const onlyTerminating = endpoints.slice(1);
    const result = categorizeEndpoints(onlyTerminating, svc({}));
    expect(result.clusterEndpoints.map((e) => e.ip)).toEqual(['10.0.1.2']);
    expect(result.hasAnyEndpoints).toBe(true);
    expect(categorizeEndpoints([ep('10.0.1.3', true, false, false, true)], svc({})).hasAnyEndpoints).toBe(false);
  });

  it('Local policy picks local endpoints, falling back separately to local terminating ones, and merges the reachable set', () => {
    const endpoints = [ep('10.0.1.5', false, true, true, false), ep('10.0.1.2', true, false, true, true), ep('10.0.1.3', true, false, true, true)];
    const result = categorizeEndpoints(endpoints, svc({ type: 'NodePort', externalTrafficPolicy: 'Local', ports: [{ port: 80, nodePort: 30080 }] }));
    expect(result.clusterEndpoints.map((e) => e.ip)).toEqual(['10.0.1.5']);
    expect(result.localEndpoints.map((e) => e.ip)).toEqual(['10.0.1.2', '10.0.1.3']);
    expect(result.allReachableEndpoints.map((e) => e.ip)).toEqual(['10.0.1.2', '10.0.1.3', '10.0.1.5']);
  });

  it('internalTrafficPolicy Local on a ClusterIP service uses no cluster endpoints', () => {
    const endpoints = [ep('10.0.1.1', false, true, true, false), ep('10.0.1.2', true, true, true, false)];
    const result = categorizeEndpoints(endpoints, svc({ internalTrafficPolicy: 'Local' }));
    expect(result.clusterEndpoints).toEqual([]);
    expect(result.allReachableEndpoints.map((e) => e.ip)).toEqual(['10.0.1.2']);
  });
});

describe('ip:port without the text', () => {
  // IPs as endpointsMap gives them: dotted quads (some sharing prefixes: 10.0.0.1 and 10.0.0.10)
  // and IPv6 text, with ports that share digits (8, 80, 8080).
  const ip = fc.oneof(
    fc.tuple(fc.constantFrom(10, 100), fc.nat(2), fc.constantFrom(1, 10, 100, 2, 20)).map(([a, b, c]) => `${a}.0.${b}.${c}`),
    fc.ipV4(),
    fc.constantFrom('fd00::1', 'fd00::10', 'fd00::1:0', '::1', '2001:db8::'),
  );
  const endpoint = fc.tuple(ip, fc.constantFrom(8, 80, 8080, 9)).map(([address, port]) => endpointInfo(address, port, false, true, true, false));
  const sign = (n: number): number => Math.sign(n);

  test.prop([endpoint, endpoint])('compareHostPorts orders as the `ip:port` texts compare, and sameHostPort is their equality', (a, b) => {
    expect(sign(compareHostPorts(a, b))).toBe(sign(a.hostPort < b.hostPort ? -1 : a.hostPort > b.hostPort ? 1 : 0));
    expect(sameHostPort(a, b)).toBe(a.hostPort === b.hostPort);
  });

  it('brackets IPv6 and keeps the IPv4 text', () => {
    expect(endpointInfo('fd00::1', 80, false, true, true, false).hostPort).toBe('[fd00::1]:80');
    expect(endpointInfo('10.0.0.1', 80, false, true, true, false).hostPort).toBe('10.0.0.1:80');
  });
});
