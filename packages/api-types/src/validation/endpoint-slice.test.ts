// EndpointSlice validation examples; expectations from upstream's
// pkg/apis/discovery/validation/validation.go (v1.32) messages.
import { describe, expect, it } from 'vitest';
import { defaultEndpointSlice } from '../defaults.js';
import type { EndpointSlice } from '../objects/endpoint-slice.js';
import { renderFieldError, type FieldError } from './field-errors.js';
import { validateEndpointSlice, validateEndpointSliceUpdate } from './endpoint-slice.js';
import { invalidMessage } from './validate.js';

const render = (errs: readonly FieldError[]): string[] => errs.map(renderFieldError);

function slice(change: (s: EndpointSlice) => void = () => undefined): EndpointSlice {
  const s: EndpointSlice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'web-abc12', namespace: 'default', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.244.1.5'], conditions: { ready: true }, nodeName: 'node-a' }],
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  };
  change(s);
  return defaultEndpointSlice(s);
}

describe('validateEndpointSlice', () => {
  it('accepts a controller-made slice, and null endpoints and ports', () => {
    expect(validateEndpointSlice(slice())).toEqual([]);
    expect(
      validateEndpointSlice(
        slice((s) => {
          s.endpoints = null;
          s.ports = null;
        }),
      ),
    ).toEqual([]);
  });

  it('checks addresses against the address type, with both IP checks', () => {
    expect(render(validateEndpointSlice(slice((s) => (s.endpoints = [{ addresses: ['fd00::1', '127.0.0.1'] }]))))).toEqual([
      'endpoints[0].addresses[0]: Invalid value: "fd00::1": must be a valid IPv4 address',
      'endpoints[0].addresses[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    ]);
    expect(render(validateEndpointSlice(slice((s) => (s.endpoints = [{ addresses: ['not-an-ip'] }]))))).toEqual([
      'endpoints[0].addresses[0]: Invalid value: "not-an-ip": must be a valid IPv4 address',
      'endpoints[0].addresses[0]: Invalid value: "not-an-ip": must be a valid IP address',
    ]);
  });

  it('checks FQDN addresses as IsFullyQualifiedDomainName does', () => {
    const fqdn = (address: string): string[] =>
      render(
        validateEndpointSlice(
          slice((s) => {
            s.addressType = 'FQDN';
            s.endpoints = [{ addresses: [address] }];
          }),
        ),
      );
    expect(fqdn('db.example.com.')).toEqual([]);
    expect(fqdn('localhost')).toEqual([
      'endpoints[0].addresses[0]: Invalid value: "localhost": should be a domain with at least two segments separated by dots',
    ]);
  });

  it('reports the address type, empty endpoints, and the limits', () => {
    expect(render(validateEndpointSlice(slice((s) => (s.addressType = 'IP'))))).toEqual([
      'addressType: Unsupported value: "IP": supported values: "FQDN", "IPv4", "IPv6"',
    ]);
    expect(render(validateEndpointSlice(slice((s) => (s.endpoints = [{ addresses: [] }]))))).toEqual([
      'endpoints[0].addresses: Required value: must contain at least 1 address',
    ]);
    const many = Array.from({ length: 1001 }, () => ({ addresses: ['10.0.0.1'] }));
    expect(render(validateEndpointSlice(slice((s) => (s.endpoints = many))))).toEqual([
      'endpoints: Too many: 1001: must have at most 1000 items',
    ]);
    const ports = Array.from({ length: 20001 }, (_, i) => ({ name: `p${i}`, port: 1, protocol: 'TCP' }));
    expect(render(validateEndpointSlice(slice((s) => (s.ports = ports))))).toEqual([
      'ports: Too many: 20001: must have at most 20000 items',
    ]);
  });

  it('counts two unnamed ports as duplicates and checks protocols', () => {
    expect(
      render(
        validateEndpointSlice(
          slice(
            (s) =>
              (s.ports = [
                { port: 80, protocol: 'TCP' },
                { port: 81, protocol: 'HTTP' },
              ]),
          ),
        ),
      ),
    ).toEqual([
      'ports[1].name: Duplicate value: ""',
      'ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    ]);
  });

  it('checks nodeName, deprecatedTopology, hostname and zone hints', () => {
    const errs = validateEndpointSlice(
      slice(
        (s) =>
          (s.endpoints = [
            {
              addresses: ['10.0.0.1'],
              nodeName: 'Node_A',
              deprecatedTopology: { 'topology.kubernetes.io/zone': 'a' },
              hostname: 'web.0',
              hints: { forZones: [{ name: 'zone-a' }, { name: 'zone-a' }] },
            },
          ]),
      ),
    );
    expect(errs.map((e) => e.field)).toEqual([
      'endpoints[0].nodeName',
      'endpoints[0].deprecatedTopology[topology.kubernetes.io/zone]',
      'endpoints[0].hostname',
      'endpoints[0].hints.forZones[1].name',
    ]);
    expect(render(errs).slice(1)).toEqual([
      'endpoints[0].deprecatedTopology[topology.kubernetes.io/zone]: Internal error: reserved key was not removed in conversion',
      'endpoints[0].hostname: Invalid value: "web.0": must not contain dots',
      'endpoints[0].hints.forZones[1].name: Duplicate value: "zone-a"',
    ]);
  });

  it('prints the qualified kind in the 422 message', () => {
    const bad = slice((s) => (s.endpoints = [{ addresses: ['169.254.169.254'] }]));
    expect(invalidMessage(bad, validateEndpointSlice(bad))).toBe(
      'EndpointSlice.discovery.k8s.io "web-abc12" is invalid: endpoints[0].addresses[0]: Invalid value: "169.254.169.254": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
    );
  });
});

describe('validateEndpointSliceUpdate', () => {
  it('keeps the address type fixed', () => {
    const old = slice();
    const next = slice((s) => {
      s.addressType = 'IPv6';
      s.endpoints = [{ addresses: ['fd00::1'] }];
    });
    expect(render(validateEndpointSliceUpdate(next, old))).toEqual(['addressType: Invalid value: "IPv6": field is immutable']);
  });
});
