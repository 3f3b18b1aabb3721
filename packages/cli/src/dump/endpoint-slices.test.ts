// Endpoints stand in for a missing EndpointSlice as the mirroring controller makes them.
// upstream: pkg/controller/endpointslicemirroring/utils.go (addressToEndpoint: Ready is true
// for addresses, false for notReadyAddresses; one slice per subset and address type).
import type { EndpointSlice, Endpoints } from '@kubesvc/api-types';
import { describe, expect, test } from 'vitest';
import { endpointSlicesForProxy, mirrorEndpoints } from './endpoint-slices.js';

const endpoints: Endpoints = {
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { namespace: 'shop', name: 'web' },
  subsets: [
    {
      addresses: [{ ip: '10.244.1.5', nodeName: 'node-2' }, { ip: 'fd00::5' }],
      notReadyAddresses: [{ ip: '10.244.2.7', hostname: 'web-1' }],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    },
  ],
};

describe('mirrorEndpoints', () => {
  test('one slice per address type, ready and not-ready addresses with their conditions, labelled for the Service', () => {
    const slices = mirrorEndpoints(endpoints);
    expect(slices.map((s) => s.addressType)).toEqual(['IPv4', 'IPv6']);
    const [v4] = slices;
    expect(v4?.metadata.labels).toEqual({ 'kubernetes.io/service-name': 'web' });
    expect(v4?.endpoints).toEqual([
      { addresses: ['10.244.1.5'], conditions: { ready: true }, nodeName: 'node-2' },
      { addresses: ['10.244.2.7'], conditions: { ready: false }, hostname: 'web-1' },
    ]);
    expect(v4?.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
  });

  test('a Service that has an EndpointSlice keeps it alone; one without gets the mirrored slices', () => {
    const slice: EndpointSlice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { namespace: 'shop', name: 'web-abc', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      endpoints: [],
    };
    expect(endpointSlicesForProxy({ endpointSlices: [slice], endpoints: [endpoints] })).toEqual([slice]);
    expect(endpointSlicesForProxy({ endpointSlices: [], endpoints: [endpoints] })).toHaveLength(2);
  });
});
