// buildZone: what it leaves out (diagnostics), the options it refuses, the reverse zones it
// serves, and PTR records for endpoints without a Service.
// upstream: coredns plugin/kubernetes/kubernetes.go serviceRecordForIP, plugin/kubernetes/setup.go
// ParseStanza, plugin/backend_lookup.go SOA, plugin/normalize.go Zones.Matches.
import type { EndpointSlice, Endpoints, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import type { DnsRecord, Resolution } from './records.js';
import { resolve } from './resolve.js';
import { buildZone, type Zone, type ZoneOptions } from './zone.js';

const zoneOf = (...args: Parameters<typeof buildZone>): Zone => {
  const built = buildZone(...args);
  if (!built.ok) throw new Error(built.error.message);
  return built.value;
};

const http = [{ name: 'http', protocol: 'TCP' as const, port: 80 }];
const service = (name: string, spec: Service['spec'], namespace = 'default'): Service => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec });
const endpoints = (name: string, subsets: Endpoints['subsets'], namespace = 'default'): Endpoints => ({
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name, namespace },
  ...(subsets === undefined ? {} : { subsets }),
});
const slice = (name: string, serviceName: string | undefined, endpointList: EndpointSlice['endpoints'], addressType: EndpointSlice['addressType'] = 'IPv4'): EndpointSlice => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name, namespace: 'default', ...(serviceName === undefined ? {} : { labels: { 'kubernetes.io/service-name': serviceName } }) },
  addressType,
  endpoints: endpointList,
  ports: [{ name: 'http', protocol: 'TCP', port: 8080 }],
});
const ptr = (name: string, data: string): DnsRecord => ({ name, type: 'PTR', ttl: 5, class: 'IN', data });
const targets = (r: Resolution): unknown[] => r.answer.map((a) => a.data);

describe('PTR records for endpoints without a Service (CoreDNS serviceRecordForIP)', () => {
  const zone = zoneOf(
    [service('web', { clusterIP: '10.96.0.20', ports: http })],
    [
      endpoints('web', [{ addresses: [{ ip: '10.244.0.5', hostname: 'web-0' }], ports: http }]),
      // No Service "gone": its ready addresses still answer PTR queries, named after it.
      endpoints('gone', [{ addresses: [{ ip: '10.244.0.6', hostname: 'gone-0' }, { ip: '10.244.0.7' }], notReadyAddresses: [{ ip: '10.244.0.8' }], ports: http }]),
      slice('orphan-abcde', 'orphan', [{ addresses: ['10.244.0.9'] }, { addresses: ['10.244.0.10'], conditions: { ready: false } }]),
    ],
  );

  it('answers the PTR of a ready address of an Endpoints object whose Service is missing', () => {
    expect(resolve(zone, { name: '6.0.244.10.in-addr.arpa', type: 'PTR' }).answer).toStrictEqual([ptr('6.0.244.10.in-addr.arpa', 'gone-0.gone.default.svc.cluster.local')]);
    // Without a hostname the name is made from the IP, as for any endpoint.
    expect(targets(resolve(zone, { name: '7.0.244.10.in-addr.arpa', type: 'PTR' }))).toStrictEqual(['10-244-0-7.gone.default.svc.cluster.local']);
  });

  it('names an EndpointSlice address after its kubernetes.io/service-name label', () => {
    expect(targets(resolve(zone, { name: '9.0.244.10.in-addr.arpa', type: 'PTR' }))).toStrictEqual(['10-244-0-9.orphan.default.svc.cluster.local']);
  });

  it('leaves out not-ready addresses, which CoreDNS does not index', () => {
    expect(resolve(zone, { name: '8.0.244.10.in-addr.arpa', type: 'PTR' }).rcode).toBe('NXDOMAIN');
    expect(resolve(zone, { name: '10.0.244.10.in-addr.arpa', type: 'PTR' }).rcode).toBe('NXDOMAIN');
  });

  it('gives no forward names: the service name and the endpoint names need the Service', () => {
    expect(resolve(zone, { name: 'gone.default.svc.cluster.local', type: 'A' }).rcode).toBe('NXDOMAIN');
    expect(resolve(zone, { name: 'gone-0.gone.default.svc.cluster.local', type: 'A' }).rcode).toBe('NXDOMAIN');
  });

  it('reports each such object once, with the reason', () => {
    expect(zone.diagnostics).toStrictEqual([
      { object: { kind: 'Endpoints', namespace: 'default', name: 'gone' }, reason: 'no Service default/gone with records: its ready addresses answer PTR queries only' },
      { object: { kind: 'EndpointSlice', namespace: 'default', name: 'orphan-abcde' }, reason: 'no Service default/orphan with records: its ready addresses answer PTR queries only' },
    ]);
  });

  it('answers PTR queries for the endpoints of an ExternalName service, whose name is a CNAME', () => {
    const z = zoneOf([service('ext', { type: 'ExternalName', externalName: 'example.org' })], [endpoints('ext', [{ addresses: [{ ip: '10.244.1.1' }], ports: http }])]);
    expect(targets(resolve(z, { name: '1.1.244.10.in-addr.arpa', type: 'PTR' }))).toStrictEqual(['10-244-1-1.ext.default.svc.cluster.local']);
    expect(resolve(z, { name: '10-244-1-1.ext.default.svc.cluster.local', type: 'A' }).rcode).toBe('NXDOMAIN');
    expect(z.diagnostics).toStrictEqual([]);
  });
});

