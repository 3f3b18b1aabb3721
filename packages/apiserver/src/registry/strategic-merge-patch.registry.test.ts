// Strategic merge patch through Registry.patch over a real SQLite store: the patches kubectl
// sends (kubectl apply's three-way patch with the last-applied annotation, $setElementOrder
// and $patch: delete; kubectl patch's default type) give the stored object upstream would,
// and the failures get kube-apiserver's statuses. Each test reopens the database to read
// what was written.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Namespace, Pod, Service } from '@kubesvc/api-types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { type Store, virtualClock } from '@kubesvc/store';
import { openRegistry, type Registry } from './registry.js';
import { must } from './registry.fixtures.js';

const SMP = 'application/strategic-merge-patch+json';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const clock = virtualClock(Date.UTC(2025, 0, 1));
const config = { clock, seed: 7, serviceClusterIPRanges: ['10.96.0.0/24'], serviceNodePortRange: '30000-30100' };

let dir = '';
let store: Store | undefined;

async function open(): Promise<Registry> {
  await store?.close();
  store = openSqliteStore({ path: join(dir, 'kubesvc.db'), clock });
  const r = await openRegistry({ ...config, store });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}


beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kubesvc-smp-'));
  const registry = await open();
  must(await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }));
});

afterEach(async () => {
  await store?.close();
  store = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** The manifest a user applies, as kubectl stores it in the last-applied annotation. */
function manifest(ports: object[]): object {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports } };
}

describe('kubectl apply', () => {
  it('a second apply that drops a port and adds one stores the new list in the new order, keeps the allocated clusterIP, and updates the annotation', async () => {
    let registry = await open();
    const first = manifest([{ name: 'http', port: 80, targetPort: 8080 }, { name: 'https', port: 443, targetPort: 8443 }]);
    const created = must(
      await registry.create<Service>('services', 'default', {
        ...(first as Service),
        metadata: { name: 'web', annotations: { [LAST_APPLIED]: `${JSON.stringify(first)}\n` } },
      }),
    );
    const second = manifest([{ name: 'http', port: 80, targetPort: 8080 }, { name: 'alt', port: 8080, targetPort: 8080 }]);
    // What CreateThreeWayMergePatch gives for first -> second against the live object.
    const patch = {
      metadata: { annotations: { [LAST_APPLIED]: `${JSON.stringify(second)}\n` } },
      spec: { '$setElementOrder/ports': [{ port: 80 }, { port: 8080 }], ports: [{ name: 'alt', port: 8080, targetPort: 8080 }, { $patch: 'delete', port: 443 }] },
    };
    must(await registry.patch('services', 'default', 'web', SMP, JSON.stringify(patch)));

    registry = await open();
    const stored = must(await registry.get<Service>('services', 'default', 'web'));
    expect(stored.spec?.ports).toEqual([
      { name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 },
      { name: 'alt', port: 8080, protocol: 'TCP', targetPort: 8080 },
    ]);
    expect(stored.spec?.clusterIP).toBe(created.spec?.clusterIP);
    expect(stored.metadata.uid).toBe(created.metadata.uid);
    expect(JSON.parse(stored.metadata.annotations?.[LAST_APPLIED] ?? '{}')).toEqual(second);
  });

  it('an apply that changes nothing but the order sends only $setElementOrder, and the stored order follows it', async () => {
    let registry = await open();
    must(await registry.create('services', 'default', manifest([{ name: 'a', port: 1 }, { name: 'b', port: 2 }, { name: 'c', port: 3 }]) as Service));
    must(await registry.patch('services', 'default', 'web', SMP, JSON.stringify({ spec: { '$setElementOrder/ports': [{ port: 3 }, { port: 1 }, { port: 2 }] } })));
    registry = await open();
    const stored = must(await registry.get<Service>('services', 'default', 'web'));
    expect(stored.spec?.ports?.map((p) => p.name)).toEqual(['c', 'a', 'b']);
  });
});

