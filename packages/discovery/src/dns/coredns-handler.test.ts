// CoreDNS's kubernetes handler cases, re-typed as data.
// upstream: coredns plugin/kubernetes/handler_test.go (dnsTestCases, svcIndex, epsIndex) and
// plugin/kubernetes/reverse_test.go (TestReverse). Differences from the upstream cases are
// marked where they occur: wildcard names ("*", "any") were removed from CoreDNS in 1.9 and
// are not served; the schema TXT is 1.1.0.
import type { Endpoints, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import type { DnsRecord } from './records.js';
import { resolve } from './resolve.js';
import { buildZone, type Zone } from './zone.js';

/** The zone of valid options (buildZone fails only on options). */
const zoneOf = (...args: Parameters<typeof buildZone>): Zone => {
  const built = buildZone(...args);
  if (!built.ok) throw new Error(built.error.message);
  return built.value;
};

const SERIAL = 1499347823;

function service(name: string, spec: Service['spec'], namespace = 'testns'): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec };
}

function endpoints(name: string, subsets: Endpoints['subsets'], namespace = 'testns'): Endpoints {
  return { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace }, ...(subsets === undefined ? {} : { subsets }) };
}

const http = [{ name: 'http', protocol: 'TCP' as const, port: 80 }];

const services: Service[] = [
  service('svc1', { type: 'ClusterIP', clusterIP: '10.0.0.1', ports: http }),
  service('svcempty', { type: 'ClusterIP', clusterIP: '10.0.0.1', ports: http }),
  service('svc6', { type: 'ClusterIP', clusterIP: '1234:abcd::1', ports: http }),
  service('hdls1', { type: 'ClusterIP', clusterIP: 'None' }),
  service('external', { type: 'ExternalName', externalName: 'ext.interwebs.test', ports: http }),
  service('external-to-service', { type: 'ExternalName', externalName: 'svc1.testns.svc.cluster.local.', ports: http }),
  service('hdlsprtls', { type: 'ClusterIP', clusterIP: 'None' }),
];

const endpointList: Endpoints[] = [
  endpoints('svc1', [{ addresses: [{ ip: '172.0.0.1', hostname: 'ep1a' }], ports: http }]),
  endpoints('svcempty', [{ ports: http }]),
  endpoints('hdls1', [
    {
      addresses: [
        { ip: '172.0.0.2' },
        { ip: '172.0.0.3' },
        { ip: '172.0.0.4', hostname: 'dup-name' },
        { ip: '172.0.0.5', hostname: 'dup-name' },
        { ip: '5678:abcd::1' },
        { ip: '5678:abcd::2' },
      ],
      ports: http,
    },
  ]),
  endpoints('hdlsprtls', [{ addresses: [{ ip: '172.0.0.20' }] }]),
];

const zone = zoneOf(services, endpointList, [], { serial: SERIAL });

const soaWith = (serial: number): DnsRecord => ({
  name: 'cluster.local',
  type: 'SOA',
  ttl: 5,
  class: 'IN',
  data: { mname: 'ns.dns.cluster.local', rname: 'hostmaster.cluster.local', serial, refresh: 7200, retry: 1800, expire: 86400, minimum: 5 },
});
const soa = soaWith(SERIAL);

const A = (name: string, data: string): DnsRecord => ({ name, type: 'A', ttl: 5, class: 'IN', data });
const AAAA = (name: string, data: string): DnsRecord => ({ name, type: 'AAAA', ttl: 5, class: 'IN', data });
const SRV = (name: string, weight: number, port: number, target: string): DnsRecord => ({
  name,
  type: 'SRV',
  ttl: 5,
  class: 'IN',
  data: { priority: 0, weight, port, target },
});

interface Case {
  readonly name: string;
  readonly type: string;
  readonly rcode: 'NOERROR' | 'NXDOMAIN';
  readonly answer?: readonly DnsRecord[];
  readonly ns?: readonly DnsRecord[];
  readonly extra?: readonly DnsRecord[];
}

