// The KUBE-SEP- names of a service port's endpoints, kept in one string per service port.
import { fc, test } from '@fast-check/vitest';
import { endpointsMap, servicePortKey } from '@kubesvc/proxy';
import { describe, expect } from 'vitest';
import { endpointChain, endpointChainHashes, joinChainHashes, sepNameAt } from './endpoint-chains.js';
import { TEST_KERNEL } from './proxier-config.fixtures.js';
import { servicePortInfos } from './service-ports.js';
import { makeService, makeSlice } from './upstream.fixtures.js';

describe('INV-IPT-NAMES: endpointChainHashes keeps every endpoint chain name of a service port in one string', () => {
  // IPv4 (canonical and with leading zeros) and IPv6 endpoints; a namespace and a name of up
  // to 63 characters each put some hash messages past what the kernel takes (119 bytes), which
  // are then hashed one by one.
  const label = fc.stringMatching(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/);
  const caseArb = fc.record({
    namespace: label,
    name: label,
    v6: fc.boolean(),
    zeros: fc.boolean(),
    port: fc.integer({ min: 1, max: 65535 }),
    hosts: fc.uniqueArray(fc.integer({ min: 1, max: 65534 }), { minLength: 1, maxLength: 40 }),
    kernel: fc.boolean(),
  });
  test.prop([caseArb])('sepNameAt(hashes, i) is endpointChain of endpoint i, with the kernel and without', ({ namespace, name, v6, zeros, port, hosts, kernel }) => {
    const address = (h: number) =>
      v6 ? `fd00:10::${h.toString(16)}` : zeros ? `010.001.${String(h >> 8).padStart(3, '0')}.${String(h & 255).padStart(3, '0')}` : `10.1.${h >> 8}.${h & 255}`;
    const slice = makeSlice(namespace, name, 1, v6 ? 'IPv6' : 'IPv4', hosts.map((h) => ({ addresses: [address(h)] })), [{ name: 'p', port, protocol: 'TCP' }]);
    const [info] = servicePortInfos(makeService(namespace, name, { clusterIP: v6 ? 'fd00:30::1' : '10.0.0.1', ports: [{ name: 'p', port: 80 }] }), v6 ? 6 : 4);
    if (info === undefined) throw new Error('no service port');
    const endpoints = endpointsMap([slice], v6 ? 6 : 4, 'node').get(servicePortKey(namespace, name, 'p', 'tcp')) ?? [];
    expect(endpoints).toHaveLength(hosts.length);
    const hashes = endpointChainHashes(kernel ? TEST_KERNEL : undefined, info, endpoints);
    expect(hashes).toHaveLength(16 * endpoints.length);
    expect(endpoints.map((_, i) => sepNameAt(hashes, i))).toEqual(endpoints.map((ep) => endpointChain(info, ep)));
    expect(joinChainHashes(endpoints.map((ep) => endpointChain(info, ep)))).toBe(hashes);
  });
});
