// INV-NFT-FOLLOW: a partial sync that follows the change (sync-index.ts: only the Services
// whose objects changed are derived and written) writes exactly what the general path writes
// (every Service walked, as upstream's syncProxyRules walks them). A run is a first cluster and
// steps that each replace, add or remove some of the last step's Services and EndpointSlices
// with generated ones (so that most objects are the same objects from one step to the next, as
// an informer's lists are), with the clock moved on by up to 1.5 s so that stale chains are
// deleted along the way. One proxier is given the same config every time (the partial path
// follows the change); the other a copy of it at every sync, which the index does not take as
// its own, so that it takes the general path. Every sync must give both the same text, the
// same full/partial choice, the same stale chains and no-local-endpoint counts, and tables
// that dump the same.
import { fc, test } from '@fast-check/vitest';
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { endpointSliceArb, proxierClusterArb, serviceArb } from '@kubesvc/testkit';
import { expect } from 'vitest';
import { nftablesProxierConfig, type NftablesProxierConfig } from '../config.js';
import { dumpTransaction } from '../model/dump.js';
import { printTransaction } from '../model/print.js';
import type { NftTable } from '../model/types.js';
import { INITIAL_NFTABLES_SYNC_STATE, syncNftables, type NftablesSync, type NftablesSyncState } from './sync.js';

const NODE_NAME = 'test-node';

interface Cluster {
  readonly services: readonly Service[];
  readonly slices: readonly EndpointSlice[];
}

/** An edit of one list: per position keep, replace by the fresh list's element there, or drop; then append some fresh ones. */
interface Edit {
  readonly choices: readonly (0 | 1 | 2)[];
  readonly append: number;
}

const editArb: fc.Arbitrary<Edit> = fc.record({
  choices: fc.array(fc.constantFrom<0 | 1 | 2>(0, 0, 0, 1, 2), { maxLength: 12 }),
  append: fc.nat({ max: 2 }),
});

function edited<T>(last: readonly T[], fresh: readonly T[], edit: Edit): T[] {
  const out: T[] = [];
  last.forEach((item, i) => {
    const choice = edit.choices[i] ?? 0;
    const other = fresh[i];
    if (choice === 0 || (choice === 1 && other === undefined)) out.push(item);
    else if (choice === 1 && other !== undefined) out.push(other);
  });
  out.push(...fresh.slice(last.length, last.length + edit.append));
  return out;
}

