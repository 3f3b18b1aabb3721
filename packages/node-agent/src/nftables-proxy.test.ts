// The nftables mode through the agent, on a virtual clock: the first sync is full, informer
// changes are synced partially through the bounded-frequency runner, a deleted Service's
// chains are flushed and deleted once their grace period is over, a change of the
// ServiceCIDRs forces a full sync, a failed load is retried in full after syncPeriod, and the
// files hold what proxy-nftables' syncNftables gives for the same objects at the same times
// (ruleset.nft: its table as knftables' Dump prints it; last-sync.nft: its text).
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { parseServiceNetworking, type EndpointSlice, type KubeObject, type Service } from '@kubesvc/api-types';
import {
  dumpTransaction,
  INITIAL_NFTABLES_SYNC_STATE,
  printTransaction,
  STALE_CHAIN_GRACE_MS,
  syncNftables,
  type NftablesSyncState,
  type NftTable,
  type NftTransaction,
} from '@kubesvc/proxy-nftables';
import { afterEach, describe, expect, it } from 'vitest';
import { virtualClock, type VirtualClock } from '@kubesvc/store';
import { startNodeAgent, type NodeAgent, type NodeAgentOptions } from './node-agent.js';
import type { Dataplane, DataplaneFactory } from './dataplane.js';
import { loadableDump, NftablesProxy } from './nftables-proxy.js';
import { endpointSlice, must, openTestCluster, revisionOf, service, type TestCluster } from './node-agent.fixtures.js';

let cluster: TestCluster | undefined;
let agent: NodeAgent | undefined;
let proxy: NftablesProxy | undefined;

afterEach(async () => {
  await agent?.stop();
  agent = undefined;
  await proxy?.stop();
  proxy = undefined;
  await cluster?.close();
  cluster = undefined;
});

interface Started {
  readonly c: TestCluster;
  readonly a: NodeAgent;
  readonly clock: VirtualClock;
  /** The 'nftables sync' log lines' figures. */
  readonly syncs: Record<string, string | number>[];
  readonly logs: string[];
}