describe('diagnostics: what the zone leaves out', () => {
  it('lists services, ClusterIPs, endpoint objects and addresses it cannot use, with the reason', () => {
    const zone = zoneOf(
      [
        service('noip', { ports: http }),
        service('badip', { clusterIP: '10.96.0.999', ports: http }),
        service('first', { clusterIP: '10.96.0.30', ports: http }),
        service('second', { clusterIP: '10.96.0.30', ports: http }),
        service('web', { clusterIP: 'None', ports: http }),
      ],
      [
        endpoints('web', [{ addresses: [{ ip: '10.244.0.300' }, { ip: '10.244.0.4' }], ports: http }]),
        slice('web-fqdn', 'web', [{ addresses: ['db.example.org'] }], 'FQDN'),
        slice('unlabelled', undefined, [{ addresses: ['10.244.0.5'] }]),
      ],
    );
    expect(zone.diagnostics).toStrictEqual([
      {
        object: { kind: 'EndpointSlice', namespace: 'default', name: 'web-fqdn' },
        reason: 'addressType FQDN: its addresses are names, not IPs, and give no records',
      },
      {
        object: { kind: 'EndpointSlice', namespace: 'default', name: 'unlabelled' },
        reason: 'no kubernetes.io/service-name label: its endpoints belong to no service name and give no records',
      },
      { object: { kind: 'Service', namespace: 'default', name: 'noip' }, reason: 'no spec.clusterIP and not an ExternalName service: no records for its name' },
      { object: { kind: 'Service', namespace: 'default', name: 'badip' }, reason: 'ClusterIP "10.96.0.999" is not an IP address: no A, AAAA or PTR record for it' },
      {
        object: { kind: 'Service', namespace: 'default', name: 'second' },
        reason: "ClusterIP 10.96.0.30 is also first.default.svc.cluster.local's: its PTR record names first.default.svc.cluster.local",
      },
      { object: { kind: 'Endpoints', namespace: 'default', name: 'web' }, reason: 'endpoint address "10.244.0.300" is not an IP address: no records for it' },
    ]);
    // What could be used still is.
    expect(targets(resolve(zone, { name: 'web.default.svc.cluster.local', type: 'A' }))).toStrictEqual(['10.244.0.4']);
    expect(targets(resolve(zone, { name: '30.0.96.10.in-addr.arpa', type: 'PTR' }))).toStrictEqual(['first.default.svc.cluster.local']);
  });

  it('is empty for a well-formed cluster', () => {
    const zone = zoneOf([service('web', { clusterIP: '10.96.0.20', ports: http })], [endpoints('web', [{ addresses: [{ ip: '10.244.0.5' }], ports: http }])]);
    expect(zone.diagnostics).toStrictEqual([]);
  });
});

describe('options: refused with an ErrZoneOptions value', () => {
  const cases: { options: ZoneOptions; option: keyof ZoneOptions; message: string }[] = [
    // upstream: coredns plugin/kubernetes/setup.go ParseStanza
    { options: { ttl: 3601 }, option: 'ttl', message: 'ttl must be in range [0, 3600]: 3601' },
    { options: { ttl: -1 }, option: 'ttl', message: 'ttl must be in range [0, 3600]: -1' },
    { options: { pods: 'sometimes' as never }, option: 'pods', message: 'wrong value for pods: sometimes,  must be one of: disabled, verified, insecure' },
    { options: { zone: '10.in-addr.arpa' }, option: 'zone', message: 'non-reverse zone name must be used' },
    { options: { zone: 'a..b' }, option: 'zone', message: 'zone "a..b" is not a domain name' },
    { options: { serial: 2 ** 32 }, option: 'serial', message: 'serial must be an integer in range [0, 4294967295]: 4294967296' },
    { options: { nameservers: ['10.96.0.10', 'banana'] }, option: 'nameservers', message: 'nameserver "banana" is not an IP address' },
    { options: { reverseZones: ['example.org'] }, option: 'reverseZones', message: 'reverse zone "example.org" is not in-addr.arpa, ip6.arpa or a zone below them' },
    { options: { reverseZones: ['xin-addr.arpa'] }, option: 'reverseZones', message: 'reverse zone "xin-addr.arpa" is not in-addr.arpa, ip6.arpa or a zone below them' },
  ];
  it.each(cases)('$option: $message', ({ options, option, message }) => {
    expect(buildZone([], [], [], options)).toStrictEqual({ ok: false, error: { _tag: 'ErrZoneOptions', message, option } });
  });

  it('accepts the edges of each range', () => {
    expect(buildZone([], [], [], { ttl: 0, serial: 0, reverseZones: [] }).ok).toBe(true);
    expect(buildZone([], [], [], { ttl: 3600, serial: 2 ** 32 - 1, reverseZones: ['10.IN-ADDR.ARPA.'] }).ok).toBe(true);
  });
});