const Z = 'testns.svc.cluster.local';
const cases: Case[] = [
  { name: `svc1.${Z}`, type: 'A', rcode: 'NOERROR', answer: [A(`svc1.${Z}`, '10.0.0.1')] },
  { name: `svcempty.${Z}`, type: 'A', rcode: 'NOERROR', answer: [A(`svcempty.${Z}`, '10.0.0.1')] },
  { name: `svc1.${Z}`, type: 'SRV', rcode: 'NOERROR', answer: [SRV(`svc1.${Z}`, 100, 80, `svc1.${Z}`)], extra: [A(`svc1.${Z}`, '10.0.0.1')] },
  { name: `svcempty.${Z}`, type: 'SRV', rcode: 'NOERROR', answer: [SRV(`svcempty.${Z}`, 100, 80, `svcempty.${Z}`)], extra: [A(`svcempty.${Z}`, '10.0.0.1')] },
  { name: `svc6.${Z}`, type: 'SRV', rcode: 'NOERROR', answer: [SRV(`svc6.${Z}`, 100, 80, `svc6.${Z}`)], extra: [AAAA(`svc6.${Z}`, '1234:abcd::1')] },
  // upstream asks "*._not-udp-or-tcp.svc1..."; the port label is a literal here.
  { name: `_http._not-udp-or-tcp.svc1.${Z}`, type: 'SRV', rcode: 'NXDOMAIN', ns: [soa] },
  { name: `_http._tcp.svc1.${Z}`, type: 'SRV', rcode: 'NOERROR', answer: [SRV(`_http._tcp.svc1.${Z}`, 100, 80, `svc1.${Z}`)], extra: [A(`svc1.${Z}`, '10.0.0.1')] },
  {
    name: `_http._tcp.svcempty.${Z}`,
    type: 'SRV',
    rcode: 'NOERROR',
    answer: [SRV(`_http._tcp.svcempty.${Z}`, 100, 80, `svcempty.${Z}`)],
    extra: [A(`svcempty.${Z}`, '10.0.0.1')],
  },
  {
    name: `hdls1.${Z}`,
    type: 'A',
    rcode: 'NOERROR',
    answer: ['172.0.0.2', '172.0.0.3', '172.0.0.4', '172.0.0.5'].map((ip) => A(`hdls1.${Z}`, ip)),
  },
  { name: `hdlsprtls.${Z}`, type: 'A', rcode: 'NOERROR', answer: [A(`hdlsprtls.${Z}`, '172.0.0.20')] },
  { name: `172-0-0-20.hdlsprtls.${Z}`, type: 'A', rcode: 'NOERROR', answer: [A(`172-0-0-20.hdlsprtls.${Z}`, '172.0.0.20')] },
  { name: `172-0-0-2.hdls1.${Z}`, type: 'A', rcode: 'NOERROR', answer: [A(`172-0-0-2.hdls1.${Z}`, '172.0.0.2')] },
  { name: `172-0-0-3.hdls1.${Z}`, type: 'A', rcode: 'NOERROR', answer: [A(`172-0-0-3.hdls1.${Z}`, '172.0.0.3')] },
  { name: `dup-name.hdls1.${Z}`, type: 'A', rcode: 'NOERROR', answer: [A(`dup-name.hdls1.${Z}`, '172.0.0.4'), A(`dup-name.hdls1.${Z}`, '172.0.0.5')] },
  {
    // Six targets at priority 0: weight floor(100/6) = 16; the two dup-name endpoints share one SRV.
    name: `_http._tcp.hdls1.${Z}`,
    type: 'SRV',
    rcode: 'NOERROR',
    answer: ['172-0-0-2', '172-0-0-3', 'dup-name', '5678-abcd--1', '5678-abcd--2'].map((h) => SRV(`_http._tcp.hdls1.${Z}`, 16, 80, `${h}.hdls1.${Z}`)),
    extra: [
      A(`172-0-0-2.hdls1.${Z}`, '172.0.0.2'),
      A(`172-0-0-3.hdls1.${Z}`, '172.0.0.3'),
      A(`dup-name.hdls1.${Z}`, '172.0.0.4'),
      A(`dup-name.hdls1.${Z}`, '172.0.0.5'),
      AAAA(`5678-abcd--1.hdls1.${Z}`, '5678:abcd::1'),
      AAAA(`5678-abcd--2.hdls1.${Z}`, '5678:abcd::2'),
    ],
  },
  // upstream asks "*.*.hdlsprtls..."; the bare name asks for every port, and there are none.
  { name: `hdlsprtls.${Z}`, type: 'SRV', rcode: 'NOERROR', ns: [soa] },
  { name: `5678-abcd--2.hdls1.${Z}`, type: 'AAAA', rcode: 'NOERROR', answer: [AAAA(`5678-abcd--2.hdls1.${Z}`, '5678:abcd::2')] },
  { name: `external.${Z}`, type: 'CNAME', rcode: 'NOERROR', answer: [{ name: `external.${Z}`, type: 'CNAME', ttl: 5, class: 'IN', data: 'ext.interwebs.test' }] },
  {
    name: `external-to-service.${Z}`,
    type: 'A',
    rcode: 'NOERROR',
    answer: [{ name: `external-to-service.${Z}`, type: 'CNAME', ttl: 5, class: 'IN', data: `svc1.${Z}` }, A(`svc1.${Z}`, '10.0.0.1')],
  },
  { name: `svc1.${Z}`, type: 'AAAA', rcode: 'NOERROR', ns: [soa] },
  { name: `svc0.${Z}`, type: 'AAAA', rcode: 'NXDOMAIN', ns: [soa] },
  { name: `svc0.${Z}`, type: 'A', rcode: 'NXDOMAIN', ns: [soa] },
  { name: 'svc0.svc-nons.svc.cluster.local', type: 'A', rcode: 'NXDOMAIN', ns: [soa] },
  { name: 'dns-version.cluster.local', type: 'TXT', rcode: 'NOERROR', answer: [{ name: 'dns-version.cluster.local', type: 'TXT', ttl: 28800, class: 'IN', data: ['1.1.0'] }] },
  { name: `bogusendpoint.hdls1.${Z}`, type: 'A', rcode: 'NXDOMAIN', ns: [soa] },
  { name: `bogusendpoint.svc0.${Z}`, type: 'A', rcode: 'NXDOMAIN', ns: [soa] },
  { name: `svc6.${Z}`, type: 'AAAA', rcode: 'NOERROR', answer: [AAAA(`svc6.${Z}`, '1234:abcd::1')] },
  { name: `_http._tcp.svc6.${Z}`, type: 'SRV', rcode: 'NOERROR', answer: [SRV(`_http._tcp.svc6.${Z}`, 100, 80, `svc6.${Z}`)], extra: [AAAA(`svc6.${Z}`, '1234:abcd::1')] },
  { name: `hdls1.${Z}`, type: 'AAAA', rcode: 'NOERROR', answer: [AAAA(`hdls1.${Z}`, '5678:abcd::1'), AAAA(`hdls1.${Z}`, '5678:abcd::2')] },
  { name: `5678-abcd--1.hdls1.${Z}`, type: 'AAAA', rcode: 'NOERROR', answer: [AAAA(`5678-abcd--1.hdls1.${Z}`, '5678:abcd::1')] },
  { name: 'svc.cluster.local', type: 'A', rcode: 'NOERROR', ns: [soa] },
  { name: 'pod.cluster.local', type: 'A', rcode: 'NOERROR', ns: [soa] },
  { name: 'testns.svc.cluster.local', type: 'A', rcode: 'NOERROR', ns: [soa] },
];

