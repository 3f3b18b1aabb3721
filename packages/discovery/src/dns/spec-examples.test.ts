// The examples of the Kubernetes DNS specification, and the rules it states in words.
// upstream: kubernetes/dns docs/specification.md (§2.2–§2.6; schema 1.1.0 adds AAAA and
// ip6.arpa). TTLs, SRV priority and weight are not prescribed there; CoreDNS's are used
// (TTL 5, priority 0, weight 100/n).
import type { EndpointSlice, Endpoints, Pod, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import type { DnsRecord, Question, Resolution } from './records.js';
import { resolve } from './resolve.js';
import { buildZone, type Zone } from './zone.js';

/** The zone of valid options (buildZone fails only on options). */
const zoneOf = (...args: Parameters<typeof buildZone>): Zone => {
  const built = buildZone(...args);
  if (!built.ok) throw new Error(built.error.message);
  return built.value;
};

function service(name: string, spec: Service['spec'], namespace = 'default', annotations?: Record<string, string>): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace, ...(annotations ? { annotations } : {}) }, spec };
}

const https = [{ name: 'https', protocol: 'TCP' as const, port: 443 }];

const services = [
  service('kubernetes', { type: 'ClusterIP', clusterIP: '10.3.0.1', clusterIPs: ['10.3.0.1'], ports: https }),
  service('headless', { type: 'ClusterIP', clusterIP: 'None', ports: https }),
  service('foo', { type: 'ExternalName', externalName: 'www.example.com' }),
  service('v6', { type: 'ClusterIP', clusterIP: '2001:db8::1', ports: https }),
];

const headlessEndpoints: Endpoints = {
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: 'headless', namespace: 'default' },
  subsets: [
    {
      addresses: [
        { ip: '10.3.0.100', hostname: 'my-pet' },
        { ip: '10.3.0.101', hostname: 'my-pet-2' },
        { ip: '10.3.0.102' },
      ],
      notReadyAddresses: [{ ip: '10.3.0.103', hostname: 'not-ready' }],
      ports: https,
    },
  ],
};

const zone = zoneOf(services, [headlessEndpoints]);

const rr = (name: string, type: 'A' | 'AAAA' | 'PTR' | 'CNAME', data: string, ttl = 5): DnsRecord => ({ name, type, ttl, class: 'IN', data });
const ask = (name: string, type: string): Question => ({ name, type });