describe('reverse zones (the kubernetes plugin zone arguments)', () => {
  const services = [
    service('web', { clusterIP: '10.96.0.20', ports: http }),
    service('v6', { clusterIP: 'fd00::20', ports: http }),
    service('other', { clusterIP: '192.168.0.20', ports: http }),
  ];
  const soa = (zone: string, serial = 1): DnsRecord => ({
    name: zone,
    type: 'SOA',
    ttl: 5,
    class: 'IN',
    data: { mname: `ns.dns.${zone}`, rname: `hostmaster.${zone}`, serial, refresh: 7200, retry: 1800, expire: 86400, minimum: 5 },
  });

  it('default: in-addr.arpa and ip6.arpa, as the default Corefile', () => {
    const zone = zoneOf(services, []);
    expect(zone.reverseZones).toStrictEqual(['in-addr.arpa', 'ip6.arpa']);
    expect(targets(resolve(zone, { name: '20.0.168.192.in-addr.arpa', type: 'PTR' }))).toStrictEqual(['other.default.svc.cluster.local']);
    expect(resolve(zone, { name: '21.0.168.192.in-addr.arpa', type: 'PTR' }).authority).toStrictEqual([soa('in-addr.arpa')]);
  });

  it('answers only inside the configured zones; the NXDOMAIN authority is that zone, spelled as asked', () => {
    const zone = zoneOf(services, [], [], { reverseZones: ['96.10.in-addr.arpa'] });
    expect(targets(resolve(zone, { name: '20.0.96.10.in-addr.arpa', type: 'PTR' }))).toStrictEqual(['web.default.svc.cluster.local']);
    const missing = resolve(zone, { name: '21.0.96.10.IN-ADDR.arpa', type: 'PTR' });
    expect(missing.rcode).toBe('NXDOMAIN');
    expect(missing.authority).toStrictEqual([soa('96.10.IN-ADDR.arpa')]);
    // Outside every zone: not ours to answer.
    expect(resolve(zone, { name: '20.0.168.192.in-addr.arpa', type: 'PTR' }).rcode).toBe('REFUSED');
    expect(resolve(zone, { name: '0.2.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa', type: 'PTR' }).rcode).toBe('REFUSED');
    const forwarded: Resolution = { rcode: 'NOERROR', authoritative: false, answer: [ptr('20.0.168.192.in-addr.arpa', 'upstream.example')], authority: [], additional: [] };
    expect(resolve(zone, { name: '20.0.168.192.in-addr.arpa', type: 'PTR' }, { forward: () => forwarded })).toBe(forwarded);
  });

  it('the apex of a reverse zone has its SOA', () => {
    const zone = zoneOf(services, [], [], { reverseZones: ['96.10.in-addr.arpa'], serial: 9 });
    expect(resolve(zone, { name: '96.10.in-addr.arpa', type: 'SOA' }).answer).toStrictEqual([soa('96.10.in-addr.arpa', 9)]);
  });

  it('the longest zone that holds the name answers it', () => {
    const zone = zoneOf(services, [], [], { reverseZones: ['in-addr.arpa', '96.10.in-addr.arpa'] });
    expect(resolve(zone, { name: '21.0.96.10.in-addr.arpa', type: 'PTR' }).authority).toStrictEqual([soa('96.10.in-addr.arpa')]);
    expect(resolve(zone, { name: '21.0.168.192.in-addr.arpa', type: 'PTR' }).authority).toStrictEqual([soa('in-addr.arpa')]);
  });

  it('no reverse zones: every reverse name is REFUSED', () => {
    const zone = zoneOf(services, [], [], { reverseZones: [] });
    expect(resolve(zone, { name: '20.0.96.10.in-addr.arpa', type: 'PTR' }).rcode).toBe('REFUSED');
  });
});
