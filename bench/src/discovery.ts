// Bench suite "discovery": the pure resolver on a zone of 10,000 services (A, SRV, PTR,
// NXDOMAIN), the wire path (handleQuery), building the zone, and the DNS server on loopback.
//
// The loopback figures: tinybench times one function, which fits one query's round trip but
// not a rate. So the loopback task's setup measures queries per second once, from one UDP
// client in this process, bounded in count (LOOPBACK_MAX) and time (LOOPBACK_MS per figure):
// one query in flight at a time, then a window of LOOPBACK_WINDOW. Then it runs the side-by-side
// comparison with dnsmasq under dnsperf (dns-peer.ts). Its metrics() reports all of it and
// closes the server (the harness has no teardown hook; metrics() is the task's last call).
import { createSocket, type Socket } from 'node:dgram';
import type { Endpoints, Service } from '@kubesvc/api-types';
import { buildZone, resolve, reverseName, type Zone } from '@kubesvc/discovery';
import { handleQuery, startDnsServer, type DnsServer } from '@kubesvc/discovery/node';
import { compareWithDnsmasq, type ARecordSet } from './dns-peer.js';
import type { BenchSuite, BenchTask } from './harness.js';

const SERVICES = 10_000;
const HEADLESS_EVERY = 10;
const ENDPOINTS_PER_HEADLESS = 5;
const LOOPBACK_MS = 1000;
const LOOPBACK_MAX = 50_000;
const LOOPBACK_WINDOW = 32;
const REPLY_TIMEOUT_MS = 1000;

interface Cluster {
  readonly services: Service[];
  readonly endpoints: Endpoints[];
}

function cluster(): Cluster {
  const services: Service[] = [];
  const endpoints: Endpoints[] = [];
  for (let i = 0; i < SERVICES; i++) {
    const name = `svc-${i}`;
    const namespace = `ns-${i % 100}`;
    const ports = [
      { name: 'http', port: 80, protocol: 'TCP' as const },
      { name: 'metrics', port: 9090, protocol: 'TCP' as const },
    ];
    const headless = i % HEADLESS_EVERY === 0;
    const clusterIP = headless ? 'None' : `10.96.${(i >> 8) & 255}.${i & 255}`;
    services.push({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { clusterIP, clusterIPs: [clusterIP], ports } });
    const addresses = Array.from({ length: ENDPOINTS_PER_HEADLESS }, (_, k) => ({ ip: `10.244.${(i >> 8) & 255}.${(i & 255) ^ (k << 5)}`, hostname: `${name}-${k}` }));
    endpoints.push({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name, namespace },
      subsets: [{ addresses: headless ? addresses : addresses.slice(0, 2), ports: ports.map((p) => ({ ...p, port: p.port + 8000 })) }],
    });
  }
  return { services, endpoints };
}

const utf8 = new TextEncoder();

/**
 * A DNS query message for an A record, built by hand (RFC 1035 §4.1): the bench depends on
 * the kubesvc packages only, not on dns-packet.
 */
function encodeQuery(id: number, name: string): Uint8Array {
  const labels = name.split('.').flatMap((label) => [label.length, ...utf8.encode(label)]);
  return Uint8Array.from([id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, ...labels, 0, 0, 1, 0, 1]);
}

function rotating<T>(items: readonly T[]): () => T {
  let i = 0;
  return () => {
    const item = items[i % items.length];
    i++;
    if (item === undefined) throw new Error('empty rotation');
    return item;
  };
}

/** One UDP client that sends queries and matches replies by id. */
class Client {
  private readonly socket: Socket = createSocket('udp4');
  private readonly waiting = new Map<number, () => void>();
  private nextId = 0;

  constructor(private readonly port: number) {
    this.socket.on('message', (msg) => {
      const id = ((msg[0] ?? 0) << 8) | (msg[1] ?? 0);
      const done = this.waiting.get(id);
      this.waiting.delete(id);
      done?.();
    });
  }

  query(name: string): Promise<boolean> {
    const id = this.nextId;
    this.nextId = (this.nextId + 1) & 0xffff;
    const bytes = encodeQuery(id, name);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve(false);
      }, REPLY_TIMEOUT_MS);
      this.waiting.set(id, () => {
        clearTimeout(timer);
        resolve(true);
      });
      this.socket.send(bytes, this.port, '127.0.0.1');
    });
  }

  close(): void {
    this.socket.close();
  }
}

/** Queries per second with `window` queries in flight, bounded by LOOPBACK_MS and LOOPBACK_MAX. */
async function rate(client: Client, names: () => string, window: number): Promise<{ qps: number; lost: number }> {
  const start = performance.now();
  let sent = 0;
  let answered = 0;
  let lost = 0;
  const lane = async (): Promise<void> => {
    while (sent < LOOPBACK_MAX && performance.now() - start < LOOPBACK_MS) {
      sent++;
      if (await client.query(names())) answered++;
      else lost++;
    }
  };
  await Promise.all(Array.from({ length: window }, lane));
  return { qps: answered / ((performance.now() - start) / 1000), lost };
}

/**
 * The A records of the cluster's zone, as a hosts file states them: each service name with its
 * ClusterIP, or with its endpoints' addresses when headless; each named endpoint of a headless
 * service with its own address.
 */