describe('kubectl patch (strategic by default)', () => {
  it('a port patched by its merge key keeps its other fields; a new port is allocated a nodePort on a NodePort Service', async () => {
    let registry = await open();
    const svc = must(await registry.create<Service>('services', 'default', { ...(manifest([{ name: 'http', port: 80, targetPort: 8080 }]) as Service), spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } }));
    const nodePort = svc.spec?.ports?.[0]?.nodePort;
    must(await registry.patch('services', 'default', 'web', SMP, '{"spec":{"ports":[{"port":80,"targetPort":9090},{"name":"dns","port":53,"protocol":"UDP"}]}}'));
    registry = await open();
    const stored = must(await registry.get<Service>('services', 'default', 'web'));
    const byPort = new Map(stored.spec?.ports?.map((p) => [p.port, p]));
    expect(byPort.get(80)).toEqual({ name: 'http', port: 80, protocol: 'TCP', targetPort: 9090, nodePort });
    expect(byPort.get(53)?.nodePort).toBeGreaterThanOrEqual(30000);
    // both are in the patch, so the patch's order holds
    expect(stored.spec?.ports?.map((p) => p.port)).toEqual([80, 53]);
  });

  it('a Pod: containers merge by name, a label and a finalizer are added, and a finalizer is removed with $deleteFromPrimitiveList', async () => {
    let registry = await open();
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', labels: { app: 'web' }, finalizers: ['example.com/a', 'example.com/b'] },
      spec: { containers: [{ name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }] }, { name: 'sidecar', image: 'proxy:1' }] },
    };
    must(await registry.create('pods', 'default', pod));
    const patch = {
      metadata: { labels: { tier: 'front' }, finalizers: ['example.com/c'], '$deleteFromPrimitiveList/finalizers': ['example.com/a'] },
      spec: { containers: [{ name: 'app', env: [{ name: 'B', value: '2' }] }] },
    };
    must(await registry.patch('pods', 'default', 'p', SMP, JSON.stringify(patch)));
    registry = await open();
    const stored = must(await registry.get<Pod>('pods', 'default', 'p'));
    expect(stored.metadata.labels).toEqual({ app: 'web', tier: 'front' });
    expect(stored.metadata.finalizers).toEqual(['example.com/c', 'example.com/b']);
    // api-types models no containers; the registry keeps them as they came.
    const containers = stored.spec?.['containers'] as { name: string; image: string; env?: unknown }[];
    expect(containers.map((c) => [c.name, c.image])).toEqual([
      ['app', 'app:1'],
      ['sidecar', 'proxy:1'],
    ]);
    expect(containers[0]?.env).toEqual([
      { name: 'B', value: '2' },
      { name: 'A', value: '1' },
    ]);
  });
});

describe('failures leave the stored object as it was', () => {
  it('missing merge key and unknown $patch: 500 with no reason; bad $retainKeys, not an object, not JSON: 400', async () => {
    let registry = await open();
    const svc = must(await registry.create<Service>('services', 'default', manifest([{ name: 'http', port: 80 }]) as Service));
    const cases: [string, number, string][] = [
      ['{"spec":{"ports":[{"targetPort":441}]}}', 500, 'map: map[targetPort:441] does not contain declared merge key: port'],
      ['{"spec":{"ports":[{"port":80,"$patch":"merge"}]}}', 500, 'merging lists cannot yet be specified in the patch'],
      ['{"metadata":{"$patch":"keep"}}', 500, 'unknown patch type: keep in map: map[$patch:keep]'],
      ['{"spec":{"$retainKeys":["ports"],"type":"NodePort"}}', 400, 'invalid patch format of retainKeys'],
      ['[]', 400, 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
      ['{"spec":', 400, 'unexpected end of JSON input'],
    ];
    for (const [patch, code, message] of cases) {
      const r = await registry.patch('services', 'default', 'web', SMP, patch);
      expect(r.ok ? r.value : { code: r.error.code, message: r.error.status.message, reason: r.error.status.reason }, patch).toEqual({ code, message, reason: code === 500 ? undefined : 'BadRequest' });
    }
    registry = await open();
    expect(must(await registry.get<Service>('services', 'default', 'web'))).toEqual(svc);
  });

  // Upstream's stored objects omit empty lists (omitempty), so only an object stored with an
  // empty merge list reaches mergeSlice's list-of-lists check; kubesvc keeps `finalizers: []`.
  it('a list of lists in a merge list the object holds empty is 422 with the generic text', async () => {
    const registry = await open();
    const ns = must(await registry.create<Namespace>('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', finalizers: [] } }));
    const r = await registry.patch('namespaces', '', 'x', SMP, '{"metadata":{"finalizers":[["a"]]}}');
    if (r.ok) throw new Error(`expected 422, stored ${JSON.stringify(r.value)} (created ${JSON.stringify(ns.metadata)})`);
    expect(r.error.status).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server rejected our request due to an error in our request', reason: 'Invalid', details: {}, code: 422 });
  });
});
