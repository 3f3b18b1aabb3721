// INV-NFT-TEXT: generateNftablesRules writes its text straight into bytes, without the
// operation values; the text must be exactly the printed transaction (model/print.ts, knftables'
// writeOperation), its stats exactly what the operations make, and a buffer kept from one call
// to the next must give the bytes a fresh one gives.
import { fc, test } from '@fast-check/vitest';
import { endpointSliceArb, proxierClusterArb, serviceArb } from '@kubesvc/testkit';
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { expect } from 'vitest';
import { nftablesProxierConfig } from '../config.js';
import { printTransaction } from '../model/print.js';
import { generateNftablesRules, transactionStats } from './generate.js';
import { NftTextBuffer } from './text-buffer.js';

const NODE_NAME = 'test-node';

const runArb = fc.constantFrom<4 | 6>(4, 6).chain((family) =>
  fc.record({
    family: fc.constant(family),
    detector: fc.boolean(),
    masqueradeAll: fc.boolean(),
    nodePorts: fc.boolean(),
    clusters: fc.array(proxierClusterArb(serviceArb(), endpointSliceArb(), family, NODE_NAME), { minLength: 1, maxLength: 3 }),
  }),
);

test.prop([runArb], { numRuns: 40 })(
  'INV-NFT-TEXT: the first sync text written directly is the printed transaction, its stats those of the operations, and a reused buffer writes what a fresh one writes',
  ({ family, detector, masqueradeAll, nodePorts, clusters }) => {
    const config = nftablesProxierConfig({
      nodeName: NODE_NAME,
      nodeIPs: family === 4 ? ['127.0.0.1', '192.168.0.2'] : ['::1', '2001:db8::2'],
      family,
      localDetector: detector ? { kind: 'cidr', cidr: family === 4 ? '10.244.0.0/16' : 'fd00:10:244::/64' } : { kind: 'none' },
      masqueradeAll,
      nodePortAddresses: nodePorts ? [family === 4 ? '192.168.0.0/24' : '2001:db8::/64'] : [],
    });
    if (!config.ok) throw new Error(config.error.message);
    // A small buffer, so that the texts grow it.
    const kept = new NftTextBuffer(16);
    for (const cluster of clusters) {
      const fresh = generateNftablesRules(cluster.services, cluster.slices, config.value);
      const printed = printTransaction(fresh.transaction);
      if (!printed.ok) throw new Error(printed.error.message);
      expect(fresh.text).toBe(printed.value);
      expect(new TextDecoder().decode(fresh.bytes)).toBe(printed.value);
      expect(fresh.stats).toEqual(transactionStats(fresh.transaction.operations));
      const reused = generateNftablesRules(cluster.services, cluster.slices, config.value, { buffer: kept });
      expect(reused.bytes).toEqual(fresh.bytes);
      expect(reused.text).toBe(printed.value);
    }
  },
);

test('the text of a result whose buffer a later call wrote over is refused, not another text', () => {
  const config = nftablesProxierConfig({ nodeName: NODE_NAME, nodeIPs: ['192.168.0.2'] });
  if (!config.ok) throw new Error(config.error.message);
  const kept = new NftTextBuffer();
  const first = generateNftablesRules([], [], config.value, { buffer: kept });
  generateNftablesRules([], [], config.value, { buffer: kept });
  expect(() => first.text).toThrow(/written over/);
  const read = generateNftablesRules([], [], config.value, { buffer: kept });
  expect(read.text.startsWith('add table ip kube-proxy { comment "rules for kube-proxy" ; }\n')).toBe(true);
});

test('a Service listed twice, and names whose chains could be read as another\'s, make each chain once: the text is the printed transaction', () => {
  const config = nftablesProxierConfig({ nodeName: NODE_NAME, nodeIPs: ['192.168.0.2'] });
  if (!config.ok) throw new Error(config.error.message);
  const service = (name: string, portName: string): Service => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'ns', name },
    spec: { clusterIP: '10.96.0.10', ports: [{ name: portName, port: 80, protocol: 'TCP' }] },
  });
  const slice = (name: string, portName: string): EndpointSlice => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'ns', name: `${name}-0`, labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.244.0.5'], conditions: { ready: true }, nodeName: 'node-2' }],
    ports: [{ name: portName, port: 8080, protocol: 'TCP' }],
  });
  for (const [services, slices] of [
    [[service('web', 'http'), service('web', 'http')], [slice('web', 'http')]],
    [[service('a_', 'p__x'), service('a', 'p')], [slice('a_', 'p__x'), slice('a', 'p')]],
  ] as const) {
    const rules = generateNftablesRules(services, slices, config.value);
    const printed = printTransaction(rules.transaction);
    if (!printed.ok) throw new Error(printed.error.message);
    expect(rules.text).toBe(printed.value);
    const added = rules.text.split('\n').filter((line) => line.startsWith('add chain ip kube-proxy endpoint-'));
    expect(new Set(added).size).toBe(added.length);
  }
});
