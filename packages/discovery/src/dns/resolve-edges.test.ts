// The corners of the resolver that the CoreDNS handler cases and the specification examples
// leave open: names of unusual shape, the apex and the special names below it, pod names,
// ports, CNAME chains, the reverse zones and malformed questions. Each expectation is
// CoreDNS's answer (coredns plugin/kubernetes/{handler.go,parse.go,kubernetes.go,reverse.go,
// ns.go}, plugin/backend_lookup.go), or the NXDOMAIN/NODATA rule of docs/deviations.md where
// the two differ (marked).
import type { Endpoints, Pod, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import type { DnsRecord, Question, Resolution } from './records.js';
import { resolve } from './resolve.js';
import { buildZone, type Zone, type ZoneOptions } from './zone.js';

const zoneOf = (...args: Parameters<typeof buildZone>): Zone => {
  const built = buildZone(...args);
  if (!built.ok) throw new Error(built.error.message);
  return built.value;
};

function service(name: string, spec: Service['spec'], namespace = 'testns'): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec };
}

function endpoints(name: string, subsets: Endpoints['subsets'], namespace = 'testns'): Endpoints {
  return { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace }, subsets };
}

const http = { name: 'http', protocol: 'TCP' as const, port: 80 };
const dns = { name: 'dns', protocol: 'UDP' as const, port: 53 };
const Z = 'testns.svc.cluster.local';
const SERIAL = 42;

const rr = (name: string, type: 'A' | 'AAAA' | 'CNAME', data: string): DnsRecord => ({ name, type, ttl: 5, class: 'IN', data });
const srv = (name: string, weight: number, port: number, target: string): DnsRecord => ({
  name,
  type: 'SRV',
  ttl: 5,
  class: 'IN',
  data: { priority: 0, weight, port, target },
});
const soaOf = (zone: string): DnsRecord => ({
  name: zone,
  type: 'SOA',
  ttl: 5,
  class: 'IN',
  data: { mname: `ns.dns.${zone}`, rname: `hostmaster.${zone}`, serial: SERIAL, refresh: 7200, retry: 1800, expire: 86400, minimum: 5 },
});
const soa = soaOf('cluster.local');

/** NOERROR without records: the name exists but has no record of the asked type (NODATA). */
const noData = (authority: DnsRecord = soa): Resolution => ({ rcode: 'NOERROR', authoritative: true, answer: [], authority: [authority], additional: [] });
const nxDomain = (authority: DnsRecord = soa): Resolution => ({ rcode: 'NXDOMAIN', authoritative: true, answer: [], authority: [authority], additional: [] });
const answer = (records: readonly DnsRecord[], additional: readonly DnsRecord[] = []): Resolution => ({
  rcode: 'NOERROR',
  authoritative: true,
  answer: records,
  authority: [],
  additional,
});

const services: Service[] = [
  service('svc1', { type: 'ClusterIP', clusterIP: '10.0.0.1', ports: [http] }),
  service('two', { type: 'ClusterIP', clusterIP: '10.0.0.2', ports: [http, dns] }),
  service('hdls', { type: 'ClusterIP', clusterIP: 'None', ports: [http, dns] }),
  service('mixed', { type: 'ClusterIP', clusterIP: 'None' }),
  service('external', { type: 'ExternalName', externalName: 'ext.example.test' }),
  service('to-nowhere', { type: 'ExternalName', externalName: `nope.${Z}` }),
  service('ping', { type: 'ExternalName', externalName: `pong.${Z}` }),
  service('pong', { type: 'ExternalName', externalName: `ping.${Z}` }),
  service('svcns-only', { type: 'ClusterIP', clusterIP: '10.0.0.9', ports: [http] }, 'svcns'),
];

const endpointList: Endpoints[] = [
  endpoints('hdls', [
    {
      addresses: [
        { ip: '10.1.0.1', hostname: 'a' },
        { ip: '10.1.0.2', hostname: 'b' },
      ],
      ports: [http, dns],
    },
  ]),
  // One subset with a named port beside one without ports: CoreDNS keeps the portless
  // addresses as port -1 entries, counted in the SRV weights and given no SRV.
  endpoints('mixed', [{ addresses: [{ ip: '10.2.0.1', hostname: 'a' }], ports: [http] }, { addresses: [{ ip: '10.2.0.2', hostname: 'b' }] }]),
];

const options: ZoneOptions = { serial: SERIAL, nameservers: ['10.0.0.10'] };
const zone = zoneOf(services, endpointList, [], options);
const ask = (name: string, type: string, z: Zone = zone): Resolution => resolve(z, { name, type });

