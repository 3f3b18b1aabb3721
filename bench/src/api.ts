// Bench suite "api": the HTTP API over the SQLite store (synchronous=NORMAL) as `kubesvc up`
// serves it: HTTPS with its self-signed certificate, the bearer token on every request, a /12
// service CIDR (10.96.0.0/12, kubesvc up's default: its RangeAllocation is 128 KiB of bitmap),
// on 127.0.0.1, driven by undici (keep-alive connections, the certificate as its CA) from a
// worker thread: a kubectl or a controller is another process, and a client on the server's
// thread would take its CPU on 2 cores, so the figures measure the server (the worker's own CPU
// is on the other core). The TLS handshake happens once per connection, as for one kubectl
// process.
// - Service creates, 16 in flight at a time: each POST is decoded, validated, allocated a
//   ClusterIP and written, and answered with the created object. Once on the bare API (the
//   registry alone), once with kubesvc up's control plane behind it (the informer, the
//   bootstrap controller, and the endpoints, EndpointSlice, mirroring and kubelet controllers,
//   which write an Endpoints and an EndpointSlice for each of these Services, as
//   kube-controller-manager would).
// - A list of 10,000 Services across all namespaces, the whole JSON body received.
// Beside the times, each task reports the server thread's CPU time and minor page faults per
// create or per list (the steadier figures on a machine shared with other work, and the
// client's apart: the harness's faults/op counts the whole process) and the creates' range
// writes per create (one per batch of allocations).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { standardControllers } from '@kubesvc/controllers';
import {
  generateServingCertificate,
  openRegistry,
  silentLogger,
  startApiServer,
  type ApiServer,
  type Registry,
  type ServingCertificate,
} from '@kubesvc/apiserver';
import { startControlPlane, type ControlPlane } from '@kubesvc/runtime';
import { systemClock, type Store } from '@kubesvc/store';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import type { BenchSuite, BenchTask } from './harness.js';
import { mainThreadCpuNs, mainThreadMinorFaults } from './peer-process.js';

/** (after - before) / count: a counter's growth per unit of work; NaN when a reading or the work is missing. */
function perUnit(before: number | undefined, after: number | undefined, count: number): number {
  return before === undefined || after === undefined || count === 0 ? Number.NaN : (after - before) / count;
}

const TOKEN = 'bench-token';
const IN_FLIGHT = 16;
const SERVICES = 10_000;
const SERVICE_CIDR = '10.96.0.0/12';

/**
 * The load generator, on a worker thread: an undici pool of IN_FLIGHT keep-alive connections
 * to the server. Asked for `creates` (from index `from`, all at once) or a `list`, it answers
 * with the status codes it got, or the body's length.
 */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { Agent } = require(workerData.undici);
