// The EndpointsAdapter's mirroring, against upstream's endpointsadapter.go (v1.21–v1.26):
// endpointSliceFromEndpoints and EnsureEndpointSliceFromEndpoints. Expected slices are written
// out by hand from that code.
import type { EndpointSlice, Endpoints } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { endpointPortsEqual, endpointSliceFor, endpointSliceWrites, repackPortedSubsets } from './endpoints-adapter.js';

function ep(subsets: Endpoints['subsets']): Endpoints {
  return { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'kubernetes', namespace: 'default', resourceVersion: '7' }, ...(subsets === undefined ? {} : { subsets }) };
}

const https = { name: 'https', port: 6443, protocol: 'TCP' as const };
const meta = { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } };

describe('endpointSliceFor', () => {
  it('IPv4: one ready endpoint per address, the ports of the subset, the service-name label only', () => {
    expect(endpointSliceFor(ep([{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [https] }]))).toEqual({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: meta,
      addressType: 'IPv4',
      endpoints: [
        { addresses: ['10.0.0.1'], conditions: { ready: true } },
        { addresses: ['10.0.0.2'], conditions: { ready: true } },
      ],
      ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
    });
  });

  it('IPv6 only when every address, ready or not, is IPv6', () => {
    expect(endpointSliceFor(ep([{ addresses: [{ ip: 'fd00::1' }], notReadyAddresses: [{ ip: 'fd00::2' }], ports: [https] }]))).toMatchObject({
      addressType: 'IPv6',
      endpoints: [
        { addresses: ['fd00::1'], conditions: { ready: true } },
        { addresses: ['fd00::2'], conditions: { ready: false } },
      ],
    });
  });

  it('mixed families: IPv4, and the IPv6 addresses are left out', () => {
    const s = endpointSliceFor(ep([{ addresses: [{ ip: 'fd00::1' }, { ip: '10.0.0.1' }], ports: [https] }]));
    expect(s.addressType).toBe('IPv4');
    expect(s.endpoints).toEqual([{ addresses: ['10.0.0.1'], conditions: { ready: true } }]);
  });

  it('an IPv4-mapped IPv6 literal counts as IPv4, as in Go', () => {
    expect(endpointSliceFor(ep([{ addresses: [{ ip: '::ffff:10.0.0.1' }], ports: [https] }])).addressType).toBe('IPv4');
  });

  it('no subsets: IPv4, and null endpoints and ports (Go leaves them nil)', () => {
    expect(endpointSliceFor(ep(undefined))).toEqual({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: meta, addressType: 'IPv4', endpoints: null, ports: null });
  });

  it('carries targetRef and nodeName; an unnamed port gets name "" and the defaulted protocol', () => {
    const s = endpointSliceFor(ep([{ addresses: [{ ip: '10.0.0.1', nodeName: 'n1', targetRef: { kind: 'Pod', name: 'p', uid: 'u' } }], ports: [{ port: 80 }] }]));
    expect(s.endpoints).toEqual([{ addresses: ['10.0.0.1'], conditions: { ready: true }, nodeName: 'n1', targetRef: { kind: 'Pod', name: 'p', uid: 'u' } }]);
    expect(s.ports).toEqual([{ name: '', port: 80, protocol: 'TCP' }]);
  });
});

describe('EnsureEndpointSliceFromEndpoints as writes', () => {
  const e = ep([{ addresses: [{ ip: '10.0.0.1' }], ports: [https] }]);
  // Written out, not taken from endpointSliceFor: the mirror of `e`.
  const desired: EndpointSlice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: meta,
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
    ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
  };

  it('a missing slice is created', () => {
    expect(endpointSliceWrites(e, undefined)).toEqual([{ kind: 'create-endpointslice', endpointSlice: desired }]);
  });

  it('an equal slice needs nothing, whatever its other metadata, and [] equals null', () => {
    const current: EndpointSlice = { ...desired, metadata: { ...desired.metadata, resourceVersion: '9', uid: 'x' } };
    expect(endpointSliceWrites(e, current)).toEqual([]);
    const empty = ep([]);
    expect(endpointSliceWrites(empty, { ...desired, endpoints: [], ports: [] })).toEqual([]);
  });

  it('a slice with other endpoints, ports or labels is updated without a precondition', () => {
    for (const current of [
      { ...desired, endpoints: [] },
      { ...desired, ports: [{ name: 'https', port: 443, protocol: 'TCP' as const }] },
      { ...desired, metadata: { ...desired.metadata, labels: { ...desired.metadata.labels, extra: 'x' } } },
      { ...desired, endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: false } }] },
    ]) {
      expect(endpointSliceWrites(e, current)).toEqual([{ kind: 'update-endpointslice', endpointSlice: desired, resourceVersion: undefined }]);
    }
  });

  it('a slice of another addressType is deleted and created again (addressType is immutable)', () => {
    expect(endpointSliceWrites(e, { ...desired, addressType: 'IPv6' })).toEqual([
      { kind: 'delete-endpointslice', namespace: 'default', name: 'kubernetes', resourceVersion: undefined },
      { kind: 'create-endpointslice', endpointSlice: desired },
    ]);
  });
});

describe('EnsureEndpointSliceFromEndpoints: an Endpoints without a namespace', () => {
  it('is read as default: the slice of the wrong addressType is deleted in default', () => {
    const bare: Endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'kubernetes' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [https] }] };
    const slice = endpointSliceFor(bare);
    expect(endpointSliceWrites(bare, { ...slice, addressType: 'IPv6' })[0]).toEqual({
      kind: 'delete-endpointslice',
      namespace: 'default',
      name: 'kubernetes',
      resourceVersion: undefined,
    });
  });
});

describe('endpointPortsEqual (the port check of checkEndpointSubsetFormat)', () => {
  it('no ports (nil) and an empty list are equal, as len(nil) is 0 in Go', () => {
    expect(endpointPortsEqual(undefined, [])).toBe(true);
    expect(endpointPortsEqual(undefined, [https])).toBe(false);
  });
});

describe('repackPortedSubsets (the reconcilers\' repack of the kubernetes Endpoints)', () => {
  it('addresses without ports vanish; empty input gives no subsets', () => {
    const p = { name: 'p', port: 111, protocol: 'TCP' as const };
    expect(repackPortedSubsets([{ addresses: [{ ip: '1.1.1.1' }] }])).toEqual([]);
    expect(repackPortedSubsets([{ addresses: [], ports: [p] }])).toEqual([]);
    expect(repackPortedSubsets([])).toEqual([]);
    expect(repackPortedSubsets([{ addresses: [{ ip: '2.2.2.2' }] }, { addresses: [{ ip: '1.1.1.1' }], ports: [p] }])).toEqual([{ addresses: [{ ip: '1.1.1.1' }], ports: [p] }]);
  });
});
