// The iptables mode through the agent, on a virtual clock: the first sync is full, changes are
// synced partially through the bounded-frequency runner (minSyncPeriod, burst 2), a sync after
// fullSyncPeriod is full, and the files hold the tables (rules.txt: what a full render of the
// same objects writes), their iptables-save view, and each sync's --noflush input.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { EndpointSlice, KubeObject, Service } from '@kubesvc/api-types';
import { createRenderCache, generateRules, iptablesSaveView, proxierConfig } from '@kubesvc/proxy-iptables';
import { afterEach, describe, expect, it } from 'vitest';
import { virtualClock, type VirtualClock } from '@kubesvc/store';
import { join } from 'node:path';
import { IptablesProxy, SPARE_BUFFERS } from './iptables-proxy.js';
import { startNodeAgent, type NodeAgent, type NodeAgentOptions } from './node-agent.js';
import type { DataplaneFactory } from './dataplane.js';
import { endpointSlice, must, openTestCluster, revisionOf, service, type TestCluster } from './node-agent.fixtures.js';

let cluster: TestCluster | undefined;
let agent: NodeAgent | undefined;

afterEach(async () => {
  await agent?.stop();
  agent = undefined;
  await cluster?.close();
  cluster = undefined;
});

interface Started {
  readonly c: TestCluster;
  readonly a: NodeAgent;
  readonly clock: VirtualClock;
  /** The 'iptables sync' log lines' figures. */
  readonly syncs: Record<string, string | number>[];
}

