// Unit tests of sync: what a partial sync writes, change detection by content, stale-chain
// deletion, the full-sync schedule, the stats (checked against counts taken from the text
// itself and against the line formula kube-proxy v1.26.0 gives for these shapes, in docs/performance.md),
// and persistence. Expected texts are derived from generateRules (the full sync) by upstream's
// rule for partial syncs (pkg/proxy/iptables/proxier.go: the SVC/SVL/EXT/FW/SEP chains of an
// unchanged service go to a discarded buffer, everything else is written).
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { endpointChainName, serviceChainNames } from '../chain-names.js';
import { generateRules } from '../backend.js';
import { type ProxierConfig } from '../proxier-config.js';
import { validConfig } from '../proxier-config.fixtures.js';
import { sync, syncedRuleset, type SyncState } from './index.js';

const PER_SERVICE = /^(?::|-A |-X )KUBE-(?:SVC|SVL|EXT|FW|SEP)-/;

/** The lines of a full restore text that a partial sync writes when none of the services changed. */
function alwaysWritten(fullText: string): string {
  return fullText
    .split('\n')
    .filter((line) => !PER_SERVICE.test(line))
    .join('\n');
}

/** The lines of a full restore text that belong to the given per-service chains. */
function chainLines(fullText: string, chains: ReadonlySet<string>): string[] {
  return fullText.split('\n').filter((line) => {
    const m = /^(?::|-A )(KUBE-\S+)/.exec(line);
    return m !== null && chains.has(m[1] ?? '');
  });
}

function svc(i: number, port = 80, name = `svc${i}`): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'ns', name },
    spec: { type: 'ClusterIP', clusterIP: `172.30.${Math.floor((i + 1) / 256)}.${(i + 1) % 256}`, ports: [{ name: 'p80', port, protocol: 'TCP' }] },
  };
}

function ips(i: number, m: number): string[] {
  return Array.from({ length: m }, (_, j) => `10.128.${i}.${j + 1}`);
}

function eps(i: number, addresses: readonly string[], name = `svc${i}`): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'ns', name: `${name}-0`, labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4',
    endpoints: addresses.map((a, j) => ({ addresses: [a], conditions: { ready: true }, nodeName: `node-${j % 50}` })),
    ports: [{ name: 'p80', port: 8080, protocol: 'TCP' }],
  };
}

function cluster(n: number, m: number): { services: Service[]; slices: EndpointSlice[] } {
  return {
    services: Array.from({ length: n }, (_, i) => svc(i)),
    slices: Array.from({ length: n }, (_, i) => eps(i, ips(i, m))),
  };
}

/** The side-by-side benchmark's proxier (docs/performance.md, "Reference: kube-proxy v1.26.0") as v1.26 ran it: no KUBE-FIREWALL, no nfacct. */
const v126: ProxierConfig = validConfig({
  nodeName: 'test-hostname',
  nodeIPs: ['192.168.0.2'],
  masqueradeMark: '0x4000',
  localDetector: { kind: 'cidr', cidr: '10.0.0.0/8' },
  localhostNodePorts: false,
});

const count = (text: string, re: RegExp): number => text.split('\n').filter((l) => re.test(l)).length;
const utf8 = (text: string): number => new TextEncoder().encode(text).length;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

