// INV-NODE-CONVERGE: whatever Service and EndpointSlice churn goes through the registry, with the
// clock moving between writes so that syncs and rebuilds happen at arbitrary points, once the
// agent has caught up its rules.txt is proxy-iptables' full render (generateRules) of the final
// objects, and its DNS zone answers every question as a zone freshly built from them does.
// INV-NODE-CONVERGE-NFT: the same churn in nftables mode; once caught up, ruleset.nft holds the
// table a fresh proxier's first sync of the final objects makes, but for the chains the last
// syncs flushed and keep, empty, until their grace period is over.
import { fc, test } from '@fast-check/vitest';
import { readFileSync } from 'node:fs';
import { parseIP, type EndpointSlice, type Namespace, type Service } from '@kubesvc/api-types';
import { buildZone, resolve, reverseName, type Question, type Zone } from '@kubesvc/discovery';
import { generateRules } from '@kubesvc/proxy-iptables';
import { INITIAL_NFTABLES_SYNC_STATE, printTransaction, syncNftables } from '@kubesvc/proxy-nftables';
import { expect } from 'vitest';
import { virtualClock } from '@kubesvc/store';
import type { VirtualClock } from '@kubesvc/store';
import { startNodeAgent } from './node-agent.js';
import { loadableDump } from './nftables-proxy.js';
import { must, openTestCluster, type TestCluster } from './node-agent.fixtures.js';

const NAMES = ['web', 'db'] as const;
const IPS = ['10.244.1.5', '10.244.1.6', '10.244.2.7', '10.244.3.8'] as const;
type Name = (typeof NAMES)[number];
type Kind = 'ClusterIP' | 'NodePort' | 'Headless' | 'ExternalName';

type Command =
  | { readonly op: 'service'; readonly name: Name; readonly kind: Kind; readonly named: boolean; readonly affinity: boolean }
  | { readonly op: 'delete-service'; readonly name: Name }
  | { readonly op: 'slice'; readonly name: Name; readonly slice: 0 | 1; readonly ips: readonly { ip: string; ready: boolean; local: boolean }[]; readonly named: boolean }
  | { readonly op: 'delete-slice'; readonly name: Name; readonly slice: 0 | 1 }
  | { readonly op: 'tick'; readonly ms: number };

const nameArb = fc.constantFrom(...NAMES);
// Weighted so that most Services have a ClusterIP, most ports match their slices' and most
// endpoints are ready: the states where a lost or stale event would show in the rules.
const kindArb = fc.constantFrom<Kind>('ClusterIP', 'ClusterIP', 'ClusterIP', 'NodePort', 'Headless', 'ExternalName');
const namedArb = fc.constantFrom(true, true, true, false);
const readyArb = fc.constantFrom(true, true, true, false);
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('service' as const), name: nameArb, kind: kindArb, named: namedArb, affinity: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete-service' as const), name: nameArb }) },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('slice' as const),
      name: nameArb,
      slice: fc.constantFrom<0 | 1>(0, 1),
      ips: fc.uniqueArray(fc.record({ ip: fc.constantFrom(...IPS), ready: readyArb, local: fc.boolean() }), { maxLength: 3, selector: (e) => e.ip }),
      named: namedArb,
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete-slice' as const), name: nameArb, slice: fc.constantFrom<0 | 1>(0, 1) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('tick' as const), ms: fc.constantFrom(0, 5, 10, 400, 1000, 2500) }) },
);

function serviceOf(c: Extract<Command, { op: 'service' }>): Service {
  const port = { port: 80, protocol: 'TCP' as const, ...(c.named ? { name: 'http' } : {}) };
  const meta = { name: c.name, namespace: 'default' };
  switch (c.kind) {
    case 'ExternalName':
      return { apiVersion: 'v1', kind: 'Service', metadata: meta, spec: { type: 'ExternalName', externalName: `${c.name}.example.com` } };
    case 'Headless':
      return { apiVersion: 'v1', kind: 'Service', metadata: meta, spec: { clusterIP: 'None', selector: { app: c.name }, ports: [port] } };
    default:
      return {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: meta,
        spec: { type: c.kind, selector: { app: c.name }, ports: [port], ...(c.affinity ? { sessionAffinity: 'ClientIP' as const } : {}) },
      };
  }
}