async function start(options: Partial<NodeAgentOptions> = {}): Promise<Started> {
  const clock = virtualClock(Date.UTC(2026, 0, 1));
  cluster = await openTestCluster(clock, 'memory');
  const c = cluster;
  await must(c.registry.create('services', 'default', service('kubernetes', { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP' }] })));
  const ep = await must(c.registry.create('endpointslices', 'default', endpointSlice('kubernetes', ['192.0.2.10'], [{ name: 'https', port: 6443, protocol: 'TCP' }], { name: 'kubernetes' })));
  await c.informer.waitFor(revisionOf(ep));
  const syncs: Record<string, string | number>[] = [];
  const started = await startNodeAgent({
    source: c.informer,
    clock,
    logger: { log: (_level, message) => (message.startsWith('iptables sync ') ? syncs.push(fieldsOf(message)) : undefined) },
    nodeName: 'node-1',
    nodeIP: '192.0.2.10',
    clusterCIDR: '10.244.0.0/16',
    dataDir: c.dir,
    dnsPort: false,
    ...options,
  });
  if (!started.ok) throw new Error(started.error.message);
  agent = started.value;
  return { c, a: agent, clock, syncs };
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

/** proxy-iptables' own full render of what the informer holds now. */
function fullRender(s: Started): ReturnType<typeof generateRules> {
  const config = s.a.proxierConfig;
  if (config === undefined) throw new Error('no proxier config');
  return generateRules(s.c.informer.list<Service>('services'), s.c.informer.list<EndpointSlice>('endpointslices'), config);
}

async function apply(s: Started, write: () => Promise<KubeObject>): Promise<void> {
  const object = await write();
  await s.c.informer.waitFor(revisionOf(object));
}

describe('iptables proxy mode', () => {
  it('writes a full first sync, then partial syncs paced by minSyncPeriod with a burst of 2, each logged', async () => {
    const s = await start();
    const files = s.a.iptablesFiles;
    expect(files?.rules).toBe(`${s.c.dir}/iptables/rules.txt`);
    expect(s.syncs).toStrictEqual([expect.objectContaining({ mode: 'full', servicesChanged: 1 })]);
    expect(read(files?.rules)).toBe(fullRender(s).restoreText);
    expect(read(files?.lastSync)).toBe(fullRender(s).restoreText);
    expect(read(files?.rules)).toContain('-A KUBE-SERVICES -m comment --comment "default/kubernetes:https cluster IP" -m tcp -p tcp -d 10.96.0.1 --dport 443 -j KUBE-SVC-NPX46M4PTMTKRN6Y');

    // The first sync is made directly, as upstream's OnServiceSynced does, and takes no token:
    // two syncs may follow back to back, then one per minSyncPeriod (1 s).
    await apply(s, () => must(s.c.registry.create('services', 'default', service('web', { clusterIP: '10.96.0.20', selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] }))));
    // The sync is due now, and runs when the timer fires, never inside the informer's callback.
    expect(s.syncs.length).toBe(1);
    s.clock.advance(0);
    await s.a.idle();
    expect(s.syncs[1]).toMatchObject({ mode: 'partial', servicesChanged: 1 });
    // web has no endpoints: REJECT in filter, no chain of its own.
    expect(read(files?.lastSync)).toContain('-A KUBE-SERVICES -m comment --comment "default/web:http has no endpoints" -m tcp -p tcp -d 10.96.0.20 --dport 80 -j REJECT');
    expect(read(files?.rules)).toBe(fullRender(s).restoreText);

    await apply(s, () => must(s.c.registry.create('endpointslices', 'default', endpointSlice('web', ['10.244.1.5'], [{ name: 'http', port: 8080, protocol: 'TCP' }]))));
    s.clock.advance(0);
    expect(s.syncs.length).toBe(3);
    const slice = await must(s.c.registry.get<EndpointSlice>('endpointslices', 'default', 'web-1'));
    await apply(s, () => must(s.c.registry.update('endpointslices', 'default', 'web-1', { ...slice, endpoints: [...(slice.endpoints ?? []), { addresses: ['10.244.2.6'], conditions: { ready: true } }] })));
    // No token left: this one waits until one is due, 1 s after the burst.
    s.clock.advance(999);
    expect(s.syncs.length).toBe(3);
    s.clock.advance(1);
    await s.a.idle();
    expect(s.syncs.length).toBe(4);
    expect(s.syncs[3]).toMatchObject({ mode: 'partial', servicesChanged: 1 });
    const partial = read(files?.lastSync);
    // Only web's chains are written; kubernetes' SVC chain is not.
    expect(partial).toMatch(/^:KUBE-SVC-[A-Z0-9]{16} - \[0:0\]$/m);
    expect(partial).not.toContain(':KUBE-SVC-NPX46M4PTMTKRN6Y');
    expect(partial).toContain('-m statistic --mode random --probability 0.5000000000');
    const render = fullRender(s);
    expect(read(files?.rules)).toBe(render.restoreText);
    expect(s.a.lastIptablesSync()).toMatchObject({ full: false, tableLines: render.restoreText.split('\n').length - 1, syncs: 4 });
    // rules.save.txt: the same tables as iptables-nft-save prints them.
    const saved = iptablesSaveView(render.restoreText, { backend: 'nft' });
    expect(saved.ok && read(files?.save)).toBe(saved.ok ? saved.value : 'unreachable');
    expect(read(files?.save)).toMatch(/^\*filter\n:INPUT ACCEPT \[0:0\]\n/);
    // Only the three files: every temporary file was renamed.
    expect(readdirSync(files?.dir ?? '').sort()).toStrictEqual(['last-sync.txt', 'rules.save.txt', 'rules.txt']);
  });

  it('makes a full sync once fullSyncPeriod has passed, and deletes the chains of a deleted Service', async () => {
    const s = await start({ iptables: { fullSyncPeriodMs: 60_000, minSyncPeriodMs: 1000 } });
    await apply(s, () => must(s.c.registry.create('services', 'default', service('web', { clusterIP: '10.96.0.20', selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] }))));
    await apply(s, () => must(s.c.registry.create('endpointslices', 'default', endpointSlice('web', ['10.244.1.5'], [{ name: 'http', port: 8080, protocol: 'TCP' }]))));
    s.clock.advance(0);
    expect(s.syncs.map((f) => f['mode'])).toStrictEqual(['full', 'partial']);
    s.clock.advance(60_000);
    await apply(s, () => must(s.c.registry.delete('services', 'default', 'web')).then((d) => d.object as Service));
    s.clock.advance(1000);
    await s.a.idle();
    expect(s.syncs.map((f) => f['mode'])).toStrictEqual(['full', 'partial', 'full']);
    const last = read(s.a.iptablesFiles?.lastSync);
    expect(last).toMatch(/^-X KUBE-SVC-[A-Z0-9]{16}$/m);
    expect(last).toMatch(/^-X KUBE-SEP-[A-Z0-9]{16}$/m);
    expect(read(s.a.iptablesFiles?.rules)).toBe(fullRender(s).restoreText);
    expect(read(s.a.iptablesFiles?.rules)).not.toContain('default/web');
  });

  it('leaves out a Service that names another proxy (service.kubernetes.io/service-proxy-name), as kube-proxy\'s informers do', async () => {
    const s = await start();
    const other: Service = { ...service('other', { clusterIP: '10.96.0.30', selector: { app: 'o' }, ports: [{ port: 80 }] }), metadata: { name: 'other', namespace: 'default', labels: { 'service.kubernetes.io/service-proxy-name': 'elsewhere' } } };
    await apply(s, () => must(s.c.registry.create('services', 'default', other)));
    s.clock.advance(0);
    await s.a.idle();
    expect(read(s.a.iptablesFiles?.rules)).not.toContain('10.96.0.30');
    // Taking the label off brings it in, as an add.
    const current = await must(s.c.registry.get<Service>('services', 'default', 'other'));
    await apply(s, () => must(s.c.registry.update('services', 'default', 'other', { ...current, metadata: { ...current.metadata, labels: {} } })));
    s.clock.advance(1000);
    await s.a.idle();
    expect(read(s.a.iptablesFiles?.rules)).toContain('"default/other has no endpoints" -m tcp -p tcp -d 10.96.0.30 --dport 80 -j REJECT');
  });

  it('writes the legacy save view when asked', async () => {
    const s = await start({ iptables: { saveBackend: 'legacy' } });
    const saved = iptablesSaveView(read(s.a.iptablesFiles?.rules), { backend: 'legacy' });
    expect(saved.ok && read(s.a.iptablesFiles?.save)).toBe(saved.ok ? saved.value : 'unreachable');
    // iptables-legacy-save lists tables in reverse order of first use: nat was used last.
    expect(read(s.a.iptablesFiles?.save)).toMatch(/^\*nat\n/);
  });

  it('writes the files 0644 in a 0700 folder with a umask of 000, and survives writes that fail: logged once per error code, written again at the next sync', async () => {
    const old = process.umask(0);
    const logs: string[] = [];
    let s: Started;
    try {
      s = await start({ logger: { log: (level, message) => (message.startsWith('iptables files') ? logs.push(`${level} ${message}`) : undefined) } });
      await s.a.idle();
    } finally {
      process.umask(old);
    }
    const files = s.a.iptablesFiles;
    const mode = (path: string | undefined) => (statSync(path ?? '').mode & 0o777).toString(8);
    expect([mode(files?.dir), mode(files?.rules), mode(files?.save), mode(files?.lastSync)]).toStrictEqual(['700', '644', '644', '644']);

    // A folder where rules.txt goes: the rename fails with EISDIR at every sync.
    rmSync(files?.rules ?? '');
    mkdirSync(files?.rules ?? '');
    for (const name of ['web', 'api', 'db']) {
      await apply(s, () => must(s.c.registry.create('services', 'default', service(name, { selector: { app: name }, ports: [{ port: 80 }] }))));
      s.clock.advance(1000);
      await expect(s.a.idle()).rejects.toThrow(/EISDIR/);
    }
    expect(s.a.lastIptablesSync()?.syncs).toBe(4);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(/^warning iptables files not written, written again at the next sync error="Error: EISDIR: illegal operation on a directory, rename .* failedWrites=1$/);

    rmSync(files?.rules ?? '', { recursive: true });
    await apply(s, () => must(s.c.registry.delete('services', 'default', 'db')).then((d) => d.object as Service));
    s.clock.advance(1000);
    await s.a.idle();
    expect(logs.slice(1)).toStrictEqual(['warning iptables files written again failedWrites=3']);
    expect(read(files?.rules)).toBe(fullRender(s).restoreText);
    expect(read(files?.rules)).toContain('default/api');
    expect(readdirSync(files?.dir ?? '').sort()).toStrictEqual(['last-sync.txt', 'rules.save.txt', 'rules.txt']);
  });

  it('hands the loader and last-sync.txt each sync\'s bytes, the first sync\'s from its state, later ones reusing one buffer once the last sync\'s files are written and taking another while they are being written', async () => {
    /** Per sync: the loader's bytes (their memory, and their text then). */
    const loaded: { memory: ArrayBufferLike; text: string }[] = [];
    const recording: DataplaneFactory = {
      name: 'recording',
      loadsRules: true,
      create: () =>
        Promise.resolve({
          ok: true,
          value: { name: 'recording', loader: { load: (restore) => void loaded.push({ memory: restore.buffer, text: new TextDecoder().decode(restore) }) }, close: () => Promise.resolve() },
        }),
    };
    const s = await start({ dataplane: recording });
    const files = s.a.iptablesFiles;
    await s.a.idle();
    expect(loaded.map((l) => l.text)).toStrictEqual([fullRender(s).restoreText]);
    expect(read(files?.lastSync)).toBe(loaded[0]?.text);

    // The first sync wrote into no buffer; the second takes one, and once its files are written
    // the third takes the same.
    await apply(s, () => must(s.c.registry.create('services', 'default', service('web', { clusterIP: '10.96.0.20', ports: [{ name: 'http', port: 80 }] }))));
    s.clock.advance(0);
    await s.a.idle();
    expect(loaded.length).toBe(2);
    expect(loaded[1]?.memory).not.toBe(loaded[0]?.memory);
    expect(read(files?.lastSync)).toBe(loaded[1]?.text);
    expect(loaded[1]?.text).toContain('"default/web:http has no endpoints"');
    await apply(s, () => must(s.c.registry.create('services', 'default', service('api', { clusterIP: '10.96.0.23', ports: [{ name: 'grpc', port: 9090 }] }))));
    s.clock.advance(1000);
    await s.a.idle();
    expect(loaded.length).toBe(3);
    expect(loaded[2]?.memory).toBe(loaded[1]?.memory);
    expect(read(files?.lastSync)).toBe(loaded[2]?.text);
    expect(loaded[2]?.text).toContain('"default/api:grpc has no endpoints"');

    // Two syncs in one turn (the runner's burst): the second starts before the first's files are
    // written, so it takes another buffer, and each file holds what its sync wrote.
    await apply(s, () => must(s.c.registry.create('services', 'default', service('db', { clusterIP: '10.96.0.21', ports: [{ name: 'sql', port: 5432 }] }))));
    s.clock.advance(1000);
    await apply(s, () => must(s.c.registry.create('services', 'default', service('cache', { clusterIP: '10.96.0.22', ports: [{ name: 'redis', port: 6379 }] }))));
    s.clock.advance(0);
    expect(loaded.length).toBe(5);
    expect(loaded[4]?.memory).not.toBe(loaded[3]?.memory);
    await s.a.idle();
    expect(read(files?.lastSync)).toBe(loaded[4]?.text);
    expect(loaded[4]?.text).toContain('"default/cache:redis has no endpoints"');
    expect(read(files?.rules)).toBe(fullRender(s).restoreText);
  });

  it('with tablesFilesIntervalMs, a sync inside the interval writes last-sync.txt alone, and the tables as they stand are written when the interval ends', async () => {
    const s = await start({ iptables: { tablesFilesIntervalMs: 10_000 } });
    await s.a.idle();
    const files = s.a.iptablesFiles;
    // The first sync renders the tables.
    expect(read(files?.rules)).toBe(fullRender(s).restoreText);
    const first = read(files?.rules);
    await apply(s, () => must(s.c.registry.create('services', 'default', service('web', { clusterIP: '10.96.0.20', selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] }))));
    s.clock.advance(0);
    await s.a.idle();
    expect(s.syncs[1]).toMatchObject({ mode: 'partial', servicesChanged: 1 });
    expect(read(files?.lastSync)).toContain('default/web:http has no endpoints');
    // Inside the interval: the tables files are those of the first sync still.
    expect(read(files?.rules)).toBe(first);
    await apply(s, () => must(s.c.registry.create('endpointslices', 'default', endpointSlice('web', ['10.244.1.5'], [{ name: 'http', port: 8080, protocol: 'TCP' }]))));
    s.clock.advance(1000);
    await s.a.idle();
    expect(s.syncs).toHaveLength(3);
    expect(read(files?.rules)).toBe(first);
    // The interval ends: one render of the tables after both syncs, with no sync of its own.
    s.clock.advance(9000);
    await s.a.idle();
    expect(s.syncs).toHaveLength(3);
    const render = fullRender(s);
    expect(read(files?.rules)).toBe(render.restoreText);
    expect(read(files?.rules)).toContain('default/web:http -> 10.244.1.5:8080');
    const saved = iptablesSaveView(render.restoreText, { backend: 'nft' });
    expect(saved.ok && read(files?.save)).toBe(saved.ok ? saved.value : 'unreachable');
    // A sync a whole interval after that render writes the tables itself.
    s.clock.advance(10_000);
    await apply(s, () => must(s.c.registry.delete('services', 'default', 'web')).then((d) => d.object as Service));
    s.clock.advance(0);
    await s.a.idle();
    expect(s.syncs).toHaveLength(4);
    expect(read(files?.rules)).toBe(fullRender(s).restoreText);
    expect(read(files?.rules)).not.toContain('default/web');
  });
});

describe('iptables proxy: tables files never re-rendered', () => {
  it('with tablesFilesIntervalMs Infinity, only the first sync writes rules.txt; later syncs write last-sync.txt alone, and no timer waits', async () => {
    const s = await start({ iptables: { tablesFilesIntervalMs: Infinity } });
    await s.a.idle();
    const files = s.a.iptablesFiles;
    const first = read(files?.rules);
    expect(first).toBe(fullRender(s).restoreText);
    await apply(s, () => must(s.c.registry.create('services', 'default', service('web', { clusterIP: '10.96.0.20', selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] }))));
    s.clock.advance(0);
    await s.a.idle();
    expect(s.syncs[1]).toMatchObject({ mode: 'partial', servicesChanged: 1 });
    expect(read(files?.lastSync)).toContain('default/web:http has no endpoints');
    s.clock.advance(3_600_000 - 1);
    await s.a.idle();
    expect(read(files?.rules)).toBe(first);
  });
});

describe('iptables proxy: the save view across syncs', () => {
  it('a partial sync after one slice change parses and prints only the changed Service\'s rules again for rules.save.txt', async () => {
    const clock = virtualClock(Date.UTC(2026, 0, 1));
    cluster = await openTestCluster(clock, 'memory');
    const c = cluster;
    for (let i = 0; i < 20; i++) {
      await must(c.registry.create('services', 'default', service(`svc-${i}`, { clusterIP: `10.96.0.${100 + i}`, ports: [{ name: 'http', port: 80 }] })));
      await must(c.registry.create('endpointslices', 'default', endpointSlice(`svc-${i}`, [`10.244.${i}.1`, `10.244.${i}.2`], [{ name: 'http', port: 8080, protocol: 'TCP' }])));
    }
    const started = await startNodeAgent({ source: c.informer, clock, nodeName: 'node-1', nodeIP: '192.0.2.10', clusterCIDR: '10.244.0.0/16', dataDir: c.dir, dnsPort: false });
    if (!started.ok) throw new Error(started.error.message);
    agent = started.value;
    const config = agent.proxierConfig;
    if (config === undefined) throw new Error('no proxier config');
    const proxy = IptablesProxy.start({ source: c.informer, clock, logger: { log: () => undefined }, config, dataDir: join(c.dir, 'direct') });
    const unsubscribe = c.informer.onChange((change) => proxy.onChange(change));
    try {
      const before = proxy.saveViewStats();
      if (before === undefined) throw new Error('no save view memo at an interval of 0');
      expect(before.views).toBe(1);
      const slice = await must(c.registry.get<EndpointSlice>('endpointslices', 'default', 'svc-7-1'));
      await apply({ c } as Started, () => must(c.registry.update('endpointslices', 'default', 'svc-7-1', { ...slice, endpoints: [{ addresses: ['10.244.7.9'], conditions: { ready: true } }, ...(slice.endpoints ?? []).slice(1)] })));
      clock.advance(0);
      await proxy.flushed();
      expect(proxy.lastSync()).toMatchObject({ full: false, servicesChanged: 1, syncs: 2 });
      const after = proxy.saveViewStats();
      if (after === undefined) throw new Error('no save view memo at an interval of 0');
      expect(after.views).toBe(2);
      // 10.244.7.1 replaced by 10.244.7.9: the new SEP chain's two rules (mark, DNAT) and the SVC
      // chain's two jumps (10.244.7.2 now first, with the probability; 10.244.7.9 second) are new lines.
      expect(after.linesParsed - before.linesParsed).toBe(4);
      expect(after.rulesPrinted - before.rulesPrinted).toBe(4);
      expect(before.linesParsed).toBeGreaterThan(100);
      const saved = iptablesSaveView(fullRender({ c, a: agent } as Started).restoreText, { backend: 'nft' });
      expect(saved.ok && read(proxy.files.save)).toBe(saved.ok ? saved.value : 'unreachable');
    } finally {
      unsubscribe();
      await proxy.stop();
    }
  });

  it('with the tables rendered at the first sync only, no memo is kept and rules.save.txt is still the save view of rules.txt', async () => {
    const clock = virtualClock(Date.UTC(2026, 0, 1));
    cluster = await openTestCluster(clock, 'memory');
    const c = cluster;
    for (let i = 0; i < 5; i++) {
      await must(c.registry.create('services', 'default', service(`svc-${i}`, { clusterIP: `10.96.0.${100 + i}`, ports: [{ name: 'http', port: 80 }] })));
      await must(c.registry.create('endpointslices', 'default', endpointSlice(`svc-${i}`, [`10.244.${i}.1`], [{ name: 'http', port: 8080, protocol: 'TCP' }])));
    }
    const started = await startNodeAgent({ source: c.informer, clock, nodeName: 'node-1', nodeIP: '192.0.2.10', clusterCIDR: '10.244.0.0/16', dataDir: c.dir, dnsPort: false });
    if (!started.ok) throw new Error(started.error.message);
    agent = started.value;
    const config = agent.proxierConfig;
    if (config === undefined) throw new Error('no proxier config');
    const once = IptablesProxy.start({ source: c.informer, clock, logger: { log: () => undefined }, config, dataDir: join(c.dir, 'once'), tablesFilesIntervalMs: Infinity });
    const every = IptablesProxy.start({ source: c.informer, clock, logger: { log: () => undefined }, config, dataDir: join(c.dir, 'every') });
    try {
      await Promise.all([once.flushed(), every.flushed()]);
      expect(once.saveViewStats()).toBeUndefined();
      expect(every.saveViewStats()).toMatchObject({ views: 1 });
      const saved = iptablesSaveView(read(once.files.rules), { backend: 'nft' });
      expect(saved.ok).toBe(true);
      expect(read(once.files.save)).toBe(saved.ok ? saved.value : 'unreachable');
      expect(read(once.files.save)).toBe(read(every.files.save));
      expect(read(once.files.save)).toContain('10.244.4.1:8080');
    } finally {
      await once.stop();
      await every.stop();
    }
  });
});

describe('iptables proxy: restore buffers', () => {
  it('a sync made while the earlier ones\' files wait to be written replaces their last-sync.txt and hands that buffer back: two buffers serve seven syncs; once written, SPARE_BUFFERS are kept', async () => {
    const clock = virtualClock(Date.UTC(2026, 0, 1));
    const dir = join(tmpdir(), `iptables-buffers-${process.pid}-${Date.now()}`);
    const config = proxierConfig({ nodeName: 'node-1', nodeIPs: ['192.0.2.10'], nodeIP: '192.0.2.10' });
    if (!config.ok) throw new Error(config.error.message);
    const proxy = IptablesProxy.start({ source: { list: () => [], get: () => undefined }, clock, logger: { log: () => undefined }, config: config.value, dataDir: dir, minSyncPeriodMs: 0, burstSyncs: 10, tablesFilesIntervalMs: Infinity });
    try {
      // Seven syncs in one turn: no file write can finish before the last of them.
      for (let i = 0; i < 6; i++) {
        proxy.onChange({ resource: 'services', type: 'ADDED', object: service(`svc-${i}`, { clusterIP: `10.96.0.${10 + i}`, ports: [{ name: 'http', port: 80 }] }) });
        clock.advance(0);
      }
      expect(proxy.lastSync()).toMatchObject({ syncs: 7, full: false });
      // One buffer holds the last sync's text, which waits to be written; the one before is back.
      expect(proxy.spareBuffers).toBe(1);
      await proxy.flushed();
      expect(SPARE_BUFFERS).toBe(2);
      expect(proxy.spareBuffers).toBe(SPARE_BUFFERS);
      expect(readFileSync(join(dir, 'iptables', 'last-sync.txt'), 'utf8')).toContain('default/svc-5:http');
      // The next sync takes a kept buffer and gives it back.
      proxy.onChange({ resource: 'services', type: 'ADDED', object: service('svc-6', { clusterIP: '10.96.0.16', ports: [{ name: 'http', port: 80 }] }) });
      clock.advance(0);
      expect(proxy.spareBuffers).toBe(SPARE_BUFFERS - 1);
      await proxy.flushed();
      expect(proxy.spareBuffers).toBe(SPARE_BUFFERS);
    } finally {
      await proxy.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('iptables proxy: a render cache shared by two nodes\' proxies', () => {
  it('each proxy writes the files it writes alone, at the first sync and after a slice change, and the second takes the ClusterIP Services\' text from the cache', async () => {
    const clock = virtualClock(Date.UTC(2026, 0, 1));
    cluster = await openTestCluster(clock, 'memory');
    const c = cluster;
    for (let i = 0; i < 4; i++) {
      await must(c.registry.create('services', 'default', service(`svc-${i}`, { clusterIP: `10.96.0.${100 + i}`, ports: [{ name: 'http', port: 80 }], ...(i === 3 ? { internalTrafficPolicy: 'Local' as const } : {}) })));
      await must(c.registry.create('endpointslices', 'default', endpointSlice(`svc-${i}`, [`10.244.${i}.1`, `10.244.${i}.2`], [{ name: 'http', port: 8080, protocol: 'TCP' }])));
    }
    const configOf = (node: string, ip: string) => {
      const checked = proxierConfig({ nodeName: node, nodeIPs: [ip], nodeIP: ip, localDetector: { kind: 'cidr', cidr: '10.244.0.0/16' } });
      if (!checked.ok) throw new Error(checked.error.message);
      return checked.value;
    };
    const cache = createRenderCache();
    const logger = { log: () => undefined };
    const proxies = [
      IptablesProxy.start({ source: c.informer, clock, logger, config: configOf('node-1', '192.0.2.1'), dataDir: join(c.dir, 'shared-1'), minSyncPeriodMs: 0, renderCache: cache }),
      IptablesProxy.start({ source: c.informer, clock, logger, config: configOf('node-2', '192.0.2.2'), dataDir: join(c.dir, 'shared-2'), minSyncPeriodMs: 0, renderCache: cache }),
      IptablesProxy.start({ source: c.informer, clock, logger, config: configOf('node-1', '192.0.2.1'), dataDir: join(c.dir, 'alone-1'), minSyncPeriodMs: 0 }),
      IptablesProxy.start({ source: c.informer, clock, logger, config: configOf('node-2', '192.0.2.2'), dataDir: join(c.dir, 'alone-2'), minSyncPeriodMs: 0 }),
    ];
    const unsubscribe = c.informer.onChange((change) => {
      for (const p of proxies) p.onChange(change);
    });
    const [shared1, shared2, alone1, alone2] = proxies as [IptablesProxy, IptablesProxy, IptablesProxy, IptablesProxy];
    const same = async () => {
      await Promise.all(proxies.map((p) => p.flushed()));
      for (const [a, b] of [[shared1, alone1], [shared2, alone2]] as const) {
        expect(read(a.files.lastSync)).toBe(read(b.files.lastSync));
        expect(read(a.files.rules)).toBe(read(b.files.rules));
      }
    };
    try {
      await same();
      // svc-0 .. svc-2 rendered by node-1's proxy, taken by node-2's; svc-3 (Local) rendered by each.
      expect(cache.stats()).toStrictEqual({ hits: 3, stored: 3 });
      const slice = await must(c.registry.get<EndpointSlice>('endpointslices', 'default', 'svc-1-1'));
      await apply({ c } as Started, () => must(c.registry.update('endpointslices', 'default', 'svc-1-1', { ...slice, endpoints: [{ addresses: ['10.244.1.9'], conditions: { ready: true } }, ...(slice.endpoints ?? []).slice(1)] })));
      clock.advance(0);
      await same();
      expect(shared2.lastSync()).toMatchObject({ full: false, servicesChanged: 1, syncs: 2 });
      expect(read(shared2.files.lastSync)).toContain('10.244.1.9:8080');
      expect(cache.stats()).toStrictEqual({ hits: 4, stored: 4 });
    } finally {
      unsubscribe();
      await Promise.all(proxies.map((p) => p.stop()));
    }
  });
});