describe('name shapes (upstream parse.go parseRequest)', () => {
  it('a _port or _proto label without its underscore still names the port: only a leading underscore is stripped', () => {
    const want = answer([srv(`http.tcp.svc1.${Z}`, 100, 80, `svc1.${Z}`)], [rr(`svc1.${Z}`, 'A', '10.0.0.1')]);
    expect(ask(`http.tcp.svc1.${Z}`, 'SRV')).toStrictEqual(want);
    expect(ask(`_http.tcp.svc1.${Z}`, 'SRV').answer).toStrictEqual([srv(`_http.tcp.svc1.${Z}`, 100, 80, `svc1.${Z}`)]);
  });

  it('more than two labels before the service is too long a name: NXDOMAIN', () => {
    expect(ask(`a.b.c.svc1.${Z}`, 'A')).toStrictEqual(nxDomain());
    expect(ask(`x._http._tcp.svc1.${Z}`, 'SRV')).toStrictEqual(nxDomain());
  });

  it('a namespace that does not exist is NXDOMAIN, as <ns>.svc and as <ns>.pod (namespaceExposed)', () => {
    expect(ask('nons.svc.cluster.local', 'A')).toStrictEqual(nxDomain());
    const insecure = zoneOf(services, endpointList, [], { ...options, pods: 'insecure' });
    expect(ask('10-240-0-1.nons.pod.cluster.local', 'A', insecure)).toStrictEqual(nxDomain());
    expect(ask('10-240-0-1.testns.pod.cluster.local', 'A', insecure)).toStrictEqual(answer([rr('10-240-0-1.testns.pod.cluster.local', 'A', '10.240.0.1')]));
  });
});

describe('the apex and the special names below it', () => {
  it('the apex exists: an A, TXT or MX question is NODATA (checkForApex, then an empty parse)', () => {
    for (const type of ['A', 'AAAA', 'TXT', 'MX']) expect(ask('cluster.local', type)).toStrictEqual(noData());
  });

  it('dns-version.<zone> has only its TXT; deviation: an A question is NODATA (CoreDNS: NXDOMAIN)', () => {
    expect(ask('dns-version.cluster.local', 'A')).toStrictEqual(noData());
    expect(ask('dns-version.x.cluster.local', 'A')).toStrictEqual(nxDomain());
    expect(ask('x.dns-version.cluster.local', 'A')).toStrictEqual(nxDomain());
  });

  it('ns.dns.<zone> is exactly that name (ns.go isDefaultNS); its addresses answer A and AAAA only', () => {
    expect(ask('ns.dns.cluster.local', 'A')).toStrictEqual(answer([rr('ns.dns.cluster.local', 'A', '10.0.0.10')]));
    // The nameserver is IPv4 only: the name exists, with no AAAA.
    expect(ask('ns.dns.cluster.local', 'AAAA')).toStrictEqual(noData());
    expect(ask('ns.dns.cluster.local', 'SRV')).toStrictEqual(noData());
    for (const name of ['x.dns.cluster.local', 'ns.x.cluster.local', 'ns.dns.x.cluster.local']) expect(ask(name, 'A')).toStrictEqual(nxDomain());
  });

  it('zone transfers are REFUSED, without the AA bit, in the cluster zone and the reverse zones alike', () => {
    const refused: Resolution = { rcode: 'REFUSED', authoritative: false, answer: [], authority: [], additional: [] };
    // A forward hook is given: a served zone's transfer is refused, not passed on.
    const forward = (): Resolution => answer([rr('elsewhere.test', 'A', '192.0.2.1')]);
    for (const name of ['cluster.local', `svc1.${Z}`, 'in-addr.arpa', '1.0.0.10.in-addr.arpa']) {
      for (const type of ['AXFR', 'IXFR']) expect(resolve(zone, { name, type }, { forward })).toStrictEqual(refused);
    }
  });
});

describe('pod names (upstream kubernetes.go findPods)', () => {
  const insecure = zoneOf(services, endpointList, [], { ...options, pods: 'insecure', namespaces: ['testns', 'podns'] });

  it('a label with three dashes and no "--" is an IPv4 address; any other is IPv6 with "-" for ":"', () => {
    expect(ask('1-2-3-4-5-6-7-8.podns.pod.cluster.local', 'AAAA', insecure)).toStrictEqual(answer([rr('1-2-3-4-5-6-7-8.podns.pod.cluster.local', 'AAAA', '1:2:3:4:5:6:7:8')]));
    // Three dashes, one of them doubled: IPv6 "1:2::3".
    expect(ask('1-2--3.podns.pod.cluster.local', 'AAAA', insecure)).toStrictEqual(answer([rr('1-2--3.podns.pod.cluster.local', 'AAAA', '1:2::3')]));
  });

  it('an IPv4 pod name asked for AAAA exists without that record: NODATA', () => {
    expect(ask('10-240-0-1.podns.pod.cluster.local', 'AAAA', insecure)).toStrictEqual(noData());
  });

  it('pods verified: the address must be a pod of that namespace, also in a namespace without pods', () => {
    const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'podns' }, status: { podIP: '10.240.0.1' } };
    const verified = zoneOf(services, endpointList, [pod], { ...options, pods: 'verified' });
    expect(ask('10-240-0-1.podns.pod.cluster.local', 'A', verified)).toStrictEqual(answer([rr('10-240-0-1.podns.pod.cluster.local', 'A', '10.240.0.1')]));
    // svcns exists (a Service is in it) and holds no pod.
    expect(ask('10-240-0-1.svcns.pod.cluster.local', 'A', verified)).toStrictEqual(nxDomain());
  });
});

