// Several `kubesvc up` processes (the real bin) on one real etcd (Debian's etcd-server, started
// on free loopback ports with a temp data dir): each an apiserver bound to its own loopback
// address (127.0.0.2-4, all routed to lo) and advertising a documentation address (192.0.2.10-12:
// only data in the kubernetes Endpoints). Only the first runs the controllers (--controllers):
// the apiservers run the bootstrap controller and the repair loops, as every kube-apiserver does.
// Counts: KUBESVC_HA_SERVICES Services per apiserver, default 1,000 (3,000 creates, about 20 s on
// a 2-core machine; docs/performance.md has the figures).
// upstream facts: pkg/registry/core/service/ipallocator and portallocator (the 422 for a taken
// static value, the static band at the bottom of each range that dynamic allocation avoids while
// it can), pkg/registry/core/service/ipallocator/controller/repair.go (a leak is freed after
// numRepairsBeforeLeakCleanup = 3 runs), pkg/controlplane/reconcilers/lease.go (Endpoints list
// the live masters' leases, sorted; RemoveEndpoints on shutdown), instancecount.go (master-count).
import { spawn } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openEtcdStore } from '@kubesvc/store/etcd';
import { freePort, startEtcd, type EtcdFixture } from '@kubesvc/testkit';
import { killAll, startUp, tempDir, type ApiReply, type UpProcess } from './ha.fixtures.js';
import { kubectl } from './up.fixtures.js';

const PER_SERVER = Number(process.env['KUBESVC_HA_SERVICES'] ?? 1000);
const CLIENTS = 4;
const CONTESTED = 100;
const STATIC_IP = '10.96.0.200';
const STATIC_PORT = 30050;
const REPAIR_MS = 1000;
const ENDPOINT_MS = 500;
const TTL_S = 5;
const ADDRS = ['192.0.2.10', '192.0.2.11', '192.0.2.12'];

let etcd: EtcdFixture | undefined;
afterEach(async () => {
  killAll();
  await etcd?.dispose();
  etcd = undefined;
});
afterAll(() => killAll());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function upArgs(endpoint: string, port: number, i: number, extra: readonly string[] = []): string[] {
  return [
    ...['--etcd-servers', endpoint, '--bind-address', `127.0.0.${i + 2}`, '--secure-port', String(port), '--advertise-address', ADDRS[i] ?? ''],
    ...['--node-name', `node-${i}`, '--controllers', i === 0 ? 'true' : 'false'],
    ...['--repair-services-interval', `${REPAIR_MS}ms`, '--endpoint-reconcile-interval', `${ENDPOINT_MS}ms`, '--master-lease-ttl', `${TTL_S}s`],
    ...extra,
  ];
}

async function cluster(n: number, extra: readonly string[] = []): Promise<{ endpoint: string; servers: UpProcess[] }> {
  etcd = await startEtcd({ name: 'kubesvc-ha', inMemory: true });
  const port = await freePort();
  const endpoint = etcd.endpoint;
  const servers = await Promise.all(Array.from({ length: n }, (_, i) => startUp(upArgs(endpoint, port, i, extra), { clients: CLIENTS })));
  return { endpoint, servers };
}

type Kind = 'static-ip' | 'static-port' | 'clusterip' | 'nodeport';
interface Outcome {
  readonly name: string;
  readonly kind: Kind;
  readonly server: number;
  readonly reply?: ApiReply;
  readonly error?: string;
}

function job(g: number, contested: boolean): { name: string; kind: Kind; body: unknown } {
  const kind: Kind = contested && g < 2 * CONTESTED ? (g % 2 === 0 ? 'static-ip' : 'static-port') : g % 4 === 0 ? 'nodeport' : 'clusterip';
  const name = `${kind}-${g}`;
  const spec =
    kind === 'static-ip'
      ? { clusterIP: STATIC_IP, ports: [{ port: 80 }] }
      : kind === 'static-port'
        ? { type: 'NodePort', ports: [{ port: 80, nodePort: STATIC_PORT }] }
        : kind === 'nodeport'
          ? { type: 'NodePort', ports: [{ port: 80 }] }
          : { ports: [{ port: 80 }] };
  return { name, kind, body: { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec } };
}