describe('sync', () => {
  it('a first sync is a full sync and writes what generateRules writes', () => {
    const c = cluster(5, 3);
    const r = sync(undefined, c.services, c.slices, v126);
    const g = generateRules(c.services, c.slices, v126);
    expect(r.stats.full).toBe(true);
    expect(r.restoreText).toBe(g.restoreText);
    expect(r.stats.rules).toEqual(g.stats);
    expect(r.stats.servicesChanged).toBe(5);
    expect(r.stats.chainsDeleted).toBe(0);
    expect(syncedRuleset(r.state)).toEqual(g.ruleset);
  });

  it('with nothing changed, a partial sync writes only the filter table and the top-level nat chains', () => {
    const c = cluster(4, 2);
    const first = sync(undefined, c.services, c.slices, v126);
    const again = sync(first.state, c.services, c.slices, v126);
    expect(again.stats.full).toBe(false);
    expect(again.stats.servicesChanged).toBe(0);
    expect(again.restoreText).toBe(alwaysWritten(first.restoreText));
    expect(again.restoreText).not.toMatch(/KUBE-SEP-/);
  });

  it('new objects with equal content count as unchanged (upstream compares what the change trackers derive)', () => {
    const c = cluster(4, 2);
    const first = sync(undefined, c.services, c.slices, v126);
    const copies = structuredClone(c);
    // Fields the proxier ignores do not count either.
    const annotated = copies.services.map((s) => ({ ...s, metadata: { ...s.metadata, annotations: { note: 'x' }, resourceVersion: '7' } }));
    const again = sync(first.state, annotated, copies.slices.slice().reverse(), v126);
    expect(again.stats.servicesChanged).toBe(0);
    expect(again.restoreText).toBe(alwaysWritten(first.restoreText));
  });

  it('a changed endpoint rewrites that service’s chains only, and deletes the endpoint chain that went away', () => {
    const c = cluster(3, 2);
    const first = sync(undefined, c.services, c.slices, v126);
    const slices = c.slices.slice();
    const moved = ['10.128.1.1', '10.128.1.9'];
    slices[1] = eps(1, moved);
    const r = sync(first.state, c.services, slices, v126);
    const full = generateRules(c.services, slices, v126).restoreText;
    const names = serviceChainNames('ns/svc1:p80', 'tcp');
    const mine = new Set([names.cluster, ...moved.map((ip) => endpointChainName('ns/svc1:p80', 'tcp', `${ip}:8080`))]);
    const gone = endpointChainName('ns/svc1:p80', 'tcp', '10.128.1.2:8080');
    // Upstream's order: chain lines (the written ones, then the stale one), rules, `-X`.
    const expected = alwaysWritten(full)
      .replace(':KUBE-MARK-MASQ - [0:0]\n', `:KUBE-MARK-MASQ - [0:0]\n${chainLines(full, mine).filter((l) => l.startsWith(':')).join('\n')}\n:${gone} - [0:0]\n`)
      .replace(/(\n-A KUBE-SERVICES -m comment --comment "ns\/svc1:p80 cluster IP"[^\n]*\n)/, `$1${chainLines(full, mine).filter((l) => l.startsWith('-A')).join('\n')}\n`)
      .replace(/\nCOMMIT\n$/, `\n-X ${gone}\nCOMMIT\n`);
    expect(r.restoreText).toBe(expected);
    expect(r.stats.servicesChanged).toBe(1);
    expect(r.stats.chainsDeleted).toBe(1);
  });

  it('deleting a service flushes and deletes its chains with -X', () => {
    const c = cluster(3, 2);
    const first = sync(undefined, c.services, c.slices, v126);
    const r = sync(first.state, [c.services[0] as Service, c.services[2] as Service], c.slices, v126);
    const before = new Set(chainDecls(first.restoreText));
    const after = new Set(chainDecls(generateRules([c.services[0] as Service, c.services[2] as Service], c.slices, v126).restoreText));
    const stale = [...before].filter((ch) => !after.has(ch));
    expect(stale).toHaveLength(3);
    expect(new Set(deleted(r.restoreText))).toEqual(new Set(stale));
    for (const chain of stale) expect(r.restoreText).toContain(`:${chain} - [0:0]\n`);
    expect(r.restoreText).not.toMatch(/^-A KUBE-(SVC|SEP)-/m);
    expect(r.stats.servicesChanged).toBe(1);
    // Once deleted, they are not deleted again.
    expect(sync(r.state, [c.services[0] as Service, c.services[2] as Service], c.slices, v126).stats.chainsDeleted).toBe(0);
  });

  it('makes every Nth sync a full one with fullSyncEvery, and one on demand', () => {
    const c = cluster(2, 1);
    const config = { ...v126, fullSyncEvery: 3 };
    let state: SyncState | undefined;
    const fulls: boolean[] = [];
    for (let i = 0; i < 7; i++) {
      const r = sync(state, c.services, c.slices, config);
      fulls.push(r.stats.full);
      state = r.state;
    }
    expect(fulls).toEqual([true, false, false, true, false, false, true]);
    const forced = sync(state, c.services, c.slices, v126, { full: true });
    expect(forced.stats.full).toBe(true);
    expect(forced.restoreText).toBe(generateRules(c.services, c.slices, v126).restoreText);
    expect(sync(forced.state, c.services, c.slices, v126).stats.full).toBe(false);
  });

  it('stats agree with the text and with kube-proxy’s line formula 21 + N·(3+4M)', () => {
    const n = 30;
    const m = 40; // 1,200 endpoints: large-cluster mode, as in the benchmarks
    const c = cluster(n, m);
    const first = sync(undefined, c.services, c.slices, v126);
    expect(first.stats.rules.largeClusterMode).toBe(true);
    expect(first.stats.lines).toBe(21 + n * (3 + 4 * m));
    const services = c.services.slice();
    services[7] = svc(7, 81);
    const partial = sync(first.state, services, c.slices, v126);
    // Every KUBE-SERVICES rule, plus the changed service's chains: 1+M chain lines, 1+3M rules.
    expect(partial.stats.lines).toBe(21 + n + 2 + 4 * m);
    for (const r of [first, partial]) {
      expect(r.stats.lines).toBe(count(r.restoreText, /./));
      expect(r.restoreText.endsWith('COMMIT\n')).toBe(true);
      expect(r.stats.bytes).toBe(utf8(r.restoreText));
      expect(r.stats.chainsWritten).toBe(count(r.restoreText, /^:/));
      expect(r.stats.chainsDeleted).toBe(count(r.restoreText, /^-X /));
    }
    expect(partial.stats.rules).toEqual(generateRules(services, c.slices, v126).stats);
  });

  it('counts bytes, not characters, for names outside ASCII', () => {
    const services = [svc(0, 80, 'caf\u00e9'), svc(1, 80, 'r\u{1F600}')];
    const slices = [eps(0, ['10.1.0.1'], 'caf\u00e9'), eps(1, ['10.1.0.2'], 'r\u{1F600}')];
    const first = sync(undefined, services, slices, v126);
    expect(first.stats.bytes).toBe(utf8(first.restoreText));
    expect(first.stats.bytes).toBeGreaterThan(first.restoreText.length);
    const again = sync(first.state, services, [slices[1] as EndpointSlice, eps(0, ['10.1.0.3'], 'caf\u00e9')], v126);
    expect(again.stats.bytes).toBe(utf8(again.restoreText));
  });

  it('a largeClusterMode flip makes a full sync, so that no chain keeps the old comments', () => {
    const config = validConfig({ ...v126, nodeName: 'test-hostname', largeClusterThreshold: 4 });
    const small = cluster(2, 2);
    const first = sync(undefined, small.services, small.slices, config);
    expect(first.stats.rules.largeClusterMode).toBe(false);
    const slices = [small.slices[0] as EndpointSlice, eps(1, ips(1, 3))];
    const r = sync(first.state, small.services, slices, config);
    expect(r.stats.rules.largeClusterMode).toBe(true);
    expect(r.stats.full).toBe(true);
    expect(r.restoreText).toBe(generateRules(small.services, slices, config).restoreText);
  });

  it('a config change makes a full sync and deletes the chains it no longer writes', () => {
    const c = cluster(2, 2);
    const first = sync(undefined, c.services, c.slices, v126);
    const v6 = validConfig({ nodeName: 'test-hostname', family: 6 });
    const r = sync(first.state, c.services, c.slices, v6);
    expect(r.stats.full).toBe(true);
    expect(new Set(deleted(r.restoreText))).toEqual(new Set(chainDecls(first.restoreText)));
  });

  it('is persistent: an old state gives the same result every time, and inputs are never mutated', () => {
    const c = deepFreeze(cluster(4, 3));
    const s0 = sync(undefined, c.services, c.slices, v126);
    const services = c.services.slice();
    services[2] = deepFreeze(svc(2, 81));
    const a1 = sync(s0.state, services, c.slices, v126);
    const slices = c.slices.slice(1);
    const a2 = sync(a1.state, services, slices, v126);
    // Going on from s0 in another direction, then back to s0's successor.
    const b1 = sync(s0.state, c.services.slice(1), c.slices, v126);
    expect(sync(s0.state, services, c.slices, v126)).toEqual(a1);
    expect(sync(a1.state, services, slices, v126)).toEqual(a2);
    expect(sync(s0.state, c.services.slice(1), c.slices, v126)).toEqual(b1);
    expect(syncedRuleset(s0.state)).toEqual(generateRules(c.services, c.slices, v126).ruleset);
    expect(syncedRuleset(a2.state)).toEqual(generateRules(services, slices, v126).ruleset);
  });

  it('an earlier duplicate of a Service or slice is shadowed by the later one, as in an informer store', () => {
    const c = cluster(2, 2);
    const services = [svc(0, 99), ...c.services];
    const first = sync(undefined, services, c.slices, v126);
    expect(first.restoreText).toBe(generateRules(c.services, c.slices, v126).restoreText);
    const changedShadow = [svc(0, 98), ...c.services];
    expect(sync(first.state, changedShadow, c.slices, v126).stats.servicesChanged).toBe(0);
    const changedWinner = [svc(0, 99), svc(0, 97), c.services[1] as Service];
    expect(sync(first.state, changedWinner, c.slices, v126).stats.servicesChanged).toBe(1);
  });
});

function chainDecls(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => /^:KUBE-(SVC|SVL|EXT|FW|SEP)-/.test(l))
    .map((l) => l.slice(1, l.indexOf(' ')));
}

function deleted(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('-X '))
    .map((l) => l.slice(3));
}