const { origin, ca, token, connections } = workerData;
const client = new Agent({ connections, connect: { ca } });
const auth = 'Bearer ' + token;
async function create(path, i) {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc-' + i, labels: { app: 'svc-' + i } }, spec: { selector: { app: 'svc-' + i }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } });
  const res = await client.request({ origin, path, method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body });
  await res.body.text();
  return res.statusCode;
}
parentPort.on('message', async (m) => {
  try {
    if (m.kind === 'creates') {
      const codes = await Promise.all(Array.from({ length: m.count }, (_, k) => create(m.path, m.from + k)));
      parentPort.postMessage({ codes });
    } else if (m.kind === 'list') {
      const res = await client.request({ origin, path: m.path, method: 'GET', headers: { authorization: auth } });
      const text = await res.body.text();
      parentPort.postMessage({ codes: [res.statusCode], bytes: text.length });
    } else if (m.kind === 'close') {
      await client.close();
      parentPort.postMessage({ codes: [] });
    }
  } catch (e) {
    parentPort.postMessage({ error: String(e && e.stack || e) });
  }
});
`;

interface ClientAnswer {
  readonly codes: readonly number[];
  readonly bytes?: number;
  readonly error?: string;
}

/** The load generator's thread (CLIENT). */
class LoadClient {
  private readonly worker: Worker;

  constructor(origin: string, ca: string) {
    const undici = createRequire(import.meta.url).resolve('undici');
    this.worker = new Worker(CLIENT, { eval: true, workerData: { undici, origin, ca, token: TOKEN, connections: IN_FLIGHT } });
    this.worker.unref();
  }

  ask(message: { readonly kind: 'creates'; readonly path: string; readonly from: number; readonly count: number } | { readonly kind: 'list' | 'close'; readonly path?: string }): Promise<ClientAnswer> {
    return new Promise((resolve, reject) => {
      this.worker.once('message', (m: ClientAnswer) => (m.error === undefined ? resolve(m) : reject(new Error(m.error))));
      this.worker.postMessage(message);
    });
  }

  async close(): Promise<void> {
    await this.ask({ kind: 'close' });
    await this.worker.terminate();
  }
}

interface Fixture {
  dir: string;
  store: Store;
  registry: Registry;
  server: ApiServer;
  plane: ControlPlane | undefined;
  client: LoadClient;
}

let certificate: Promise<ServingCertificate> | undefined;

async function open(namespaces: readonly string[], withControlPlane = false): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-api-'));
  const store = openSqliteStore({ path: join(dir, 'store.db') });
  let registry: Registry;
  let plane: ControlPlane | undefined;
  if (withControlPlane) {
    const node = { name: 'bench-node', podCIDR: '10.244.0.0/16', internalIP: '192.0.2.10' };
    const started = await startControlPlane({
      store,
      clock: systemClock,
      logger: silentLogger,
      seed: 1,
      serviceClusterIPRange: SERVICE_CIDR,
      advertiseAddress: node.internalIP,
      hostname: node.name,
      controllers: standardControllers({ hostName: node.name, nodes: [node] }),
    });
    if (!started.ok) throw new Error(started.error.message);
    plane = started.value;
    registry = plane.registry;
    await plane.whenReady();
  } else {
    const r = await openRegistry({ store, clock: systemClock, seed: 1, serviceClusterIPRanges: [SERVICE_CIDR] });
    if (!r.ok) throw new Error(r.error.message);
    registry = r.value;
  }
  for (const name of namespaces) {
    const ns = await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    if (!ns.ok && ns.error._tag !== 'AlreadyExists') throw new Error(ns.error.message);
  }
  certificate ??= generateServingCertificate();
  const tls = await certificate;
  const server = await startApiServer({ registry, token: TOKEN, tls, ...(plane === undefined ? {} : { ready: () => plane.isReady() }) });
  const client = new LoadClient(server.url, tls.cert);
  return { dir, store, registry, server, plane, client };
}

async function close(f: Fixture | undefined): Promise<void> {
  if (f === undefined) return;
  await f.client.close();
  await f.server.close();
  await f.plane?.stop();
  await f.store.close();
  rmSync(f.dir, { recursive: true, force: true });
}

function createTask(withControlPlane: boolean): BenchTask {
  let f: Fixture | undefined;
  let n = 0;
  let cpu0: number | undefined;
  let faults0: number | undefined;
  return {
    name: `api: create Services over HTTPS + token (sqlite, /12${withControlPlane ? ', kubesvc up control plane' : ''}), ${IN_FLIGHT} in flight`,
    setup: async () => {
      f = await open(['default'], withControlPlane);
      cpu0 = mainThreadCpuNs();
      faults0 = mainThreadMinorFaults();
    },
    fn: async () => {
      if (f === undefined) throw new Error('setup did not run');
      const from = n;
      n += IN_FLIGHT;
      const { codes } = await f.client.ask({ kind: 'creates', path: '/api/v1/namespaces/default/services', from, count: IN_FLIGHT });
      codes.forEach((code, k) => {
        if (code !== 201) throw new Error(`create ${from + k}: ${code}`);
      });
    },
    // ≥ 2,000 creates/s on the bare API (a batch of 16 within 8 ms), ≥ 1,000/s with the control
    // plane (within 16 ms).
    target: withControlPlane
      ? { medianMs: IN_FLIGHT, source: 'the API design target: 1,000 Service creates per second over HTTP on SQLite with the control plane' }
      : { medianMs: IN_FLIGHT / 2, source: 'the API design target: 2,000 Service creates per second over HTTP on SQLite, the bare API' },
    // The server's thread's CPU time and page faults per create (the steadier figures on a
    // shared machine, and the client's on another thread), and the range objects' writes per
    // create (each batch of allocations is one write, see Registry.allocate).
    metrics: () => {
      const created = n;
      const cpu1 = mainThreadCpuNs();
      const faults1 = mainThreadMinorFaults();
      const ranges = f?.registry.rangeCasStats().attempts ?? 0;
      void close(f);
      const cpuUsPerCreate = perUnit(cpu0, cpu1, created) / 1000;
      const faultsPerCreate = perUnit(faults0, faults1, created);
      return {
        creates: created,
        serverCpuUsPerCreate: Math.round(cpuUsPerCreate),
        serverFaultsPerCreate: Math.round(faultsPerCreate * 10) / 10,
        rangeWritesPerCreate: Math.round((ranges / Math.max(created, 1)) * 100) / 100,
      };
    },
  };
}

function listTask(): BenchTask {
  let f: Fixture | undefined;
  let bytes = 0;
  let lists = 0;
  let cpu0: number | undefined;
  let faults0: number | undefined;
  return {
    name: `api: list ${SERVICES.toLocaleString('en-US')} Services over HTTPS + token (sqlite)`,
    setup: async () => {
      f = await open([]);
      // The objects as the registry stores them, written in batches straight to the store.
      for (let i = 0; i < SERVICES; i += 100) {
        const ops = [];
        for (let j = i; j < i + 100; j++) {
          const ns = `ns-${j % 100}`;
          const ip = `10.96.${(j >> 8) & 255}.${j & 255}`;
          const value = JSON.stringify({
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: `svc-${j}`, namespace: ns, uid: `6b1f${String(j).padStart(4, '0')}-2c3d-4e5f-8a9b-0c1d2e3f4a5b`, creationTimestamp: '2026-01-01T00:00:00Z', labels: { app: `svc-${j}` } },
            spec: { ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: `svc-${j}` }, clusterIP: ip, clusterIPs: [ip], type: 'ClusterIP', sessionAffinity: 'None', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster' },
            status: { loadBalancer: {} },
          });
          ops.push({ kind: 'put' as const, key: `/registry/services/specs/${ns}/svc-${j}`, value });
        }
        await f.store.txn([], ops);
      }
      cpu0 = mainThreadCpuNs();
      faults0 = mainThreadMinorFaults();
    },
    fn: async () => {
      if (f === undefined) throw new Error('setup did not run');
      const { codes, bytes: received } = await f.client.ask({ kind: 'list', path: '/api/v1/services' });
      if (codes[0] !== 200) throw new Error(`list: ${codes[0]}`);
      bytes = received ?? 0;
      lists++;
    },
    target: { medianMs: 60, source: 'the API design target: a list of 10,000 Services within 60 ms' },
    // The server's thread's CPU time and page faults per list (the client, which decodes the
    // 5.5 MB body into a string, is on another thread).
    metrics: () => {
      const cpu1 = mainThreadCpuNs();
      const faults1 = mainThreadMinorFaults();
      void close(f);
      const cpuMsPerList = perUnit(cpu0, cpu1, lists) / 1e6;
      const faultsPerList = perUnit(faults0, faults1, lists);
      return { services: SERVICES, bodyBytes: bytes, serverCpuMsPerList: Math.round(cpuMsPerList * 10) / 10, serverFaultsPerList: Math.round(faultsPerList) };
    },
  };
}

export function apiSuite(): BenchSuite {
  return { name: 'api', description: 'the HTTPS API over SQLite as kubesvc up serves it: Service creates (bare API and with the control plane) and a 10,000-Service list', tasks: [createTask(false), createTask(true), listTask()] };
}