function sliceOf(c: Extract<Command, { op: 'slice' }>): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `${c.name}-${c.slice}`, namespace: 'default', labels: { 'kubernetes.io/service-name': c.name } },
    addressType: 'IPv4',
    endpoints: c.ips.map((e) => ({ addresses: [e.ip], conditions: { ready: e.ready }, nodeName: e.local ? 'node-1' : 'node-2' })),
    ports: [{ port: 8080, protocol: 'TCP', ...(c.named ? { name: 'http' } : {}) }],
  };
}

/** Every question worth asking of the final objects: each name and address, each type that can answer. */
function questions(services: readonly Service[]): Question[] {
  const out: Question[] = [];
  const names = new Set<string>();
  for (const n of NAMES) names.add(`${n}.default.svc.cluster.local`);
  for (const ip of IPS) names.add(`${ip.replaceAll('.', '-')}.${NAMES[0]}.default.svc.cluster.local`);
  for (const n of names) for (const type of ['A', 'AAAA', 'CNAME', 'SRV', 'TXT']) out.push({ name: n, type });
  for (const n of NAMES) out.push({ name: `_http._tcp.${n}.default.svc.cluster.local`, type: 'SRV' });
  const addresses = new Set<string>(IPS);
  for (const s of services) for (const ip of s.spec?.clusterIPs ?? []) addresses.add(ip);
  for (const text of addresses) {
    const ip = parseIP(text);
    if (ip.ok) out.push({ name: reverseName(ip.value), type: 'PTR' });
  }
  out.push({ name: 'cluster.local', type: 'SOA' }, { name: 'dns-version.cluster.local', type: 'TXT' });
  return out;
}

function freshZone(services: readonly Service[], slices: readonly EndpointSlice[], namespaces: readonly Namespace[], serial: number): Zone {
  // The agent's settings: kubeadm's Corefile (ttl 30, pods insecure), the namespaces that exist.
  const built = buildZone(services, slices, [], { zone: 'cluster.local', ttl: 30, pods: 'insecure', serial, namespaces: namespaces.map((n) => n.metadata.name ?? '') });
  if (!built.ok) throw new Error(built.error.message);
  return built.value;
}

/** Runs the commands through the registry; a `tick` lets the informer catch up, then moves the clock. */
async function churn(cluster: TestCluster, clock: VirtualClock, commands: readonly Command[]): Promise<void> {
  for (const c of commands) {
    switch (c.op) {
      case 'service': {
        const current = await cluster.registry.get<Service>('services', 'default', c.name);
        const wanted = serviceOf(c);
        // A kind change the API refuses (ClusterIP to headless, say) is a refused write: churn all the same.
        if (current.ok) await cluster.registry.update('services', 'default', c.name, { ...wanted, metadata: current.value.metadata, spec: { ...current.value.spec, ...wanted.spec } });
        else await cluster.registry.create('services', 'default', wanted);
        break;
      }
      case 'delete-service':
        await cluster.registry.delete('services', 'default', c.name);
        break;
      case 'slice': {
        const wanted = sliceOf(c);
        if (wanted.endpoints?.length === 0) wanted.endpoints = [];
        const current = await cluster.registry.get<EndpointSlice>('endpointslices', 'default', wanted.metadata.name ?? '');
        if (current.ok) await cluster.registry.update('endpointslices', 'default', wanted.metadata.name ?? '', { ...wanted, metadata: current.value.metadata });
        else await cluster.registry.create('endpointslices', 'default', wanted);
        break;
      }
      case 'delete-slice':
        await cluster.registry.delete('endpointslices', 'default', `${c.name}-${c.slice}`);
        break;
      case 'tick':
        await cluster.informer.waitFor(await cluster.store.revision());
        clock.advance(c.ms);
        break;
    }
  }
}

