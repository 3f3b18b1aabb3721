// Bench suite "api": the HTTP API over the SQLite store (synchronous=NORMAL) as `kubesvc up`
// serves it: HTTPS with its self-signed certificate, the bearer token on every request, a /12
// service CIDR (10.96.0.0/12, kubesvc up's default: its RangeAllocation is 128 KiB of bitmap),
// on 127.0.0.1, driven by undici (keep-alive connections, the certificate as its CA) from the
// same process. The TLS handshake happens once per connection, as for one kubectl process.
// - Service creates, 16 in flight at a time: each POST is decoded, validated, allocated a
//   ClusterIP and written, and answered with the created object. Once on the bare API (the
//   registry alone), once with kubesvc up's control plane behind it (the informer, the
//   bootstrap controller, and the endpoints, EndpointSlice, mirroring and kubelet controllers,
//   which write an Endpoints and an EndpointSlice for each of these Services, as
//   kube-controller-manager would).
// - A list of 10,000 Services across all namespaces, the whole JSON body received.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { Agent } from 'undici';
import type { BenchSuite, BenchTask } from './harness.js';

const TOKEN = 'bench-token';
const IN_FLIGHT = 16;
const SERVICES = 10_000;
const SERVICE_CIDR = '10.96.0.0/12';

interface Fixture {
  dir: string;
  store: Store;
  server: ApiServer;
  plane: ControlPlane | undefined;
  client: Agent;
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
  const client = new Agent({ connections: IN_FLIGHT, connect: { ca: tls.cert } });
  return { dir, store, server, plane, client };
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
  return {
    name: `api: create Services over HTTPS + token (sqlite, /12${withControlPlane ? ', kubesvc up control plane' : ''}), ${IN_FLIGHT} in flight`,
    setup: async () => {
      f = await open(['default'], withControlPlane);
    },
    fn: async () => {
      if (f === undefined) throw new Error('setup did not run');
      const fixture = f;
      const path = '/api/v1/namespaces/default/services';
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          const i = n++;
          const body = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: `svc-${i}`, labels: { app: `svc-${i}` } }, spec: { selector: { app: `svc-${i}` }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } });
          const res = await fixture.client.request({
            origin: fixture.server.url,
            path,
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body,
          });
          await res.body.text();
          if (res.statusCode !== 201) throw new Error(`create ${i}: ${res.statusCode}`);
        }),
      );
    },
    // ≥ 1,000 creates/s: a batch of 16 within 16 ms.
    target: { medianMs: IN_FLIGHT, source: 'the API design target: 1,000 Service creates per second over HTTP on SQLite' },
    metrics: () => {
      const created = n;
      void close(f);
      return { creates: created };
    },
  };
}

function listTask(): BenchTask {
  let f: Fixture | undefined;
  let bytes = 0;
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
    },
    fn: async () => {
      if (f === undefined) throw new Error('setup did not run');
      const res = await f.client.request({ origin: f.server.url, path: '/api/v1/services', method: 'GET', headers: { authorization: `Bearer ${TOKEN}` } });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`list: ${res.statusCode}`);
      bytes = text.length;
    },
    metrics: () => {
      void close(f);
      return { services: SERVICES, bodyBytes: bytes };
    },
  };
}

export function apiSuite(): BenchSuite {
  return { name: 'api', description: 'the HTTPS API over SQLite as kubesvc up serves it: Service creates (bare API and with the control plane) and a 10,000-Service list', tasks: [createTask(false), createTask(true), listTask()] };
}