describe('CoreDNS handler_test.go cases', () => {
  it.each(cases)('$name $type → $rcode', (c) => {
    const got = resolve(zone, { name: `${c.name}.`, type: c.type });
    expect(got.rcode).toBe(c.rcode);
    // upstream sorts both sides before comparing (test.SortAndCheck); so does this.
    const sort = (records: readonly DnsRecord[]) => [...records].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(sort(got.answer)).toStrictEqual(sort(c.answer ?? []));
    expect(sort(got.authority)).toStrictEqual(sort(c.ns ?? []));
    expect(sort(got.additional)).toStrictEqual(sort(c.extra ?? []));
  });

  it('deviation: NS for a name that is not the apex is answered by existence (upstream: NOERROR for any name)', () => {
    // upstream handler_test.go "NS query for qname != zone": foo.cluster.local NS → NOERROR.
    expect(resolve(zone, { name: 'foo.cluster.local', type: 'NS' }).rcode).toBe('NXDOMAIN');
    expect(resolve(zone, { name: `svc1.${Z}`, type: 'NS' }).rcode).toBe('NOERROR');
  });
});

describe('CoreDNS reverse_test.go cases', () => {
  // upstream's SvcIndex knows svc1 only: svc2 has endpoints and no Service, and its address
  // is still answered (serviceRecordForIP looks endpoint IPs up without the Service).
  const reverseServices = [service('svc1', { type: 'ClusterIP', clusterIP: '192.168.1.100', clusterIPs: ['192.168.1.100'], ports: http })];
  const slices = [
    endpoints('svc1', [{ addresses: [{ ip: '10.0.0.100', hostname: 'ep1a' }, { ip: '10.0.0.99', hostname: 'double-ep' }], ports: http }]),
    endpoints('svc1', [
      {
        addresses: [
          { ip: '1234:abcd::1', hostname: 'ep1b' },
          { ip: 'fd00:77:30::a', hostname: 'ip6svc1ex' },
          { ip: 'fd00:77:30::2:9ba6', hostname: 'ip6svc1in' },
        ],
        ports: http,
      },
    ]),
    // The same address in a second slice of the same service (EndpointSlice skew).
    endpoints('svc1', [{ addresses: [{ ip: '10.0.0.100', hostname: 'ep1a' }], ports: http }]),
    endpoints('svc2', [{ addresses: [{ ip: '10.0.0.99', hostname: 'double-ep' }], ports: http }]),
  ];
  // upstream: New([]string{"cluster.local.", "0.10.in-addr.arpa.", "168.192.in-addr.arpa.", ...})
  const reverseZone = zoneOf(reverseServices, slices, [], {
    serial: 1502782828,
    reverseZones: [
      '0.10.in-addr.arpa.',
      '168.192.in-addr.arpa.',
      '0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.c.b.a.4.3.2.1.ip6.arpa.',
      '0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.3.0.0.7.7.0.0.0.0.d.f.ip6.arpa.',
    ],
  });
  const ptr = (name: string, data: string): DnsRecord => ({ name, type: 'PTR', ttl: 5, class: 'IN', data });
  const reverseSoa: DnsRecord = {
    name: '0.10.in-addr.arpa',
    type: 'SOA',
    ttl: 5,
    class: 'IN',
    data: { mname: 'ns.dns.0.10.in-addr.arpa', rname: 'hostmaster.0.10.in-addr.arpa', serial: 1502782828, refresh: 7200, retry: 1800, expire: 86400, minimum: 5 },
  };
  const clusterSoa = soaWith(1502782828);
  const v6a = '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.c.b.a.4.3.2.1.ip6.arpa';
  const v6b = 'a.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.3.0.0.7.7.0.0.0.0.d.f.ip6.arpa';
  const v6c = '6.a.b.9.2.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.3.0.0.7.7.0.0.0.0.d.f.ip6.arpa';
  const reverseCases: Case[] = [
    { name: '100.0.0.10.in-addr.arpa', type: 'PTR', rcode: 'NOERROR', answer: [ptr('100.0.0.10.in-addr.arpa', `ep1a.svc1.${Z}`)] },
    { name: '100.1.168.192.in-addr.arpa', type: 'PTR', rcode: 'NOERROR', answer: [ptr('100.1.168.192.in-addr.arpa', `svc1.${Z}`)] },
    { name: v6a, type: 'PTR', rcode: 'NOERROR', answer: [ptr(v6a, `ep1b.svc1.${Z}`)] },
    { name: v6b, type: 'PTR', rcode: 'NOERROR', answer: [ptr(v6b, `ip6svc1ex.svc1.${Z}`)] },
    { name: v6c, type: 'PTR', rcode: 'NOERROR', answer: [ptr(v6c, `ip6svc1in.svc1.${Z}`)] },
    { name: '101.0.0.10.in-addr.arpa', type: 'PTR', rcode: 'NXDOMAIN', ns: [reverseSoa] },
    { name: 'example.org.cluster.local', type: 'PTR', rcode: 'NXDOMAIN', ns: [clusterSoa] },
    { name: `svc1.${Z}`, type: 'PTR', rcode: 'NOERROR', ns: [clusterSoa] },
    { name: 'svc1.testns.svc.0.10.in-addr.arpa', type: 'A', rcode: 'NXDOMAIN', ns: [reverseSoa] },
    { name: '100.0.0.10.cluster.local', type: 'PTR', rcode: 'NXDOMAIN', ns: [clusterSoa] },
    {
      name: '99.0.0.10.in-addr.arpa',
      type: 'PTR',
      rcode: 'NOERROR',
      answer: [ptr('99.0.0.10.in-addr.arpa', `double-ep.svc1.${Z}`), ptr('99.0.0.10.in-addr.arpa', `double-ep.svc2.${Z}`)],
    },
  ];
  it.each(reverseCases)('$name $type → $rcode', (c) => {
    const got = resolve(reverseZone, { name: c.name, type: c.type });
    expect(got.rcode).toBe(c.rcode);
    expect(got.answer).toStrictEqual(c.answer ?? []);
    expect(got.authority).toStrictEqual(c.ns ?? []);
  });
});

