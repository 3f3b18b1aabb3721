// A render in the kernel is split into text sessions of at most SESSION_CHAINS chains, each
// packed into the state's blocks as it ends (sinks.ts, renderWithKernel). The sessions change
// where the state's bytes lie, never the bytes: a first sync over several sessions, and the
// syncs after it, write what the same syncs write without the kernel (the string printers).
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { validConfig, withoutKernel } from '../proxier-config.fixtures.js';
import { sync, type SyncResult } from './index.js';
import { SESSION_CHAINS } from './sinks.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

function ip(base: number, n: number): string {
  const v = base + n;
  return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

/** Service i with m ready endpoints on other nodes (one port), its port `port`. */
function serviceOf(i: number, port: number): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'ns', name: `svc${i}` },
    spec: { type: 'ClusterIP', clusterIP: ip((172 << 24) | (30 << 16), i + 1), ports: [{ name: 'p80', port, targetPort: 8080, protocol: 'TCP' }] },
  };
}

function sliceOf(i: number, m: number, first: number): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'ns', name: `svc${i}-0`, labels: { 'kubernetes.io/service-name': `svc${i}` } },
    addressType: 'IPv4',
    endpoints: Array.from({ length: m }, (_, j) => ({ addresses: [ip(10 << 24, first + j + 1)], conditions: { ready: true }, nodeName: `node-${j % 50}` })),
    ports: [{ name: 'p80', port: 8080, protocol: 'TCP' }],
  };
}

/** `n` services of `m` endpoints, and then one of `big` endpoints (more chains than a session takes on its own). */
function clusterOf(n: number, m: number, big: number): { services: Service[]; slices: EndpointSlice[]; chains: number } {
  const services: Service[] = [];
  const slices: EndpointSlice[] = [];
  for (let i = 0; i < n; i++) {
    services.push(serviceOf(i, 80));
    slices.push(sliceOf(i, m, i * m));
  }
  services.push(serviceOf(n, 80));
  slices.push(sliceOf(n, big, n * m));
  return { services, slices, chains: n * (4 + m) + 4 + big };
}

const CONFIG = validConfig({ nodeName: 'test-hostname', nodeIPs: ['192.168.0.2'], localDetector: { kind: 'cidr', cidr: '10.0.0.0/8' } });

const textOf = (result: SyncResult): string => decoder.decode(result.restoreBytes);

describe('a render in several kernel sessions', () => {
  it('writes the bytes the string printers write: a first sync, a partial sync after a Service changed in a later session, a full resync', () => {
    const { services, slices, chains } = clusterOf(1500, 12, SESSION_CHAINS + 100);
    // Two sessions or more for the 1500 services, and one of its own for the large one.
    expect(chains - (SESSION_CHAINS + 104)).toBeGreaterThan(SESSION_CHAINS);
    expect(CONFIG.kernel).toBeDefined();
    const plain = withoutKernel(CONFIG);

    const first = sync(undefined, services, slices, CONFIG);
    const firstPlain = sync(undefined, services, slices, plain);
    expect(first.stats.bytes).toBe(firstPlain.stats.bytes);
    expect(textOf(first)).toBe(textOf(firstPlain));

    // Service 1400 lies in a later session than the first: its port changes, and the big one's slice loses an endpoint.
    const changedServices = services.map((s, i) => (i === 1400 ? serviceOf(1400, 81) : s));
    const changedSlices = slices.map((s, i) => (i === 1500 ? sliceOf(1500, SESSION_CHAINS + 99, 1500 * 12) : s));
    const partial = sync(first.state, changedServices, changedSlices, CONFIG);
    const partialPlain = sync(firstPlain.state, changedServices, changedSlices, plain);
    expect(textOf(partial)).toContain('-A KUBE-SERVICES -m comment --comment "ns/svc1400:p80 cluster IP" -m tcp -p tcp -d 172.30.5.121 --dport 81 ');
    expect(textOf(partial)).toBe(textOf(partialPlain));

    const full = sync(partial.state, changedServices, changedSlices, CONFIG, { full: true });
    expect(textOf(full)).toBe(textOf(sync(partialPlain.state, changedServices, changedSlices, plain, { full: true })));
    expect(textOf(full)).toBe(textOf(sync(undefined, changedServices, changedSlices, plain)));
  });
});