describe('specification §2 examples', () => {
  it('§2.2 dns-version.<zone> TXT carries the schema version, TTL 28800', () => {
    expect(resolve(zone, ask('dns-version.cluster.local.', 'TXT')).answer).toStrictEqual([
      { name: 'dns-version.cluster.local', type: 'TXT', ttl: 28800, class: 'IN', data: ['1.1.0'] },
    ]);
  });

  it('§2.3.1 A record of a ClusterIP service', () => {
    expect(resolve(zone, ask('kubernetes.default.svc.cluster.local.', 'A')).answer).toStrictEqual([rr('kubernetes.default.svc.cluster.local', 'A', '10.3.0.1')]);
  });

  it('§2.3.1 (1.1.0) AAAA record of an IPv6 ClusterIP service', () => {
    expect(resolve(zone, ask('v6.default.svc.cluster.local', 'AAAA')).answer).toStrictEqual([rr('v6.default.svc.cluster.local', 'AAAA', '2001:db8::1')]);
  });

  it('§2.3.2 SRV of a named port, with the A record in the additional section', () => {
    const got = resolve(zone, ask('_https._tcp.kubernetes.default.svc.cluster.local.', 'SRV'));
    expect(got.answer).toStrictEqual([
      {
        name: '_https._tcp.kubernetes.default.svc.cluster.local',
        type: 'SRV',
        ttl: 5,
        class: 'IN',
        data: { priority: 0, weight: 100, port: 443, target: 'kubernetes.default.svc.cluster.local' },
      },
    ]);
    expect(got.additional).toStrictEqual([rr('kubernetes.default.svc.cluster.local', 'A', '10.3.0.1')]);
  });

  it('§2.3.2 unnamed ports have no SRV record', () => {
    const z = zoneOf([service('plain', { clusterIP: '10.3.0.9', ports: [{ port: 80, protocol: 'TCP' }] })], []);
    const got = resolve(z, ask('plain.default.svc.cluster.local', 'SRV'));
    expect(got.rcode).toBe('NOERROR');
    expect(got.answer).toStrictEqual([]);
    expect(resolve(z, ask('_._tcp.plain.default.svc.cluster.local', 'SRV')).rcode).toBe('NXDOMAIN');
  });

  it('§2.3.3 PTR of a ClusterIP', () => {
    expect(resolve(zone, ask('1.0.3.10.in-addr.arpa.', 'PTR')).answer).toStrictEqual([rr('1.0.3.10.in-addr.arpa', 'PTR', 'kubernetes.default.svc.cluster.local')]);
  });

  it('§2.3.3 (1.1.0) PTR of an IPv6 ClusterIP: 32 nibbles under ip6.arpa', () => {
    const name = '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa';
    expect(resolve(zone, ask(name, 'PTR')).answer).toStrictEqual([rr(name, 'PTR', 'v6.default.svc.cluster.local')]);
  });

  it('§2.4.1 a headless service has an A record per ready endpoint', () => {
    expect(resolve(zone, ask('headless.default.svc.cluster.local.', 'A')).answer).toStrictEqual(
      ['10.3.0.100', '10.3.0.101', '10.3.0.102'].map((ip) => rr('headless.default.svc.cluster.local', 'A', ip)),
    );
  });

  it('§2.4.1 <hostname>.<service> A record; a not-ready endpoint has none', () => {
    expect(resolve(zone, ask('my-pet.headless.default.svc.cluster.local.', 'A')).answer).toStrictEqual([
      rr('my-pet.headless.default.svc.cluster.local', 'A', '10.3.0.100'),
    ]);
    expect(resolve(zone, ask('not-ready.headless.default.svc.cluster.local.', 'A')).rcode).toBe('NXDOMAIN');
  });

  it('§2.4.1 a headless service without ready endpoints is NXDOMAIN', () => {
    const z = zoneOf([service('empty', { clusterIP: 'None' })], []);
    expect(resolve(z, ask('empty.default.svc.cluster.local', 'A')).rcode).toBe('NXDOMAIN');
  });

  it('§2.1 "ready" includes not-ready addresses when the service tolerates them', () => {
    const viaField = zoneOf([service('headless', { clusterIP: 'None', publishNotReadyAddresses: true })], [headlessEndpoints]);
    const viaAnnotation = zoneOf(
      [service('headless', { clusterIP: 'None' }, 'default', { 'service.alpha.kubernetes.io/tolerate-unready-endpoints': 'true' })],
      [headlessEndpoints],
    );
    for (const z of [viaField, viaAnnotation]) {
      expect(resolve(z, ask('not-ready.headless.default.svc.cluster.local', 'A')).answer).toStrictEqual([
        rr('not-ready.headless.default.svc.cluster.local', 'A', '10.3.0.103'),
      ]);
    }
  });

  it('§2.4.2 SRV per ready endpoint × named port, targets are <hostname>.<service>', () => {
    const got = resolve(zone, ask('_https._tcp.headless.default.svc.cluster.local.', 'SRV'));
    expect(got.answer.map((r) => (r.type === 'SRV' ? `${r.data.priority} ${r.data.weight} ${r.data.port} ${r.data.target}` : ''))).toStrictEqual([
      '0 33 443 my-pet.headless.default.svc.cluster.local',
      '0 33 443 my-pet-2.headless.default.svc.cluster.local',
      '0 33 443 10-3-0-102.headless.default.svc.cluster.local',
    ]);
  });

  it('§2.4.3 PTR of a headless endpoint', () => {
    expect(resolve(zone, ask('100.0.3.10.in-addr.arpa.', 'PTR')).answer).toStrictEqual([
      rr('100.0.3.10.in-addr.arpa', 'PTR', 'my-pet.headless.default.svc.cluster.local'),
    ]);
  });

  it('§2.5 ExternalName: a CNAME, then the target as the forwarder resolves it', () => {
    const forward = (q: Question): Resolution => ({
      rcode: 'NOERROR',
      authoritative: false,
      answer: [rr(q.name, 'A', '192.0.2.53', 28715)],
      authority: [],
      additional: [],
    });
    expect(resolve(zone, ask('foo.default.svc.cluster.local.', 'A'), { forward }).answer).toStrictEqual([
      rr('foo.default.svc.cluster.local', 'CNAME', 'www.example.com'),
      rr('www.example.com', 'A', '192.0.2.53', 28715),
    ]);
    // Without a forwarder the CNAME stands alone; the client follows it.
    expect(resolve(zone, ask('foo.default.svc.cluster.local.', 'A')).answer).toStrictEqual([rr('foo.default.svc.cluster.local', 'CNAME', 'www.example.com')]);
    // Nothing exists below an ExternalName name.
    expect(resolve(zone, ask('x.foo.default.svc.cluster.local.', 'A')).rcode).toBe('NXDOMAIN');
  });

  it('§2.6 <a>-<b>-<c>-<d>.<ns>.pod.<zone>, behind the pods option', () => {
    const name = '10-3-0-50.default.pod.cluster.local';
    expect(resolve(zone, ask(name, 'A')).rcode).toBe('NXDOMAIN');
    expect(resolve(zone, ask('default.pod.cluster.local', 'A')).rcode).toBe('NXDOMAIN');
    expect(resolve(zone, ask('pod.cluster.local', 'A')).rcode).toBe('NOERROR');
    const insecure = zoneOf(services, [], [], { pods: 'insecure' });
    expect(resolve(insecure, ask(name, 'A')).answer).toStrictEqual([rr(name, 'A', '10.3.0.50')]);
    expect(resolve(insecure, ask('fd00-10-244--1.default.pod.cluster.local', 'AAAA')).answer).toStrictEqual([
      rr('fd00-10-244--1.default.pod.cluster.local', 'AAAA', 'fd00:10:244::1'),
    ]);
    expect(resolve(insecure, ask('not-an-ip.default.pod.cluster.local', 'A')).rcode).toBe('NXDOMAIN');
    expect(resolve(insecure, ask('default.pod.cluster.local', 'A')).rcode).toBe('NOERROR');
    const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, status: { podIP: '10.3.0.50' } };
    const verified = zoneOf(services, [], [pod], { pods: 'verified' });
    expect(resolve(verified, ask(name, 'A')).answer).toStrictEqual([rr(name, 'A', '10.3.0.50')]);
    expect(resolve(verified, ask('10-3-0-51.default.pod.cluster.local', 'A')).rcode).toBe('NXDOMAIN');
  });

  it('§2.1 comparisons are case-insensitive; the answer keeps the letters as asked', () => {
    const got = resolve(zone, ask('KUBERNETES.Default.SVC.Cluster.Local.', 'a'));
    expect(got.answer).toStrictEqual([rr('KUBERNETES.Default.SVC.Cluster.Local', 'A', '10.3.0.1')]);
    const srv = resolve(zone, ask('_HTTPS._TCP.kubernetes.default.svc.CLUSTER.local', 'SRV'));
    // As CoreDNS does, the zone part of a target is spelled as the question spelled it.
    expect(srv.answer[0]?.type === 'SRV' ? srv.answer[0].data.target : '').toBe('kubernetes.default.svc.CLUSTER.local');
  });
});