describe('CoreDNS handler_case_test.go cases (letter case is kept)', () => {
  const mixedSoa = (zoneName: string): DnsRecord => ({
    name: zoneName,
    type: 'SOA',
    ttl: 5,
    class: 'IN',
    data: { mname: `ns.dns.${zoneName}`, rname: `hostmaster.${zoneName}`, serial: SERIAL, refresh: 7200, retry: 1800, expire: 86400, minimum: 5 },
  });
  const caseCases: Case[] = [
    { name: 'not-a-service.testns.svc.ClUsTeR.lOcAl', type: 'A', rcode: 'NXDOMAIN', ns: [mixedSoa('ClUsTeR.lOcAl')] },
    { name: 'SvC1.TeStNs.SvC.cLuStEr.LoCaL', type: 'A', rcode: 'NOERROR', answer: [A('SvC1.TeStNs.SvC.cLuStEr.LoCaL', '10.0.0.1')] },
    {
      name: '_HtTp._TcP.sVc1.TeStNs.SvC.cLuStEr.LoCaL',
      type: 'SRV',
      rcode: 'NOERROR',
      answer: [SRV('_HtTp._TcP.sVc1.TeStNs.SvC.cLuStEr.LoCaL', 100, 80, 'svc1.testns.svc.cLuStEr.LoCaL')],
      extra: [A('svc1.testns.svc.cLuStEr.LoCaL', '10.0.0.1')],
    },
    { name: 'Cluster.local', type: 'SOA', rcode: 'NOERROR', answer: [mixedSoa('Cluster.local')] },
  ];
  it.each(caseCases)('$name $type → $rcode', (c) => {
    const got = resolve(zone, { name: `${c.name}.`, type: c.type });
    expect(got.rcode).toBe(c.rcode);
    expect(got.answer).toStrictEqual(c.answer ?? []);
    expect(got.authority).toStrictEqual(c.ns ?? []);
    expect(got.additional).toStrictEqual(c.extra ?? []);
  });
});