function configOf(family: 4 | 6, detector: boolean, masqueradeAll: boolean): NftablesProxierConfig {
  const result = nftablesProxierConfig({
    nodeName: NODE_NAME,
    nodeIPs: family === 4 ? ['127.0.0.1', '192.168.0.2'] : ['::1', '2001:db8::2'],
    family,
    localDetector: detector ? { kind: 'cidr', cidr: family === 4 ? '10.244.0.0/16' : 'fd00:10:244::/64' } : { kind: 'none' },
    masqueradeAll,
    serviceCIDRs: ['10.96.0.0/12', 'fd00:10:96::/112'],
  });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

const runArb = fc.constantFrom<4 | 6>(4, 6).chain((family) => {
  const clusterArb = proxierClusterArb(serviceArb(), endpointSliceArb(), family, NODE_NAME);
  return fc.record({
    family: fc.constant(family),
    detector: fc.boolean(),
    masqueradeAll: fc.boolean(),
    first: clusterArb,
    steps: fc.array(fc.record({ fresh: clusterArb, services: editArb, slices: editArb, wait: fc.integer({ min: 0, max: 1500 }) }), { minLength: 1, maxLength: 5 }),
  });
});

function dumped(table: NftTable | undefined): string {
  if (table === undefined) return '';
  const printed = printTransaction(dumpTransaction(table));
  if (!printed.ok) throw new Error(printed.error.message);
  return printed.value;
}

function synced(state: NftablesSyncState, cluster: Cluster, config: NftablesProxierConfig, now: number): NftablesSync {
  const result = syncNftables(state, cluster.services, cluster.slices, config, { now });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

test.prop([runArb], { numRuns: 120 })(
  'INV-NFT-FOLLOW: a partial sync that follows the change writes what the general path writes, sync after sync',
  ({ family, detector, masqueradeAll, first, steps }) => {
    const config = configOf(family, detector, masqueradeAll);
    let following = INITIAL_NFTABLES_SYNC_STATE;
    let general = INITIAL_NFTABLES_SYNC_STATE;
    let cluster: Cluster = first;
    let now = 0;
    const compare = (at: string): void => {
      const a = synced(following, cluster, config, now);
      const b = synced(general, cluster, { ...config }, now);
      expect(a.text, at).toBe(b.text);
      expect(a.full, at).toBe(b.full);
      expect([...a.state.staleChains], at).toEqual([...b.state.staleChains]);
      expect(a.noLocalEndpoints, at).toEqual(b.noLocalEndpoints);
      expect(dumped(a.state.table), at).toBe(dumped(b.state.table));
      following = a.state;
      general = b.state;
    };
    compare('first sync');
    steps.forEach((step, i) => {
      cluster = { services: edited(cluster.services, step.fresh.services, step.services), slices: edited(cluster.slices, step.fresh.slices, step.slices) };
      now += step.wait;
      compare(`step ${i + 1}`);
      // Nothing changed: only the stale chains' flushes again.
      now += 10;
      compare(`step ${i + 1}, again`);
    });
  },
);

test('lists changed in place between syncs are followed: the index keeps copies of the arrays, not the caller\'s', () => {
  const config = configOf(4, true, false);
  const service = (i: number, port: number): Service => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'ns', name: `svc${i}` },
    spec: { clusterIP: `10.96.0.${i + 1}`, ports: [{ name: 'p80', port, protocol: 'TCP' }] },
  });
  const services = [service(0, 80), service(1, 80)];
  const first = synced(INITIAL_NFTABLES_SYNC_STATE, { services, slices: [] }, config, 0);
  services[1] = service(1, 81);
  const next = synced(first.state, { services, slices: [] }, config, 10);
  expect(next.full).toBe(false);
  expect(next.text).toBe(
    'add element ip kube-proxy no-endpoint-services { 10.96.0.2 . tcp . 81 comment "ns/svc1:p80" : goto reject-chain }\n' +
      'delete element ip kube-proxy no-endpoint-services { 10.96.0.2 . tcp . 80 }\n',
  );
});

test('stale chains are flushed in the table\'s order, whichever sync made them stale: as the general path flushes them', () => {
  const config = configOf(4, false, false);
  const service = (i: number): Service => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'ns', name: `svc${i}` },
    spec: { clusterIP: `10.96.0.${i + 1}`, ports: [{ name: 'p80', port: 80, protocol: 'TCP' }] },
  });
  const slice = (i: number): EndpointSlice => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'ns', name: `svc${i}-0`, labels: { 'kubernetes.io/service-name': `svc${i}` } },
    addressType: 'IPv4',
    endpoints: [{ addresses: [`10.244.0.${i + 1}`], conditions: { ready: true }, nodeName: 'node-2' }],
    ports: [{ name: 'p80', port: 8080, protocol: 'TCP' }],
  });
  const services = [service(0), service(1)];
  const slices = [slice(0), slice(1)];
  // svc1 goes first, then svc0 (whose chains the table holds before svc1's).
  const steps: Cluster[] = [{ services, slices }, { services: [services[0] as Service], slices: [slices[0] as EndpointSlice] }, { services: [], slices: [] }];
  let following = INITIAL_NFTABLES_SYNC_STATE;
  let general = INITIAL_NFTABLES_SYNC_STATE;
  const flushes: string[][] = [];
  steps.forEach((cluster, i) => {
    const a = synced(following, cluster, config, i * 10);
    const b = synced(general, cluster, { ...config }, i * 10);
    expect(a.text).toBe(b.text);
    flushes.push(a.text.split('\n').filter((line) => line.startsWith('flush chain')).map((line) => line.split(' ')[4] ?? ''));
    following = a.state;
    general = b.state;
  });
  expect(flushes[2]?.map((chain) => chain.split('-')[2] ?? '')).toEqual(['ns/svc0/tcp/p80__10.244.0.1/8080', 'ns/svc0/tcp/p80', 'ns/svc1/tcp/p80__10.244.0.2/8080', 'ns/svc1/tcp/p80']);
});