function aRecords(c: Cluster): ARecordSet[] {
  const records: ARecordSet[] = [];
  c.services.forEach((s, i) => {
    const name = `${s.metadata.name}.${s.metadata.namespace}.svc.cluster.local`;
    const clusterIP = s.spec?.clusterIP;
    if (clusterIP !== 'None' && clusterIP !== undefined) {
      records.push({ name, addresses: [clusterIP] });
      return;
    }
    const addresses = c.endpoints[i]?.subsets?.flatMap((sub) => sub.addresses ?? []) ?? [];
    records.push({ name, addresses: addresses.map((a) => a.ip) });
    for (const a of addresses) if (a.hostname !== undefined) records.push({ name: `${a.hostname}.${name}`, addresses: [a.ip] });
  });
  return records;
}

function loopbackTask(zone: () => Zone, names: () => string, records: () => ARecordSet[]): BenchTask {
  let server: DnsServer | undefined;
  let client: Client | undefined;
  const metrics: Record<string, number> = {};
  return {
    name: 'loopback: one UDP query round trip (dig-like client, same process)',
    setup: async () => {
      server = await startDnsServer({ host: '127.0.0.1', port: 0, zone: zone() });
      client = new Client(server.port);
      const one = await rate(client, names, 1);
      const many = await rate(client, names, LOOPBACK_WINDOW);
      Object.assign(metrics, { qpsOneInFlight: one.qps, [`qps${LOOPBACK_WINDOW}InFlight`]: many.qps, lost: one.lost + many.lost });
      Object.assign(metrics, await compareWithDnsmasq(zone(), records()));
    },
    fn: async () => {
      if (client === undefined) throw new Error('loopback task not set up');
      if (!(await client.query(names()))) throw new Error('no reply within 1 s');
    },
    metrics: () => {
      client?.close();
      void server?.close();
      client = undefined;
      server = undefined;
      return metrics;
    },
  };
}

/** The suite's inputs: the cluster, its zone and the names each task asks for, in turn. */
interface Inputs {
  readonly cluster: Cluster;
  zone: Zone;
  readonly a: () => string;
  readonly srv: () => string;
  readonly ptr: () => string;
  readonly nx: () => string;
  readonly wire: () => Uint8Array;
  readonly loopNames: () => string;
}

/** The zone of the generated cluster (default options, which buildZone accepts). */
function zoneOf(services: readonly Service[], endpoints: readonly Endpoints[]): Zone {
  const built = buildZone(services, endpoints);
  if (!built.ok) throw new Error(built.error.message);
  return built.value;
}

function prepare(): Inputs {
  const generated = cluster();
  const { services, endpoints } = generated;
  const zone = zoneOf(services, endpoints);
  const clusterIPNames = services.filter((s) => s.spec?.clusterIP !== 'None').map((s) => `${s.metadata.name}.${s.metadata.namespace}.svc.cluster.local`);
  const headlessNames = services.filter((s) => s.spec?.clusterIP === 'None').map((s) => `_http._tcp.${s.metadata.name}.${s.metadata.namespace}.svc.cluster.local`);
  const ptrNames = [...zone.services.values()].flatMap((s) => s.clusterIPs.map((a) => reverseName(a.ip)));
  return {
    cluster: generated,
    zone,
    a: rotating(clusterIPNames),
    srv: rotating(headlessNames),
    ptr: rotating(ptrNames),
    nx: rotating(clusterIPNames.map((n) => `x${n}`)),
    wire: rotating(clusterIPNames.slice(0, 1000).map((name) => encodeQuery(1, name))),
    loopNames: rotating(clusterIPNames),
  };
}

export function discoverySuite(): BenchSuite {
  // The inputs are built by the first task that runs, not here: every suite is constructed
  // for `--list` and whenever another suite is chosen, and a 10,000-service zone is not free.
  let inputs: Inputs | undefined;
  const load = (): Inputs => (inputs ??= prepare());
  const count = (n: number) => ({ services: SERVICES, records: n });
  return {
    name: 'discovery',
    description: `cluster DNS on ${SERVICES} services (1 in ${HEADLESS_EVERY} headless with ${ENDPOINTS_PER_HEADLESS} endpoints): resolve(), handleQuery(), buildZone(), the server on loopback`,
    tasks: [
      { name: 'resolve A (ClusterIP)', setup: load, fn: () => resolve(load().zone, { name: load().a(), type: 'A' }), metrics: () => count(1) },
      { name: 'resolve SRV (headless, 5 targets)', setup: load, fn: () => resolve(load().zone, { name: load().srv(), type: 'SRV' }), metrics: () => count(10) },
      { name: 'resolve PTR (ClusterIP)', setup: load, fn: () => resolve(load().zone, { name: load().ptr(), type: 'PTR' }), metrics: () => count(1) },
      { name: 'resolve NXDOMAIN', setup: load, fn: () => resolve(load().zone, { name: load().nx(), type: 'A' }), metrics: () => count(1) },
      { name: 'handleQuery A (decode, resolve, encode)', setup: load, fn: () => handleQuery(load().zone, load().wire()) },
      {
        name: `buildZone (${SERVICES} services + endpoints)`,
        setup: load,
        fn: () => {
          const input = load();
          input.zone = zoneOf(input.cluster.services, input.cluster.endpoints);
        },
      },
      loopbackTask(
        () => load().zone,
        () => load().loopNames(),
        () => aRecords(load().cluster),
      ),
    ],
  };
}