test.prop([fc.array(commandArb, { minLength: 1, maxLength: 25 })])(
  'INV-NODE-CONVERGE: after any Service and EndpointSlice churn, rules.txt is the full render of the final objects and DNS answers as a fresh zone does',
  async (commands) => {
    const clock = virtualClock(Date.UTC(2026, 0, 1));
    const cluster = await openTestCluster(clock, 'memory');
    const started = await startNodeAgent({
      source: cluster.informer,
      clock,
      nodeName: 'node-1',
      nodeIP: '192.0.2.10',
      clusterCIDR: '10.244.0.0/16',
      dataDir: cluster.dir,
      dnsPort: 0,
    });
    if (!started.ok) throw new Error(started.error.message);
    const agent = started.value;
    try {
      await churn(cluster, clock, commands);
      await cluster.informer.waitFor(await cluster.store.revision());
      // Past any pending token (minSyncPeriod) and the DNS coalescing.
      clock.advance(5_000);
      await agent.idle();

      const services = (await must(cluster.registry.list<Service>('services'))).items;
      const slices = (await must(cluster.registry.list<EndpointSlice>('endpointslices'))).items;
      const namespaces = (await must(cluster.registry.list<Namespace>('namespaces'))).items;
      const config = agent.proxierConfig;
      if (config === undefined) throw new Error('no proxier config');
      expect(readFileSync(agent.iptablesFiles?.rules ?? '', 'utf8')).toBe(generateRules(services, slices, config).restoreText);

      const served = agent.dnsZone();
      if (served === undefined) throw new Error('no zone');
      const fresh = freshZone(services, slices, namespaces, served.serial);
      for (const q of questions(services)) expect({ q, r: resolve(served, q) }).toStrictEqual({ q, r: resolve(fresh, q) });
    } finally {
      await agent.stop();
      await cluster.close();
    }
  },
);

test.prop([fc.array(commandArb, { minLength: 1, maxLength: 25 })])(
  'INV-NODE-CONVERGE-NFT: after any Service and EndpointSlice churn, ruleset.nft is the table a fresh nftables proxier makes of the final objects, but for the flushed chains still in their grace period',
  async (commands) => {
    const clock = virtualClock(Date.UTC(2026, 0, 1));
    const cluster = await openTestCluster(clock, 'memory');
    const started = await startNodeAgent({
      source: cluster.informer,
      clock,
      nodeName: 'node-1',
      nodeIP: '192.0.2.10',
      clusterCIDR: '10.244.0.0/16',
      dataDir: cluster.dir,
      dnsPort: false,
      proxyMode: 'nftables',
      nftables: { serviceCIDRs: ['10.96.0.0/16'] },
    });
    if (!started.ok) throw new Error(started.error.message);
    const agent = started.value;
    try {
      await churn(cluster, clock, commands);
      await cluster.informer.waitFor(await cluster.store.revision());
      // Past any pending token (minSyncPeriod).
      clock.advance(5_000);
      await agent.idle();

      const services = (await must(cluster.registry.list<Service>('services'))).items;
      const slices = (await must(cluster.registry.list<EndpointSlice>('endpointslices'))).items;
      const config = agent.nftablesConfig();
      if (config === undefined) throw new Error('no nftables config');
      const fresh = syncNftables(INITIAL_NFTABLES_SYNC_STATE, services, slices, config, { now: 0 });
      if (!fresh.ok || fresh.value.state.table === undefined) throw new Error('the fresh sync failed');
      const freshText = printTransaction(loadableDump(fresh.value.state.table));
      if (!freshText.ok) throw new Error(freshText.error.message);
      // The stale chains are flushed (no rule left) and named by nothing; a set's elements are
      // listed in the order they were added, so the lines are compared as a set; and an
      // element keeps the comment it was added with (upstream's nftElementStorage compares
      // keys and values, so a port renamed keeps its old comment until a full sync).
      const stale = new Set([...(agent.nftablesState()?.staleChains.keys() ?? [])].map((chain) => `add chain ip kube-proxy ${chain}`));
      const held = readFileSync(agent.nftablesFiles?.ruleset ?? '', 'utf8').split('\n').filter((line) => !stale.has(line));
      expect(withoutElementComments(held).sort()).toStrictEqual(withoutElementComments(freshText.value.split('\n')).sort());
    } finally {
      await agent.stop();
      await cluster.close();
    }
  },
);

/** The lines with each element's comment taken out (`add element … { KEY comment "…" : VALUE }`). */
function withoutElementComments(lines: readonly string[]): string[] {
  return lines.map((line) => (line.startsWith('add element ') ? line.replace(/ comment "(?:[^"\\]|\\.)*"/, '') : line));
}