/** Every apiserver gets PER_SERVER creates (global index g % servers), CLIENTS at a time. */
async function createAll(servers: readonly UpProcess[], perServer: number, contested: boolean, onProgress?: (done: number) => void): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const total = servers.length * perServer;
  let done = 0;
  await Promise.all(
    servers.map(async (server, s) => {
      const queue: number[] = [];
      for (let g = s; g < total; g += servers.length) queue.push(g);
      const worker = async (): Promise<void> => {
        for (let g = queue.shift(); g !== undefined; g = queue.shift()) {
          const { name, kind, body } = job(g, contested);
          try {
            outcomes.push({ name, kind, server: s, reply: await server.api('POST', '/api/v1/namespaces/default/services', body) });
          } catch (error) {
            outcomes.push({ name, kind, server: s, error: error instanceof Error ? error.message : String(error) });
          }
          onProgress?.(++done);
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, worker));
    }),
  );
  return outcomes;
}

interface ServiceItem {
  metadata: { name: string };
  spec: { clusterIP?: string; ports?: { nodePort?: number }[] };
}

async function services(server: UpProcess): Promise<ServiceItem[]> {
  const r = await server.api('GET', '/api/v1/services');
  expect(r.status).toBe(200);
  return (r.body as { items: ServiceItem[] }).items;
}

/** Bits set in a RangeAllocation's data (big-endian big.Int bytes, bit i = offset i), as upstream's bitmap allocator stores it. */
function offsets(value: string): number[] {
  const data = Buffer.from((JSON.parse(value) as { data: string }).data, 'base64');
  const set: number[] = [];
  for (let i = 0; i < data.length * 8; i++) if (((data[data.length - 1 - (i >> 3)] ?? 0) >> (i & 7)) & 1) set.push(i);
  return set;
}

/** Allocated values that no Service holds (leaks), and held values the ranges do not mark (should be none). */
async function leaks(endpoint: string, list: readonly ServiceItem[]): Promise<{ ips: string[]; ports: number[]; unmarked: number }> {
  const store = await openEtcdStore({ endpoints: [endpoint] });
  try {
    const ipKv = (await store.get('/registry/ranges/serviceips')).kv;
    const portKv = (await store.get('/registry/ranges/servicenodeports')).kv;
    // 10.96.0.0/12 or /20: offset 0 is 10.96.0.1 (the network address is never handed out); ports from 30000.
    const ip = (o: number) => `10.${96 + ((o + 1) >> 16)}.${((o + 1) >> 8) & 255}.${(o + 1) & 255}`;
    const allocatedIps = new Set((ipKv === undefined ? [] : offsets(ipKv.value)).map(ip));
    const allocatedPorts = new Set((portKv === undefined ? [] : offsets(portKv.value)).map((o) => 30000 + o));
    const heldIps = new Set(list.map((s) => s.spec.clusterIP ?? '').filter((c) => c !== '' && c !== 'None'));
    const heldPorts = new Set(list.flatMap((s) => (s.spec.ports ?? []).map((p) => p.nodePort ?? 0)).filter((p) => p !== 0));
    const unmarked = [...heldIps].filter((i) => !allocatedIps.has(i)).length + [...heldPorts].filter((p) => !allocatedPorts.has(p)).length;
    return { ips: [...allocatedIps].filter((i) => !heldIps.has(i)), ports: [...allocatedPorts].filter((p) => !heldPorts.has(p)), unmarked };
  } finally {
    await store.close();
  }
}

function duplicates<T>(values: readonly T[]): T[] {
  const seen = new Set<T>();
  return values.filter((v) => (seen.has(v) ? true : (seen.add(v), false)));
}

async function endpointIps(server: UpProcess): Promise<string[] | undefined> {
  const r = await server.api('GET', '/api/v1/namespaces/default/endpoints/kubernetes');
  if (r.status !== 200) return undefined;
  const subsets = (r.body as { subsets?: { addresses?: { ip: string }[] }[] }).subsets ?? [];
  return subsets.flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
}

async function until<T>(what: string, deadlineMs: number, read: () => Promise<T>, ok: (v: T) => boolean): Promise<{ value: T; atMs: number }> {
  const start = Date.now();
  let last: T | undefined;
  while (Date.now() - start < deadlineMs) {
    last = await read();
    if (ok(last)) return { value: last, atMs: Date.now() - start };
    await sleep(50);
  }
  throw new Error(`${what}: not within ${deadlineMs} ms; last ${JSON.stringify(last)}`);
}