describe('zone edges', () => {
  it('EndpointSlices: ready false is left out, ready unset counts as ready, FQDN slices are ignored', () => {
    const slice = (name: string, addressType: EndpointSlice['addressType'], endpoints: EndpointSlice['endpoints']): EndpointSlice => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name, namespace: 'default', labels: { 'kubernetes.io/service-name': 'headless' } },
      addressType,
      endpoints,
      ports: [{ name: 'https', protocol: 'TCP', port: 8443 }],
    });
    const z = zoneOf(
      [service('headless', { clusterIP: 'None', ports: https })],
      [
        slice('headless-a', 'IPv4', [
          { addresses: ['10.244.0.1'], conditions: { ready: true } },
          { addresses: ['10.244.0.2'], conditions: { ready: false } },
          { addresses: ['10.244.0.3'] },
        ]),
        slice('headless-b', 'FQDN', [{ addresses: ['example.com'] }]),
      ],
    );
    expect(resolve(z, ask('headless.default.svc.cluster.local', 'A')).answer.map((r) => r.data)).toStrictEqual(['10.244.0.1', '10.244.0.3']);
    // The SRV port of a headless service is the endpoint's port (the target port).
    const srv = resolve(z, ask('_https._tcp.headless.default.svc.cluster.local', 'SRV')).answer;
    expect(srv.map((r) => (r.type === 'SRV' ? r.data.port : 0))).toStrictEqual([8443, 8443]);
  });

  it('an IPv6 endpoint hostname ending in "::" gets a 0 (CoreDNS endpointHostname)', () => {
    const z = zoneOf(
      [service('h', { clusterIP: 'None' })],
      [{ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'h', namespace: 'default' }, subsets: [{ addresses: [{ ip: '2001:db8::' }] }] }],
    );
    expect(resolve(z, ask('2001-db8--0.h.default.svc.cluster.local', 'AAAA')).answer.map((r) => r.data)).toStrictEqual(['2001:db8::']);
  });

  it('a dual-stack ClusterIP: A and AAAA, one SRV per port with weight 50', () => {
    const z = zoneOf([service('ds', { clusterIP: '10.3.0.7', clusterIPs: ['10.3.0.7', 'fd00::7'], ports: https })], []);
    expect(resolve(z, ask('ds.default.svc.cluster.local', 'A')).answer.map((r) => r.data)).toStrictEqual(['10.3.0.7']);
    expect(resolve(z, ask('ds.default.svc.cluster.local', 'AAAA')).answer.map((r) => r.data)).toStrictEqual(['fd00::7']);
    const srv = resolve(z, ask('_https._tcp.ds.default.svc.cluster.local', 'SRV'));
    expect(srv.answer.map((r) => (r.type === 'SRV' ? r.data.weight : 0))).toStrictEqual([50]);
    expect(srv.additional.map((r) => `${r.type} ${String(r.data)}`)).toStrictEqual(['A 10.3.0.7', 'AAAA fd00::7']);
  });

  it('the apex answers SOA and NS; ns.dns.<zone> answers the nameserver addresses', () => {
    const z = zoneOf(services, [], [], { nameservers: ['10.3.0.10'], serial: 7 });
    const soa = resolve(z, ask('cluster.local', 'SOA'));
    expect(soa.answer).toStrictEqual([
      {
        name: 'cluster.local',
        type: 'SOA',
        ttl: 5,
        class: 'IN',
        data: { mname: 'ns.dns.cluster.local', rname: 'hostmaster.cluster.local', serial: 7, refresh: 7200, retry: 1800, expire: 86400, minimum: 5 },
      },
    ]);
    const ns = resolve(z, ask('cluster.local', 'NS'));
    expect(ns.answer).toStrictEqual([{ name: 'cluster.local', type: 'NS', ttl: 5, class: 'IN', data: 'ns.dns.cluster.local' }]);
    expect(ns.additional).toStrictEqual([rr('ns.dns.cluster.local', 'A', '10.3.0.10')]);
    expect(resolve(z, ask('ns.dns.cluster.local', 'A')).answer).toStrictEqual([rr('ns.dns.cluster.local', 'A', '10.3.0.10')]);
  });

  it('the SOA TTL is capped at 300 and its minimum is the zone TTL', () => {
    const z = zoneOf(services, [], [], { ttl: 600 });
    const got = resolve(z, ask('nope.default.svc.cluster.local', 'A'));
    expect(got.authority[0]?.ttl).toBe(300);
    expect(got.authority[0]?.type === 'SOA' ? got.authority[0].data.minimum : 0).toBe(600);
  });

  it('names outside the served zones: REFUSED, or the forward hook', () => {
    expect(resolve(zone, ask('example.com', 'A'))).toStrictEqual({ rcode: 'REFUSED', authoritative: false, answer: [], authority: [], additional: [] });
    const answer: Resolution = { rcode: 'NOERROR', authoritative: false, answer: [rr('example.com', 'A', '192.0.2.1')], authority: [], additional: [] };
    expect(resolve(zone, ask('example.com', 'A'), { forward: () => answer })).toBe(answer);
    // Unknown reverse names fall through too, as with the default Corefile's fallthrough.
    expect(resolve(zone, ask('9.9.9.9.in-addr.arpa', 'PTR'), { forward: () => answer })).toBe(answer);
  });

  it('an ExternalName chain stops at a loop', () => {
    const z = zoneOf([service('loop', { type: 'ExternalName', externalName: 'loop.default.svc.cluster.local' })], []);
    const got = resolve(z, ask('loop.default.svc.cluster.local', 'A'));
    expect(got.rcode).toBe('NOERROR');
    expect(got.answer).toStrictEqual([]);
  });
});
