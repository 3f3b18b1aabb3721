// upstream: pkg/proxy/util/endpoints_test.go and roundrobin_test.go (TestValidateWorks,
// TestFilterWorks): invalid endpoints are dropped, order is kept.
import type { Endpoints } from '@kubesvc/api-types';
import { expect, it } from 'vitest';
import { buildPortsToEndpointsMap } from './endpoints-map.js';

it('keeps subset, port and address order; skips empty IPs, ports ≤ 0 and not-ready addresses', () => {
  const endpoints: Endpoints = {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { namespace: 'ns', name: 'svc' },
    subsets: [
      {
        addresses: [{ ip: 'foobar' }, { ip: '' }, { ip: 'fd00::1' }],
        notReadyAddresses: [{ ip: '10.0.0.9' }],
        ports: [{ name: 'a', port: 1 }, { name: 'a', port: 2 }, { name: 'a', port: -1 }, { name: 'a', port: 3 }, { port: 0 }],
      },
      { addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 53 }] },
      { ports: [{ name: 'b', port: 9 }] },
    ],
  };
  expect([...buildPortsToEndpointsMap(endpoints)]).toEqual([
    ['a', ['foobar:1', '[fd00::1]:1', 'foobar:2', '[fd00::1]:2', 'foobar:3', '[fd00::1]:3']],
    ['', ['10.0.0.1:53']],
  ]);
});
