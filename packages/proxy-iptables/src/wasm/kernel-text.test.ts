// The WebAssembly kernel prints exactly what the string printers print: generateRules and a
// first sync give the same text and stats with the kernel and without it (a config without a
// kernel takes the string paths), for IPv4 endpoints it prints from their values, IPv4 text that is
// not canonical (leading zeros, printed by the text path), IPv6 (bracketed `[ip]:port`), ports
// it cannot take as numbers, and local endpoints (the KUBE-SVL- chain's load balancing over a
// subset of the endpoints).
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { generateRules } from '../backend.js';
import { clusterArb, configArb, NODE, type Cluster } from '../generated-clusters.fixtures.js';
import { TEST_KERNEL, validConfig, withKernel as configWithKernel, withoutKernel as configWithoutKernel } from '../proxier-config.fixtures.js';
import type { ProxierConfig } from '../proxier-config.js';
import { sync } from '../backend.js';

function both(services: readonly Service[], slices: readonly EndpointSlice[], config: ProxierConfig) {
  const run = (config: ProxierConfig) => {
    const generated = generateRules(services, slices, config);
    const synced = sync(undefined, services, slices, config);
    return { text: generated.restoreText, stats: generated.stats, syncText: synced.restoreText, syncStats: synced.stats };
  };
  if (TEST_KERNEL === undefined) throw new Error('no WebAssembly kernel in this runtime');
  const withKernel = run(configWithKernel(config, TEST_KERNEL));
  const withoutKernel = run(configWithoutKernel(config));
  return { withKernel, withoutKernel };
}

/** The cluster's endpoint addresses written with leading zeros (010.180.000.007): not canonical, the same IPs. */
function withLeadingZeros(cluster: Cluster): Cluster {
  const pad = (ip: string) => ip.split('.').map((part) => part.padStart(3, '0')).join('.');
  return {
    ...cluster,
    slices: cluster.slices.map((s) => ({ ...s, endpoints: (s.endpoints ?? []).map((e) => ({ ...e, addresses: e.addresses.map(pad) })) })),
  };
}

describe('INV-IPT-WASM-TEXT: the kernel prints what the string printers print', () => {
  it('is there (so this compares two paths)', () => {
    expect(TEST_KERNEL).toBeDefined();
  });

  test.prop([clusterArb, configArb, fc.boolean()])('for generated IPv4 clusters, canonical or with leading zeros, large or not', (cluster, config, zeros) => {
    const input = zeros ? withLeadingZeros(cluster) : cluster;
    const { withKernel, withoutKernel } = both(input.services, input.slices, config);
    expect(withKernel).toEqual(withoutKernel);
  });

  const v6Config = validConfig({ family: 6, nodeName: NODE, nodeIPs: ['fd00::2'], largeClusterThreshold: 1, localDetector: { kind: 'cidr', cidr: 'fd00:10::/64' } });
  const v6Service = (name: string, i: number, type: 'ClusterIP' | 'NodePort'): Service => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'default', name },
    spec: {
      type,
      clusterIP: `fd00:30::${i + 1}`,
      ipFamilies: ['IPv6'],
      ports: [{ name: 'http', port: 80, protocol: 'TCP', ...(type === 'NodePort' ? { nodePort: 30080 + i } : {}) }],
      ...(type === 'NodePort' ? { externalTrafficPolicy: 'Local' as const } : {}),
    },
  });
  const v6Slice = (name: string, addresses: readonly { ip: string; local: boolean; ready: boolean }[], port: number): EndpointSlice => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'default', name: `${name}-1`, labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv6',
    endpoints: addresses.map((a) => ({ addresses: [a.ip], conditions: { ready: a.ready }, nodeName: a.local ? NODE : 'node-b' })),
    ports: [{ name: 'http', port, protocol: 'TCP' }],
  });

  test.prop([
    fc.array(
      fc.record(
        {
          type: fc.constantFrom<'ClusterIP' | 'NodePort'>('ClusterIP', 'NodePort'),
          endpoints: fc.uniqueArray(
            fc.record({ host: fc.integer({ min: 1, max: 0xffff }), local: fc.boolean(), ready: fc.boolean() }, { noNullPrototype: true }),
            { maxLength: 6, selector: (e) => e.host },
          ),
          port: fc.constantFrom(8080, 70000),
        },
        { noNullPrototype: true },
      ),
      { maxLength: 4 },
    ),
  ])('for IPv6 endpoints (bracketed) and ports beyond 65535, with local endpoints', (specs) => {
    const services = specs.map((s, i) => v6Service(`svc${i}`, i, s.type));
    const slices = specs.map((s, i) =>
      v6Slice(
        `svc${i}`,
        s.endpoints.map((e) => ({ ip: `fd00:10::${e.host.toString(16)}`, local: e.local, ready: e.ready })),
        s.port,
      ),
    );
    const { withKernel, withoutKernel } = both(services, slices, v6Config);
    expect(withKernel).toEqual(withoutKernel);
  });
});

describe('INV-IPT-WASM-TEXT at the size of a large cluster', () => {
  // 1,000 Services of 10 endpoints: the chain declarations (420 kB) are longer than the room
  // left before them, so the text's head lands where they were before they are moved.
  const ip = (n: number): string => `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
  const services: Service[] = [];
  const slices: EndpointSlice[] = [];
  for (let i = 0; i < 1000; i++) {
    services.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'ns', name: `svc${i}` },
      spec: { type: 'ClusterIP', clusterIP: ip((172 << 24) + (30 << 16) + i + 1), ports: [{ name: 'p80', port: 80, protocol: 'TCP' }] },
    });
    slices.push({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { namespace: 'ns', name: `svc${i}-0`, labels: { 'kubernetes.io/service-name': `svc${i}` } },
      addressType: 'IPv4',
      endpoints: Array.from({ length: 10 }, (_, j) => ({ addresses: [ip((10 << 24) + (128 << 16) + i * 10 + j + 1)], conditions: { ready: true }, nodeName: `node-${j}` })),
      ports: [{ name: 'p80', port: 8080, protocol: 'TCP' }],
    });
  }
  const config = validConfig({ nodeName: 'test-hostname', nodeIPs: ['192.168.0.2'], localDetector: { kind: 'cidr', cidr: '10.0.0.0/8' }, localhostNodePorts: false });

  it('prints 1000×10 as the string printers do, in generateRules and a first sync', () => {
    const { withKernel, withoutKernel } = both(services, slices, config);
    expect(withKernel.text.length).toBeGreaterThan(3_000_000);
    expect(withKernel.text).toBe(withoutKernel.text);
    expect(withKernel.syncText).toBe(withoutKernel.syncText);
    expect(withKernel).toEqual(withoutKernel);
  });
});
