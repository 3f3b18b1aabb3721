// Bench suite "api": the HTTP API over the SQLite store (synchronous=NORMAL), through Node's
// fetch (undici) with keep-alive connections, on 127.0.0.1 without TLS (the server's own cost;
// kubectl's TLS handshake is per process, not per request).
// - Service creates, 16 in flight at a time: each POST is decoded, validated, allocated a
//   ClusterIP (a /16) and written, and answered with the created object.
// - A list of 10,000 Services across all namespaces, the whole JSON body received.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRegistry, openSqliteStore, startApiServer, systemClock, type ApiServer, type Store } from '@kubesvc/runtime';
import type { BenchSuite, BenchTask } from './harness.js';

const TOKEN = 'bench-token';
const IN_FLIGHT = 16;
const SERVICES = 10_000;

interface Fixture {
  dir: string;
  store: Store;
  server: ApiServer;
}

async function open(namespaces: readonly string[]): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-api-'));
  const store = openSqliteStore({ path: join(dir, 'store.db') });
  const r = await openRegistry({ store, clock: systemClock, seed: 1, serviceClusterIPRanges: ['10.96.0.0/16'] });
  if (!r.ok) throw new Error(r.error.message);
  for (const name of namespaces) {
    const ns = await r.value.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    if (!ns.ok) throw new Error(ns.error.message);
  }
  const server = await startApiServer({ registry: r.value, token: TOKEN });
  return { dir, store, server };
}

async function close(f: Fixture | undefined): Promise<void> {
  if (f === undefined) return;
  await f.server.close();
  await f.store.close();
  rmSync(f.dir, { recursive: true, force: true });
}

function createTask(): BenchTask {
  let f: Fixture | undefined;
  let n = 0;
  return {
    name: `api: create Services over HTTP (sqlite), ${IN_FLIGHT} in flight`,
    setup: async () => {
      f = await open(['default']);
    },
    fn: async () => {
      if (f === undefined) throw new Error('setup did not run');
      const url = `${f.server.url}/api/v1/namespaces/default/services`;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          const i = n++;
          const body = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: `svc-${i}`, labels: { app: `svc-${i}` } }, spec: { selector: { app: `svc-${i}` }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } });
          const res = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }, body });
          await res.text();
          if (res.status !== 201) throw new Error(`create ${i}: ${res.status}`);
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
    name: `api: list ${SERVICES.toLocaleString('en-US')} Services over HTTP (sqlite)`,
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
      const res = await fetch(`${f.server.url}/api/v1/services`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`list: ${res.status}`);
      bytes = text.length;
    },
    metrics: () => {
      void close(f);
      return { services: SERVICES, bodyBytes: bytes };
    },
  };
}

export function apiSuite(): BenchSuite {
  return { name: 'api', description: 'the HTTP API over SQLite: Service creates and a 10,000-Service list', tasks: [createTask(), listTask()] };
}