async function openCluster(clock: VirtualClock): Promise<TestCluster> {
  cluster = await openTestCluster(clock, 'memory');
  const c = cluster;
  await must(c.registry.create('services', 'default', service('kubernetes', { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP' }] })));
  const ep = await must(c.registry.create('endpointslices', 'default', endpointSlice('kubernetes', ['192.0.2.10'], [{ name: 'https', port: 6443, protocol: 'TCP' }], { name: 'kubernetes' })));
  await c.informer.waitFor(revisionOf(ep));
  return c;
}

async function start(options: Partial<NodeAgentOptions> = {}): Promise<Started> {
  const clock = virtualClock(Date.UTC(2026, 0, 1));
  const c = await openCluster(clock);
  const syncs: Record<string, string | number>[] = [];
  const logs: string[] = [];
  const started = await startNodeAgent({
    source: c.informer,
    clock,
    logger: {
      log: (level, message) => {
        logs.push(`${level} ${message}`);
        if (message.startsWith('nftables sync mode=')) syncs.push(fieldsOf(message));
      },
    },
    nodeName: 'node-1',
    nodeIP: '192.0.2.10',
    clusterCIDR: '10.244.0.0/16',
    dataDir: c.dir,
    dnsPort: false,
    proxyMode: 'nftables',
    nftables: { serviceCIDRs: ['10.96.0.0/16'] },
    ...options,
  });
  if (!started.ok) throw new Error(started.error.message);
  agent = started.value;
  return { c, a: agent, clock, syncs, logs };
}

/** The key=value figures of a log line (strings are JSON-quoted, numbers bare). */
function fieldsOf(line: string): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const m of line.matchAll(/ (\w+)=("(?:[^"\\]|\\.)*"|\S+)/g)) {
    const [, key = '', raw = ''] = m;
    out[key] = raw.startsWith('"') ? (JSON.parse(raw) as string) : Number(raw);
  }
  return out;
}

const read = (path: string | undefined) => readFileSync(path ?? '', 'utf8');

function printed(transaction: NftTransaction): string {
  const text = printTransaction(transaction);
  if (!text.ok) throw new Error(text.error.message);
  return text.value;
}

/** The table as ruleset.nft holds it: the lines of knftables' Dump, reordered for nft -f. */
function dumped(table: NftTable | undefined): string {
  if (table === undefined) throw new Error('no table');
  const text = printed(loadableDump(table));
  // The same operations as upstream's Dump, one per line, only in another order.
  expect(sortedLines(text)).toStrictEqual(sortedLines(printed(dumpTransaction(table))));
  return text;
}

/**
 * proxy-nftables itself, following the agent: each call is the sync the agent should have
 * made at the clock's time, from the state the last call left.
 */
function follower(s: Started): (options?: { full?: boolean }) => { text: string; table: string; full: boolean } {
  let state: NftablesSyncState = INITIAL_NFTABLES_SYNC_STATE;
  return (options = {}) => {
    const config = s.a.nftablesConfig();
    if (config === undefined) throw new Error('no nftables config');
    const r = syncNftables(state, s.c.informer.list<Service>('services'), s.c.informer.list<EndpointSlice>('endpointslices'), config, { now: s.clock.now(), ...options });
    if (!r.ok) throw new Error(r.error.message);
    state = r.value.state;
    return { text: r.value.text, table: dumped(r.value.state.table), full: r.value.full };
  };
}

/**
 * The lines in byte order: a table compared with a fresh proxier's holds the same objects,
 * but a set's elements are listed in the order they were added, which differs.
 */
function sortedLines(text: string): string[] {
  return text.split('\n').sort();
}

/** A fresh proxier's first sync of what the informer holds now: the table a restarted kube-proxy makes. */
function freshTable(s: Started): string {
  const config = s.a.nftablesConfig();
  if (config === undefined) throw new Error('no nftables config');
  const r = syncNftables(INITIAL_NFTABLES_SYNC_STATE, s.c.informer.list<Service>('services'), s.c.informer.list<EndpointSlice>('endpointslices'), config, { now: 0 });
  if (!r.ok) throw new Error(r.error.message);
  return dumped(r.value.state.table);
}

async function apply(s: { c: TestCluster }, write: () => Promise<KubeObject>): Promise<void> {
  const object = await write();
  await s.c.informer.waitFor(revisionOf(object));
}

const web = () => service('web', { clusterIP: '10.96.0.20', selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] });
const webSlice = () => endpointSlice('web', ['10.244.1.5'], [{ name: 'http', port: 8080, protocol: 'TCP' }]);

describe('nftables proxy mode', () => {
  it('writes a full first sync, then partial syncs of the informer changes paced by minSyncPeriod; the files are syncNftables\' outputs', async () => {
    const s = await start();
    const expected = follower(s);
    const files = s.a.nftablesFiles;
    expect(files?.ruleset).toBe(`${s.c.dir}/nftables/ruleset.nft`);
    expect(files?.lastSync).toBe(`${s.c.dir}/nftables/last-sync.nft`);
    const first = expected();
    expect(first.full).toBe(true);
    expect(s.syncs).toStrictEqual([expect.objectContaining({ mode: 'full' })]);
    expect(read(files?.ruleset)).toBe(first.table);
    expect(read(files?.lastSync)).toBe(first.text);
    // v1.33's layout: the table, cluster-ips-check with the ServiceCIDR given, and kubernetes' ClusterIP in service-ips.
    expect(read(files?.ruleset)).toMatch(/^add table ip kube-proxy \{ comment "rules for kube-proxy" ; \}\n/);
    expect(read(files?.ruleset)).toContain('add rule ip kube-proxy cluster-ips-check ip daddr { 10.96.0.0/16 } drop comment "Drop traffic to unallocated ClusterIPs"');
    expect(read(files?.ruleset)).toMatch(/^add element ip kube-proxy service-ips \{ 10\.96\.0\.1 \. tcp \. 443 : goto service-[A-Z0-9]{8}-default\/kubernetes\/tcp\/https \}$/m);

    // A Service without endpoints: a partial sync, due now, run when the timer fires.
    await apply(s, () => must(s.c.registry.create('services', 'default', web())));
    expect(s.syncs.length).toBe(1);
    s.clock.advance(0);
    await s.a.idle();
    const second = expected();
    expect(second.full).toBe(false);
    expect(s.syncs[1]).toMatchObject({ mode: 'partial' });
    expect(read(files?.lastSync)).toBe(second.text);
    expect(read(files?.lastSync)).toContain('add element ip kube-proxy no-endpoint-services { 10.96.0.20 . tcp . 80 comment "default/web:http" : goto reject-chain }');
    expect(read(files?.ruleset)).toBe(second.table);

    // Its endpoints: the second of the burst of 2 runs at once, the next waits 1 s for a token.
    await apply(s, () => must(s.c.registry.create('endpointslices', 'default', webSlice())));
    s.clock.advance(0);
    await s.a.idle();
    const third = expected();
    expect(read(files?.lastSync)).toBe(third.text);
    // A partial sync rewrites only web's chains: kubernetes' service chain is not in it.
    expect(third.text).toMatch(/^add chain ip kube-proxy service-[A-Z0-9]{8}-default\/web\/tcp\/http$/m);
    expect(third.text).not.toContain('default/kubernetes/tcp/https');
    const slice = await must(s.c.registry.get<EndpointSlice>('endpointslices', 'default', 'web-1'));
    await apply(s, () => must(s.c.registry.update('endpointslices', 'default', 'web-1', { ...slice, endpoints: [...(slice.endpoints ?? []), { addresses: ['10.244.2.6'], conditions: { ready: true } }] })));
    s.clock.advance(999);
    expect(s.syncs.length).toBe(3);
    s.clock.advance(1);
    await s.a.idle();
    expect(s.syncs.length).toBe(4);
    const fourth = expected();
    expect(fourth.full).toBe(false);
    expect(read(files?.lastSync)).toBe(fourth.text);
    expect(read(files?.lastSync)).toContain('numgen random mod 2 vmap { 0 : goto endpoint-');
    // No chain is stale: the table is the one a restarted kube-proxy would make.
    expect(read(files?.ruleset)).toBe(fourth.table);
    expect(sortedLines(read(files?.ruleset))).toStrictEqual(sortedLines(freshTable(s)));
    expect(s.a.lastNftablesSync()).toMatchObject({ full: false, changes: 1, syncs: 4, chainsDeleted: 0, staleChains: 0, tableLines: fourth.table.split('\n').length - 1 });
    // Only the two files: every temporary file was renamed.
    expect(readdirSync(files?.dir ?? '').sort()).toStrictEqual(['last-sync.nft', 'ruleset.nft']);
  });

  it('with tablesFilesIntervalMs, a sync inside the interval writes last-sync.nft alone, and the table as it stands is written when the interval ends', async () => {
    const s = await start({ nftables: { serviceCIDRs: ['10.96.0.0/16'], tablesFilesIntervalMs: 10_000 } });
    const expected = follower(s);
    const files = s.a.nftablesFiles;
    // The first sync prints the table.
    const first = expected();
    expect(read(files?.ruleset)).toBe(first.table);
    await apply(s, () => must(s.c.registry.create('services', 'default', web())));
    s.clock.advance(0);
    await s.a.idle();
    const second = expected();
    expect(s.syncs[1]).toMatchObject({ mode: 'partial' });
    expect(read(files?.lastSync)).toBe(second.text);
    // Inside the interval: ruleset.nft is the first sync's still, and the report keeps its line count.
    expect(read(files?.ruleset)).toBe(first.table);
    expect(s.a.lastNftablesSync()).toMatchObject({ syncs: 2, tableLines: first.table.split('\n').length - 1 });
    await apply(s, () => must(s.c.registry.create('endpointslices', 'default', webSlice())));
    s.clock.advance(1000);
    await s.a.idle();
    const third = expected();
    expect(s.syncs).toHaveLength(3);
    expect(read(files?.lastSync)).toBe(third.text);
    expect(read(files?.ruleset)).toBe(first.table);
    // The interval ends: one print of the table after both syncs, with no sync of its own.
    s.clock.advance(9000);
    await s.a.idle();
    expect(s.syncs).toHaveLength(3);
    expect(read(files?.ruleset)).toBe(third.table);
    expect(read(files?.ruleset)).toContain('dnat to 10.244.1.5:8080');
    // A sync a whole interval after that print writes the table itself.
    s.clock.advance(10_000);
    await apply(s, () => must(s.c.registry.delete('services', 'default', 'web')).then((d) => d.object as Service));
    s.clock.advance(0);
    await s.a.idle();
    const fourth = expected();
    expect(s.syncs).toHaveLength(4);
    expect(read(files?.ruleset)).toBe(fourth.table);
    expect(s.a.lastNftablesSync()).toMatchObject({ syncs: 4, tableLines: fourth.table.split('\n').length - 1 });
  });

  it('with tablesFilesIntervalMs Infinity, only the first sync writes ruleset.nft, and no timer waits', async () => {
    const s = await start({ nftables: { serviceCIDRs: ['10.96.0.0/16'], tablesFilesIntervalMs: Infinity } });
    const expected = follower(s);
    const files = s.a.nftablesFiles;
    const first = expected();
    expect(read(files?.ruleset)).toBe(first.table);
    await apply(s, () => must(s.c.registry.create('services', 'default', web())));
    s.clock.advance(0);
    await s.a.idle();
    const second = expected();
    expect(read(files?.lastSync)).toBe(second.text);
    s.clock.advance(3_600_000 - 1);
    await s.a.idle();
    expect(s.syncs).toHaveLength(2);
    expect(read(files?.ruleset)).toBe(first.table);
  });

  it("flushes a deleted Service's chains, deletes them once STALE_CHAIN_GRACE_MS has passed, and makes a full sync after fullSyncPeriod", async () => {
    const s = await start({ nftables: { serviceCIDRs: ['10.96.0.0/16'], fullSyncPeriodMs: 60_000 } });
    const expected = follower(s);
    expected();
    await apply(s, () => must(s.c.registry.create('services', 'default', web())));
    await apply(s, () => must(s.c.registry.create('endpointslices', 'default', webSlice())));
    s.clock.advance(0);
    await s.a.idle();
    expected();
    await apply(s, () => must(s.c.registry.delete('services', 'default', 'web')).then((d) => d.object as Service));
    s.clock.advance(1000);
    await s.a.idle();
    const flushed = expected();
    expect(read(s.a.nftablesFiles?.lastSync)).toBe(flushed.text);
    expect(flushed.text).toMatch(/^flush chain ip kube-proxy service-[A-Z0-9]{8}-default\/web\/tcp\/http$/m);
    expect(s.a.lastNftablesSync()).toMatchObject({ full: false, chainsDeleted: 0, staleChains: 2 });
    expect(read(s.a.nftablesFiles?.ruleset)).toBe(flushed.table);

    // The next sync, past the grace period, deletes them first, in a transaction of its own.
    s.clock.advance(STALE_CHAIN_GRACE_MS);
    await apply(s, () => must(s.c.registry.create('services', 'default', service('api', { clusterIP: '10.96.0.30', selector: { app: 'api' }, ports: [{ port: 80 }] }))));
    s.clock.advance(1000);
    await s.a.idle();
    const deleted = expected();
    expect(read(s.a.nftablesFiles?.lastSync)).toBe(deleted.text);
    expect(deleted.text).toMatch(/^delete chain ip kube-proxy endpoint-[A-Z0-9]{8}-default\/web\/tcp\/http__10\.244\.1\.5\/8080\ndelete chain ip kube-proxy service-[A-Z0-9]{8}-default\/web\/tcp\/http\nadd /);
    expect(s.a.lastNftablesSync()).toMatchObject({ full: false, chainsDeleted: 2, staleChains: 0 });
    expect(sortedLines(read(s.a.nftablesFiles?.ruleset))).toStrictEqual(sortedLines(freshTable(s)));

    // 60 s after the first (full) sync, the next is full again.
    s.clock.advance(60_000);
    await apply(s, () => must(s.c.registry.delete('services', 'default', 'api')).then((d) => d.object as Service));
    s.clock.advance(1000);
    await s.a.idle();
    const full = expected({ full: true });
    expect(s.syncs.map((f) => f['mode'])).toStrictEqual(['full', 'partial', 'partial', 'partial', 'full']);
    expect(read(s.a.nftablesFiles?.lastSync)).toBe(full.text);
    expect(read(s.a.nftablesFiles?.ruleset)).toBe(full.table);
  });

  it('takes the ServiceCIDRs from the serviceNetworking when not given, and makes a full sync when they change', async () => {
    const networking = parseServiceNetworking({ serviceClusterIPRange: '10.96.0.0/16' });
    if (!networking.ok) throw new Error(networking.error.message);
    const s = await start({ nftables: {}, serviceNetworking: networking.value });
    expect(read(s.a.nftablesFiles?.ruleset)).toContain('add rule ip kube-proxy cluster-ips-check ip daddr { 10.96.0.0/16 } drop');
    const config = s.a.nftablesConfig();
    if (config === undefined) throw new Error('no nftables config');
    await s.a.stop();

    const logs: string[] = [];
    proxy = NftablesProxy.start({ source: s.c.informer, clock: s.clock, logger: { log: (_level, message) => logs.push(message) }, config, dataDir: s.c.dir });
    await proxy.flushed();
    // The same CIDRs: nothing to do.
    expect(proxy.setServiceCIDRs(['10.96.0.0/16']).ok).toBe(true);
    expect(proxy.syncPending).toBe(false);
    expect(proxy.setServiceCIDRs(['10.96.0.0/16', '10.100.0.0/24', 'fd00:10:96::/108']).ok).toBe(true);
    s.clock.advance(0);
    await proxy.flushed();
    expect(logs.filter((l) => l.startsWith('nftables sync mode=')).map((l) => fieldsOf(l)['mode'])).toStrictEqual(['full', 'full']);
    // Only the IPv4 ones, in order, joined by a bare comma as upstream's strings.Join: the proxier is of family 4.
    expect(read(proxy.files.ruleset)).toContain('add rule ip kube-proxy cluster-ips-check ip daddr { 10.96.0.0/16,10.100.0.0/24 } drop comment "Drop traffic to unallocated ClusterIPs"');
    expect(proxy.setServiceCIDRs(['10.96.0.0/33']).ok).toBe(false);
    expect(proxy.syncPending).toBe(false);
  });

  it('retries a sync its data plane failed to load after syncPeriod, in full', async () => {
    const loads: string[] = [];
    let failNext = false;
    const dataplane: DataplaneFactory = {
      name: 'test',
      loadsRules: true,
      create: () =>
        Promise.resolve({
          ok: true,
          value: {
            name: 'test',
            nftablesLoader: {
              loadNftables: (text: string) => {
                if (failNext) {
                  failNext = false;
                  throw new Error('nft: Could not process rule');
                }
                loads.push(text);
              },
            },
            close: () => Promise.resolve(),
          } satisfies Dataplane,
        }),
    };
    const s = await start({ dataplane, nftables: { serviceCIDRs: ['10.96.0.0/16'], syncPeriodMs: 5_000 } });
    expect(loads).toHaveLength(1);
    expect(loads[0]).toBe(read(s.a.nftablesFiles?.lastSync));
    failNext = true;
    await apply(s, () => must(s.c.registry.create('services', 'default', web())));
    s.clock.advance(0);
    expect(loads).toHaveLength(1);
    expect(s.logs).toContain('warning nftables sync failed to load, retrying error="Error: nft: Could not process rule" retryMs=5000');
    s.clock.advance(4_999);
    expect(loads).toHaveLength(1);
    s.clock.advance(1);
    await s.a.idle();
    expect(loads).toHaveLength(2);
    expect(s.syncs.map((f) => f['mode'])).toStrictEqual(['full', 'full']);
    expect(read(s.a.nftablesFiles?.lastSync)).toBe(loads[1]);
    expect(sortedLines(read(s.a.nftablesFiles?.ruleset))).toStrictEqual(sortedLines(freshTable(s)));
  });

  it('refuses a data plane that takes syncs but cannot load nftables ones', async () => {
    const clock = virtualClock(Date.UTC(2026, 0, 1));
    const c = await openCluster(clock);
    let closed = false;
    const iptablesOnly: DataplaneFactory = {
      name: 'iptonly',
      loadsRules: true,
      create: () =>
        Promise.resolve({
          ok: true,
          value: {
            name: 'iptonly',
            close: () => {
              closed = true;
              return Promise.resolve();
            },
          },
        }),
    };
    const r = await startNodeAgent({ source: c.informer, clock, nodeName: 'node-1', nodeIP: '192.0.2.10', dataDir: c.dir, dnsPort: false, proxyMode: 'nftables', dataplane: iptablesOnly });
    expect(r.ok ? 'started' : r.error.message).toBe('--dataplane iptonly cannot load nftables syncs');
    expect(closed).toBe(true);
    const none = await startNodeAgent({ source: c.informer, clock, nodeName: 'node-1', nodeIP: '192.0.2.10', dnsPort: false, proxyMode: 'nftables' });
    expect(none.ok ? 'started' : none.error.message).toBe('the nftables proxy mode needs a dataDir for its rules files');
  });

  it('writes the files 0644 in a 0700 folder with a umask of 000, and survives writes that fail: logged once per error code, written again at the next sync', async () => {
    const old = process.umask(0);
    let s: Started;
    try {
      s = await start();
      await s.a.idle();
    } finally {
      process.umask(old);
    }
    const files = s.a.nftablesFiles;
    const mode = (path: string | undefined) => (statSync(path ?? '').mode & 0o777).toString(8);
    expect([mode(files?.dir), mode(files?.ruleset), mode(files?.lastSync)]).toStrictEqual(['700', '644', '644']);
    const fileLogs = () => s.logs.filter((l) => / nftables files /.test(l));

    // A folder where ruleset.nft goes: the rename fails with EISDIR at every sync.
    rmSync(files?.ruleset ?? '');
    mkdirSync(files?.ruleset ?? '');
    for (const name of ['web', 'api', 'db']) {
      await apply(s, () => must(s.c.registry.create('services', 'default', service(name, { selector: { app: name }, ports: [{ port: 80 }] }))));
      s.clock.advance(1000);
      await expect(s.a.idle()).rejects.toThrow(/EISDIR/);
    }
    expect(s.a.lastNftablesSync()?.syncs).toBe(4);
    expect(fileLogs()).toHaveLength(1);
    expect(fileLogs()[0]).toMatch(/^warning nftables files not written, written again at the next sync error="Error: EISDIR: illegal operation on a directory, rename .* failedWrites=1$/);

    rmSync(files?.ruleset ?? '', { recursive: true });
    await apply(s, () => must(s.c.registry.delete('services', 'default', 'db')).then((d) => d.object as Service));
    s.clock.advance(1000);
    await s.a.idle();
    expect(fileLogs().slice(1)).toStrictEqual(['warning nftables files written again failedWrites=3']);
    expect(read(files?.ruleset)).toContain('comment "default/api"');
    expect(readdirSync(files?.dir ?? '').sort()).toStrictEqual(['last-sync.nft', 'ruleset.nft']);
  });
});