const CLEAN_STATUS = (o: Outcome) => o.reply !== undefined && (o.reply.body as { kind?: string; code?: number }).kind === 'Status' && (o.reply.body as { code?: number }).code === o.reply.status;

function checkContested(outcomes: readonly Outcome[], kind: Kind, message: (name: string) => string): void {
  const mine = outcomes.filter((o) => o.kind === kind && o.reply !== undefined);
  const winners = mine.filter((o) => o.reply?.status === 201);
  expect(winners.length, `${kind}: winners`).toBe(1);
  for (const o of mine.filter((x) => x.reply?.status !== 201)) {
    expect(o.reply?.status, o.name).toBe(422);
    expect((o.reply?.body as { message?: string }).message, o.name).toBe(message(o.name));
  }
}

const ipTaken = (name: string) => `Service "${name}" is invalid: spec.clusterIPs: Invalid value: []string{"${STATIC_IP}"}: failed to allocate IP ${STATIC_IP}: provided IP is already allocated`;
const portTaken = (name: string) => `Service "${name}" is invalid: spec.ports[0].nodePort: Invalid value: ${STATIC_PORT}: provided port is already allocated`;

describe('several kubesvc up on one etcd', () => {
  it(`3 apiservers, ${PER_SERVER} concurrent creates each: no duplicate ClusterIP or NodePort, one winner per static value, no leak after 3 repair runs, Endpoints list all 3`, async () => {
    // A /20 (4,094 addresses) holds the 3,000 creates. With the /12 default every create rewrites a
    // 175 KB RangeAllocation that etcd's watch then carries to each apiserver: the same bitmap and
    // the same races, at about four times this test's CPU (docs/performance.md, "HA creates").
    const { endpoint, servers } = await cluster(3, ['--service-cluster-ip-range', '10.96.0.0/20']);
    const started = Date.now();
    const outcomes = await createAll(servers, PER_SERVER, true);
    const elapsed = Date.now() - started;
    expect(outcomes).toHaveLength(3 * PER_SERVER);
    expect(outcomes.filter((o) => o.error !== undefined).map((o) => o.error)).toEqual([]);
    checkContested(outcomes, 'static-ip', ipTaken);
    checkContested(outcomes, 'static-port', portTaken);
    const others = outcomes.filter((o) => o.kind === 'clusterip' || o.kind === 'nodeport');
    const unclean = others.filter((o) => o.reply?.status !== 201 && !CLEAN_STATUS(o));
    expect(unclean).toEqual([]);
    const created = others.filter((o) => o.reply?.status === 201).length;
    const failures = new Map<string, number>();
    for (const o of others.filter((x) => x.reply?.status !== 201)) {
      const k = `${o.reply?.status}: ${(o.reply?.body as { message?: string }).message}`;
      failures.set(k, (failures.get(k) ?? 0) + 1);
    }
    expect([...failures]).toEqual([]);

    const list = await services(servers[1] as UpProcess);
    expect(list.length).toBe(created + 2 + 1); // the two static winners and default/kubernetes
    expect(duplicates(list.map((s) => s.spec.clusterIP))).toEqual([]);
    expect(duplicates(list.flatMap((s) => (s.spec.ports ?? []).map((p) => p.nodePort ?? 0)).filter((p) => p !== 0))).toEqual([]);
    await sleep(3 * REPAIR_MS + 500);
    expect(await leaks(endpoint, await services(servers[2] as UpProcess))).toEqual({ ips: [], ports: [], unmarked: 0 });

    // Eventually, not within a lease TTL: the apiserver that runs the controllers is still working
    // through the 3,000 new Services, and on a busy machine a lease renewal of its can be late
    // enough to lapse; it puts itself back at its next renewal. The bound only stops a stuck run.
    const eps = await until('Endpoints list all 3', 60_000, () => endpointIps(servers[0] as UpProcess), (v) => v?.length === 3).catch((error: unknown) => {
      // What the apiservers logged (warnings and errors), to tell a starved lease from a stopped loop.
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${servers.map((x, i) => `--- apiserver ${i}:\n${x.stderr().slice(-3000)}`).join('\n')}`);
    });
    expect(eps.value).toEqual(ADDRS);
    console.log(`HA creates: ${outcomes.length} requests in ${elapsed} ms (${Math.round((outcomes.length * 1000) / elapsed)}/s), ${created} of ${others.length} plain creates succeeded`);
  }, Math.max(300_000, 3 * PER_SERVER * 250));

  it('kill -9 of one apiserver during the creates: survivors answer cleanly, their repair loops free its leaks, Endpoints drop it once its lease expires; SIGTERM removes an apiserver and its mirror pod at once', async () => {
    // With the bitmap allocator: this test is about the repair loops freeing what a killed
    // apiserver leaked, and v1.33's IPAddress allocator frees a leaked IPAddress only after
    // RepairIPAddress's 60 s grace and never clears the bit its dual write set (upstream runs
    // the bitmap repair only with MultiCIDRServiceAllocator off; pkg/controlplane/apiserver
    // storage_core.go). A kill between the allocation and the Service's write leaks one.
    const { endpoint, servers } = await cluster(3, ['--feature-gates', 'MultiCIDRServiceAllocator=false']);
    const [first, second, victim] = servers as [UpProcess, UpProcess, UpProcess];
    // Each apiserver is a static pod of its node, as on a kubeadm cluster: its mirror pod in
    // kube-system, on the host network with the advertise address as its IP.
    const cache = tempDir();
    const controlPlane = async (): Promise<string[][]> =>
      (await kubectl(first.kubeconfig, cache, '-n', 'kube-system', 'get', 'pod', '-l', 'tier=control-plane', '-o', 'wide', '--no-headers'))
        .trim()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => line.split(/\s+/));
    // NAME READY STATUS RESTARTS AGE IP NODE NOMINATED-NODE READINESS-GATES
    const row = (r: string[]): string[] => [r[0] ?? '', r[1] ?? '', r[2] ?? '', r[5] ?? '', r[6] ?? ''];
    expect((await controlPlane()).map(row)).toEqual([0, 1, 2].map((i) => [`kube-apiserver-node-${i}`, '1/1', 'Running', ADDRS[i] ?? '', `node-${i}`]));
    const perServer = 60;
    const budget = TTL_S * 1000 + ENDPOINT_MS;
    let killedAt = 0;
    // Watched from the kill on, while the creates go on.
    let converged: Promise<{ value: string[] | undefined; atMs: number }> | undefined;
    const outcomes = await createAll(servers, perServer, false, (done) => {
      if (done === 2 * perServer && killedAt === 0) {
        victim.child.kill('SIGKILL');
        killedAt = Date.now();
        // Within TTL + one interval on an idle machine; the bound only stops a stuck run (the
        // lease timing itself is control-plane.test.ts's, on a virtual clock).
        converged = until('Endpoints drop the killed apiserver', 60_000, () => endpointIps(first), (v) => v?.join(',') === ADDRS.slice(0, 2).join(','));
      }
    });
    expect(killedAt).toBeGreaterThan(0);
    const survivors = outcomes.filter((o) => o.server !== 2);
    expect(survivors.filter((o) => o.reply?.status !== 201 && !CLEAN_STATUS(o))).toEqual([]);
    const list = await services(first);
    expect(duplicates(list.map((x) => x.spec.clusterIP))).toEqual([]);
    expect(duplicates(list.flatMap((x) => (x.spec.ports ?? []).map((p) => p.nodePort ?? 0)).filter((p) => p !== 0))).toEqual([]);

    const eps = await converged;
    expect(eps?.value).toEqual(ADDRS.slice(0, 2));
    const droppedAfter = eps?.atMs ?? Infinity;

    const leakedAtFirstLook = await leaks(endpoint, await services(first));
    const freed = await until('the survivors free the leaks', 60_000, async () => leaks(endpoint, await services(second)), (l) => l.ips.length === 0 && l.ports.length === 0);
    expect(freed.value.unmarked).toBe(0);
    console.log(`churn: Endpoints dropped the killed apiserver ${droppedAfter} ms after kill -9; leaks seen then: ${leakedAtFirstLook.ips.length} IPs, ${leakedAtFirstLook.ports.length} ports; freed ${freed.atMs} ms later`);

    // Once TTL + one interval (and the slack) have passed since the kill, every lease the killed
    // apiserver could have written has expired: the Endpoints stay on the two survivors.
    await sleep(Math.max(0, killedAt + budget + 4000 - Date.now()));
    expect(await endpointIps(first)).toEqual(ADDRS.slice(0, 2));

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(await endpointIps(first)).toEqual([ADDRS[0]]);
    // The stopped apiserver took its pod with it; the killed one's stays, as a dead node's pods do.
    expect((await controlPlane()).map((r) => r[0])).toEqual(['kube-apiserver-node-0', 'kube-apiserver-node-2']);
  }, 300_000);

  it('master-count with --apiserver-count below the number of apiservers flaps, as upstream does: each one puts itself back and drops another', async () => {
    const { servers } = await cluster(3, ['--endpoint-reconciler-type', 'master-count', '--apiserver-count', '2']);
    const first = servers[0] as UpProcess;
    const seen = new Set<string>();
    const versions = new Set<string>();
    for (const started = Date.now(); Date.now() - started < 8 * ENDPOINT_MS; ) {
      const r = await first.api('GET', '/api/v1/namespaces/default/endpoints/kubernetes');
      expect(r.status).toBe(200);
      const body = r.body as { metadata: { resourceVersion: string }; subsets?: { addresses?: { ip: string }[] }[] };
      const ips = (body.subsets ?? []).flatMap((x) => (x.addresses ?? []).map((a) => a.ip));
      expect(ips.length).toBeLessThanOrEqual(2);
      seen.add(ips.join(','));
      versions.add(body.metadata.resourceVersion);
      await sleep(50);
    }
    expect(seen.size).toBeGreaterThanOrEqual(2);
    expect(versions.size).toBeGreaterThanOrEqual(3);
  }, 300_000);

  it('etcd stopped (SIGTERM) for 5 s and started again on its data dir: no acknowledged write is lost and a kubectl watch sees every change', async () => {
    const { servers } = await cluster(2);
    const [first, second] = servers as [UpProcess, UpProcess];
    const cache = tempDir('kubesvc-ha-kubectl-');
    const watch = spawn(
      '/usr/bin/kubectl',
      ['--kubeconfig', first.kubeconfig, `--cache-dir=${cache}`, 'get', 'svc', '-w', '--output-watch-events', '-o', 'jsonpath={.type} {.object.metadata.name}{"\\n"}'],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBECONFIG: first.kubeconfig } },
    );
    let events = '';
    let watchErr = '';
    watch.stdout.setEncoding('utf8').on('data', (c: string) => (events += c));
    watch.stderr.setEncoding('utf8').on('data', (c: string) => (watchErr += c));
    try {
      await until('kubectl watch lists', 30_000, () => Promise.resolve(events), (e) => e.includes('ADDED kubernetes'));
      const acked: string[] = [];
      const create = async (name: string, server: UpProcess): Promise<void> => {
        try {
          const r = await server.api('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }] } });
          if (r.status === 201) acked.push(name);
        } catch {
          // no acknowledgement: nothing to check for this one
        }
      };
      for (let i = 0; i < 4; i++) await create(`before-${i}`, i % 2 === 0 ? first : second);
      await etcd?.stop();
      const during = [create('during-0', first), create('during-1', second)];
      await sleep(5000);
      await etcd?.restart();
      await Promise.all(during);
      for (let i = 0; i < 4; i++) await create(`after-${i}`, i % 2 === 0 ? first : second);
      const deleted = await second.api('DELETE', '/api/v1/namespaces/default/services/before-0');
      expect(deleted.status).toBe(200);

      const names = (await services(second)).map((x) => x.metadata.name);
      for (const name of acked.filter((n) => n !== 'before-0')) expect(names).toContain(name);
      expect(names).not.toContain('before-0');
      // Every Service that exists, and the delete, reached the watch, in order, once.
      const wanted = [...names.filter((n) => n !== 'kubernetes').map((n) => `ADDED ${n}`), 'DELETED before-0'];
      await until('the watch sees every change', 30_000, () => Promise.resolve(events), (e) => wanted.every((w) => e.split('\n').includes(w)));
      const lines = events.trim().split('\n');
      expect(duplicates(lines.filter((l) => l.startsWith('ADDED')))).toEqual([]);
      expect(lines.indexOf('DELETED before-0')).toBeGreaterThan(lines.indexOf('ADDED before-0'));
      expect(watch.exitCode, watchErr).toBeNull();
      console.log(`etcd restart: ${acked.length} acknowledged creates (${acked.filter((n) => n.startsWith('during')).length} of 2 made while etcd was down), watch lines: ${lines.length}`);
    } finally {
      watch.kill('SIGKILL');
    }
  }, 300_000);
});
