import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { endpointSliceDiagnostics, serviceDiagnostics } from './diagnostics.js';
import { generateRules } from './backend.js';
import { validConfig } from './proxier-config.fixtures.js';

const config = validConfig({ nodeName: 'node-1' });

const service = (name: string, clusterIP: string, extra: Partial<NonNullable<Service['spec']>> = {}): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'default', name },
  spec: { clusterIP, ports: [{ name: 'http', port: 80, protocol: 'TCP' }], ...extra },
});
const slice = (name: string, serviceName: string | undefined, addresses: string[], port = 8080): EndpointSlice => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { namespace: 'default', name, ...(serviceName === undefined ? {} : { labels: { 'kubernetes.io/service-name': serviceName } }) },
  addressType: 'IPv4',
  endpoints: addresses.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
  ports: [{ name: 'http', port, protocol: 'TCP' }],
});

describe('generateRules reports what it leaves out', () => {
  it('a Service whose clusterIP does not parse is skipped and reported, the rules unchanged', () => {
    const good = service('web', '10.96.0.10');
    const bad = service('broken', '10.96.0.999');
    const slices = [slice('web-1', 'web', ['10.244.1.5'])];
    const without = generateRules([good], slices, config);
    const withBad = generateRules([good, bad], slices, config);
    expect(withBad.restoreText).toBe(without.restoreText);
    expect(withBad.stats.servicePorts).toBe(1);
    expect(without.diagnostics).toEqual([]);
    expect(withBad.diagnostics).toEqual([
      {
        object: { kind: 'Service', namespace: 'default', name: 'broken' },
        field: 'spec.clusterIP',
        value: '10.96.0.999',
        reason: 'not a valid IP address; no rules are written for this cluster IP',
      },
    ]);
  });

  it('bad endpoint addresses, a slice without its service-name label, bad ports and protocols are reported', () => {
    const svc = service('web', '10.96.0.10', {
      ports: [
        { name: 'http', port: 80, protocol: 'TCP' },
        { name: 'ping', port: 1, protocol: 'ICMP' as 'TCP' },
        { name: 'big', port: 70000, protocol: 'TCP' },
      ],
      externalIPs: ['203.0.113.300'],
      loadBalancerSourceRanges: ['10.0.0.0/33'],
    });
    const { diagnostics, restoreText } = generateRules(
      [svc],
      [slice('web-1', 'web', ['10.244.1.5', 'not-an-ip']), slice('orphan', undefined, ['10.244.9.9']), slice('web-2', 'web', ['10.244.1.6'], 0)],
      config,
    );
    expect(diagnostics.map((d) => `${d.object.kind} ${d.object.name} ${d.field}=${JSON.stringify(d.value)}`)).toEqual([
      'Service web spec.ports[1].protocol="ICMP"',
      'Service web spec.ports[2].port=70000',
      'Service web spec.externalIPs[0]="203.0.113.300"',
      'Service web spec.loadBalancerSourceRanges[0]="10.0.0.0/33"',
      'EndpointSlice web-1 endpoints[1].addresses[0]="not-an-ip"',
      'EndpointSlice orphan metadata.labels["kubernetes.io/service-name"]=undefined',
      'EndpointSlice web-2 ports[0].port=0',
    ]);
    expect(restoreText).not.toContain('70000');
    expect(restoreText).not.toContain('not-an-ip');
    expect(restoreText).toContain('10.244.1.5:8080');
  });

  it('skips by design are not reported: headless, ExternalName, the other family', () => {
    const { diagnostics } = generateRules(
      [service('headless', 'None'), { ...service('ext', ''), spec: { type: 'ExternalName', externalName: 'example.com' } }, service('v6', 'fd00::10')],
      [{ ...slice('v6-1', 'v6', ['fd00::1']), addressType: 'IPv6' }],
      config,
    );
    expect(diagnostics).toEqual([]);
  });
});

// Slices and Services with every kind of defect the diagnostics know, and the well-formed kind.
const messySlice: fc.Arbitrary<EndpointSlice> = fc
  .record(
    {
      name: fc.constantFrom('a', 'b', 'c'),
      label: fc.constantFrom<string | undefined>('web', 'api', '', undefined),
      addressType: fc.constantFrom('IPv4', 'IPv4', 'IPv6'),
      ports: fc.array(
        fc.record({
          port: fc.constantFrom<number | undefined>(8080, 9090, 0, undefined, 70000),
          protocol: fc.constantFrom<string | undefined>('TCP', 'UDP', undefined, 'ICMP'),
        }),
        { maxLength: 2 },
      ),
      addresses: fc.array(fc.constantFrom<string[]>(['10.1.2.3'], ['10.1.2.4'], ['010.1.2.5'], ['not-an-ip'], [], ['fd00::1']), { maxLength: 4 }),
    },
    { noNullPrototype: true },
  )
  .map((s) => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'default', name: s.name, ...(s.label === undefined ? {} : { labels: { 'kubernetes.io/service-name': s.label } }) },
    addressType: s.addressType as 'IPv4',
    endpoints: s.addresses.map((addresses) => ({ addresses, conditions: { ready: true } })),
    ports: s.ports.map((p) => ({ name: 'http', ...(p.port === undefined ? {} : { port: p.port }), ...(p.protocol === undefined ? {} : { protocol: p.protocol as 'TCP' }) })),
  }));
const messyService: fc.Arbitrary<Service> = fc
  .record(
    { name: fc.constantFrom('web', 'api'), clusterIP: fc.constantFrom('10.96.0.10', '10.96.0.999', 'None'), port: fc.constantFrom(80, 70000) },
    { noNullPrototype: true },
  )
  .map((s) => service(s.name, s.clusterIP, { ports: [{ name: 'http', port: s.port, protocol: 'TCP' }] }));

test.prop([fc.array(messyService, { maxLength: 3 }), fc.array(messySlice, { maxLength: 6 }), fc.constantFrom(config, validConfig({ nodeName: 'node-1', largeClusterThreshold: 1 }))])(
  'INV-IPT-DIAGNOSTICS: generateRules reports exactly what the full diagnostics passes over all Services and slices report',
  (services, slices, cfg) => {
    expect(generateRules(services, slices, cfg).diagnostics).toEqual([...serviceDiagnostics(services), ...endpointSliceDiagnostics(slices, cfg.family)]);
  },
);