describe('CoreDNS handler_pod_insecure_test.go cases', () => {
  const insecure = zoneOf(services, endpointList, [], { serial: SERIAL, pods: 'insecure', namespaces: ['testns', 'podns'] });
  const podCases: Case[] = [
    { name: '10-240-0-1.podns.pod.cluster.local', type: 'A', rcode: 'NOERROR', answer: [A('10-240-0-1.podns.pod.cluster.local', '10.240.0.1')] },
    { name: '172-0-0-2.podns.pod.cluster.local', type: 'A', rcode: 'NOERROR', answer: [A('172-0-0-2.podns.pod.cluster.local', '172.0.0.2')] },
    { name: 'blah.podns.pod.cluster.local', type: 'A', rcode: 'NXDOMAIN', ns: [soa] },
    { name: 'blah.podns.pod.cluster.local', type: 'AAAA', rcode: 'NXDOMAIN', ns: [soa] },
    { name: 'blah.podns.pod.cluster.local', type: 'HINFO', rcode: 'NXDOMAIN', ns: [soa] },
    { name: 'blah.pod-nons.pod.cluster.local', type: 'A', rcode: 'NXDOMAIN', ns: [soa] },
    { name: 'podns.pod.cluster.local', type: 'A', rcode: 'NOERROR', ns: [soa] },
  ];
  it.each(podCases)('$name $type → $rcode', (c) => {
    const got = resolve(insecure, { name: `${c.name}.`, type: c.type });
    expect(got.rcode).toBe(c.rcode);
    expect(got.answer).toStrictEqual(c.answer ?? []);
    expect(got.authority).toStrictEqual(c.ns ?? []);
  });
});