describe('ports and SRV (upstream findServices, backend_lookup.go SRV)', () => {
  it('a headless service: _port._proto picks that port of every endpoint; another pair is NXDOMAIN', () => {
    expect(ask(`_http._tcp.hdls.${Z}`, 'SRV')).toStrictEqual(
      answer([srv(`_http._tcp.hdls.${Z}`, 50, 80, `a.hdls.${Z}`), srv(`_http._tcp.hdls.${Z}`, 50, 80, `b.hdls.${Z}`)], [rr(`a.hdls.${Z}`, 'A', '10.1.0.1'), rr(`b.hdls.${Z}`, 'A', '10.1.0.2')]),
    );
    expect(ask(`_dns._udp.hdls.${Z}`, 'SRV').answer).toStrictEqual([srv(`_dns._udp.hdls.${Z}`, 50, 53, `a.hdls.${Z}`), srv(`_dns._udp.hdls.${Z}`, 50, 53, `b.hdls.${Z}`)]);
    expect(ask(`_http._udp.hdls.${Z}`, 'SRV')).toStrictEqual(nxDomain());
  });

  it('one address record per target in the additional section, however many ports point at it', () => {
    // Two ports of one ClusterIP: 2 targets at priority 0, weight 100/2.
    expect(ask(`two.${Z}`, 'SRV')).toStrictEqual(answer([srv(`two.${Z}`, 50, 80, `two.${Z}`), srv(`two.${Z}`, 50, 53, `two.${Z}`)], [rr(`two.${Z}`, 'A', '10.0.0.2')]));
    // Two endpoints by two ports: 4 at priority 0, weight 25.
    const got = ask(`hdls.${Z}`, 'SRV');
    expect(got.answer).toStrictEqual([
      srv(`hdls.${Z}`, 25, 80, `a.hdls.${Z}`),
      srv(`hdls.${Z}`, 25, 53, `a.hdls.${Z}`),
      srv(`hdls.${Z}`, 25, 80, `b.hdls.${Z}`),
      srv(`hdls.${Z}`, 25, 53, `b.hdls.${Z}`),
    ]);
    expect(got.additional).toStrictEqual([rr(`a.hdls.${Z}`, 'A', '10.1.0.1'), rr(`b.hdls.${Z}`, 'A', '10.1.0.2')]);
  });

  it('a portless endpoint counts in the weight (port -1) and gets no SRV of its own', () => {
    expect(ask(`mixed.${Z}`, 'SRV')).toStrictEqual(answer([srv(`mixed.${Z}`, 50, 80, `a.mixed.${Z}`)], [rr(`a.mixed.${Z}`, 'A', '10.2.0.1')]));
    expect(ask(`mixed.${Z}`, 'A').answer).toStrictEqual([rr(`mixed.${Z}`, 'A', '10.2.0.1'), rr(`mixed.${Z}`, 'A', '10.2.0.2')]);
  });

  it('an ExternalName has no SRV record: NODATA (Services drops CNAME targets for SRV)', () => {
    expect(ask(`external.${Z}`, 'SRV')).toStrictEqual(noData());
  });

  it('below an ExternalName: _port._proto names the CNAME too (findServices matches no port there), an endpoint label nothing', () => {
    const cname = answer([rr(`_http._tcp.external.${Z}`, 'CNAME', 'ext.example.test')]);
    expect(ask(`_http._tcp.external.${Z}`, 'CNAME')).toStrictEqual(cname);
    expect(ask(`_http._tcp.external.${Z}`, 'A')).toStrictEqual(cname);
    expect(ask(`_http._tcp.external.${Z}`, 'SRV')).toStrictEqual(noData());
    expect(ask(`x.external.${Z}`, 'CNAME')).toStrictEqual(nxDomain());
  });

  it('a CNAME question: only an ExternalName has one; a ClusterIP name is NODATA, an unknown name NXDOMAIN', () => {
    expect(ask(`external.${Z}`, 'CNAME')).toStrictEqual(answer([rr(`external.${Z}`, 'CNAME', 'ext.example.test')]));
    expect(ask(`svc1.${Z}`, 'CNAME')).toStrictEqual(noData());
    expect(ask(`nope.${Z}`, 'CNAME')).toStrictEqual(nxDomain());
  });
});

describe('CNAME chains (upstream backend_lookup.go A)', () => {
  /** ExternalName services c0 -> c1 -> ... -> c<hops>, where c<hops> is a ClusterIP service. */
  function chain(hops: number): Zone {
    const links = Array.from({ length: hops }, (_, i) => service(`c${i}`, { type: 'ExternalName', externalName: `c${i + 1}.${Z}` }));
    return zoneOf([...links, service(`c${hops}`, { type: 'ClusterIP', clusterIP: '10.0.0.3', ports: [http] })], [], [], options);
  }

  it('eight CNAMEs are followed to the address; a ninth is cut and the whole chain dropped (len(previousRecords) > 7)', () => {
    const eight = ask(`c0.${Z}`, 'A', chain(8));
    expect(eight).toStrictEqual(
      answer([...Array.from({ length: 8 }, (_, i) => rr(`c${i}.${Z}`, 'CNAME', `c${i + 1}.${Z}`)), rr(`c8.${Z}`, 'A', '10.0.0.3')]),
    );
    expect(ask(`c0.${Z}`, 'A', chain(9))).toStrictEqual(noData());
    // Started one link later, the same nine services resolve.
    expect(ask(`c1.${Z}`, 'A', chain(9)).answer).toHaveLength(9);
  });

  it('a two-service loop resolves to nothing: NODATA', () => {
    expect(ask(`ping.${Z}`, 'A')).toStrictEqual(noData());
  });

  it('an in-cluster target without records of the type drops the CNAME', () => {
    expect(ask(`to-nowhere.${Z}`, 'A')).toStrictEqual(noData());
    const z = zoneOf([service('alias', { type: 'ExternalName', externalName: `svc1.${Z}` }), ...services], [], [], options);
    expect(ask(`alias.${Z}`, 'AAAA', z)).toStrictEqual(noData());
    expect(ask(`alias.${Z}`, 'A', z)).toStrictEqual(answer([rr(`alias.${Z}`, 'CNAME', `svc1.${Z}`), rr(`svc1.${Z}`, 'A', '10.0.0.1')]));
  });
});

describe('reverse zones (upstream reverse.go, handler.go)', () => {
  const inAddr = soaOf('in-addr.arpa');

  it('the reverse zone apex answers its SOA, and NODATA for other types', () => {
    expect(ask('in-addr.arpa', 'SOA')).toStrictEqual(answer([inAddr]));
    expect(ask('in-addr.arpa', 'PTR')).toStrictEqual(noData(inAddr));
    expect(ask('in-addr.arpa', 'A')).toStrictEqual(noData(inAddr));
  });

  it('deviation: a known address asked for another type than PTR is NODATA (CoreDNS: NXDOMAIN)', () => {
    expect(ask('1.0.0.10.in-addr.arpa', 'A')).toStrictEqual(noData(inAddr));
    expect(ask('1.0.1.10.in-addr.arpa', 'TXT')).toStrictEqual(noData(inAddr));
    expect(ask('1.0.0.10.in-addr.arpa', 'PTR').answer).toStrictEqual([{ name: '1.0.0.10.in-addr.arpa', type: 'PTR', ttl: 5, class: 'IN', data: `svc1.${Z}` }]);
  });

  it('the longest reverse zone holding the name answers it, in whatever order the zones are given', () => {
    for (const reverseZones of [
      ['0.10.in-addr.arpa', 'in-addr.arpa'],
      ['in-addr.arpa', '0.10.in-addr.arpa'],
    ]) {
      const z = zoneOf(services, endpointList, [], { ...options, reverseZones });
      expect(ask('101.0.0.10.in-addr.arpa', 'PTR', z)).toStrictEqual(nxDomain(soaOf('0.10.in-addr.arpa')));
      expect(ask('1.0.1.10.in-addr.arpa', 'PTR', z).authority).toStrictEqual([]);
      expect(ask('1.0.99.10.in-addr.arpa', 'PTR', z)).toStrictEqual(nxDomain(inAddr));
    }
  });
});

describe('malformed questions', () => {
  it('a question that is not { name: string, type: string } is FORMERR', () => {
    const formErr: Resolution = { rcode: 'FORMERR', authoritative: false, answer: [], authority: [], additional: [] };
    for (const q of [null, undefined, 'svc1.testns.svc.cluster.local', 7, { name: `svc1.${Z}` }, { name: `svc1.${Z}`, type: 1 }, { type: 'A' }]) {
      expect(resolve(zone, q as unknown as Question)).toStrictEqual(formErr);
    }
  });
});
