// What a hostile or careless request may not do to the registry: delete every namespace at
// once, delete a namespace the cluster cannot run without, leave a Service holding a
// clusterIP no allocator gave it, or make one refusal cost more than a pass over its body.
// Each answer is upstream's (status code, reason, message, details).
import type { Namespace, Service } from '@kubesvc/api-types';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { apiResourceList } from '../api/discovery.js';
import type { Store } from '@kubesvc/store';
import { dispatch } from './dispatch.js';
import { memoryRegistry, must, rangePorts, sortedRangeIPs } from './registry.fixtures.js';
import type { Registry } from './registry.js';
import { NO_LEAKS, repairOnce } from './repair.js';

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5, 678);

async function setup(namespaces: readonly string[] = ['default', 'kube-system', 'kube-public', 'team']): Promise<{ registry: Registry; store: Store }> {
  return memoryRegistry({ start: T0, seed: 7, initRanges: true, namespaces });
}

async function namespaceNames(registry: Registry): Promise<string[]> {
  return must(await registry.list<Namespace>('namespaces')).items.map((n) => n.metadata.name ?? '');
}

const METHOD_NOT_ALLOWED = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server does not allow this method on the requested resource',
  reason: 'MethodNotAllowed',
  details: { causes: [{ reason: 'UnexpectedServerResponse', message: '405: Method Not Allowed' }] },
  code: 405,
};

describe('deletecollection', () => {
  it('is not a verb of namespaces: 405 with the body of a method no route takes, and every namespace stays', async () => {
    const { registry } = await setup();
    const r = await dispatch(registry, { verb: 'deletecollection', resource: 'namespaces', namespace: '' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe(405);
    expect(r.error.status).toEqual(METHOD_NOT_ALLOWED);
    expect(await namespaceNames(registry)).toEqual(['default', 'kube-public', 'kube-system', 'team']);
  });

  it('stays a verb of every other kind (their storages are generic stores), and discovery lists it for them only', async () => {
    const { registry } = await setup();
    must(await registry.create('services', 'team', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a' }, spec: { ports: [{ port: 80 }] } }));
    const r = await dispatch(registry, { verb: 'deletecollection', resource: 'services', namespace: 'team' });
    expect(r.ok && (r.value.body as { items: unknown[] }).items.length).toBe(1);
    const verbs = new Map(((apiResourceList('v1')?.['resources'] ?? []) as { name: string; verbs: string[] }[]).map((res) => [res.name, res.verbs]));
    expect(verbs.get('namespaces')).toEqual(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    for (const name of ['services', 'endpoints', 'pods', 'nodes', 'events']) expect(verbs.get(name)).toContain('deletecollection');
  });
});

describe('NamespaceLifecycle admission', () => {
  it.each(['default', 'kube-system', 'kube-public'])('refuses to delete %s with 403 and leaves it Active', async (name) => {
    const { registry } = await setup();
    const r = await dispatch(registry, { verb: 'delete', resource: 'namespaces', namespace: '', name });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `namespaces "${name}" is forbidden: this namespace may not be deleted`,
      reason: 'Forbidden',
      details: { name, kind: 'namespaces' },
      code: 403,
    });
    const ns = must(await registry.get<Namespace>('namespaces', '', name));
    expect(ns.status?.phase).toBe('Active');
    expect(ns.metadata.deletionTimestamp).toBeUndefined();
  });

  it('refuses them before reading them: an absent kube-public is still 403, not 404', async () => {
    const { registry } = await setup(['default']);
    const r = await registry.delete('namespaces', '', 'kube-public');
    expect(r.ok || r.error.code).toBe(403);
  });

  it('still lets any other namespace be deleted', async () => {
    const { registry } = await setup();
    const r = must(await registry.delete<Namespace>('namespaces', '', 'team'));
    expect(r.object.status?.phase).toBe('Terminating');
  });

  it('refuses a create in a terminating namespace naming the object by its generateName, with the NamespaceTerminating cause', async () => {
    const { registry } = await setup();
    must(await registry.delete('namespaces', '', 'team'));
    const r = await registry.create('services', 'team', { apiVersion: 'v1', kind: 'Service', metadata: { generateName: 'gen-' }, spec: { ports: [{ port: 80 }] } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'services "gen-" is forbidden: unable to create new content in namespace team because it is being terminated',
      reason: 'Forbidden',
      details: {
        name: 'gen-',
        kind: 'services',
        causes: [{ reason: 'NamespaceTerminating', message: 'namespace team is being terminated', field: 'metadata.namespace' }],
      },
      code: 403,
    });
  });
});

// --- Services and the allocators ----------------------------------------------------------


/** The IPs a stored Service shows (clusterIPs, else clusterIP), None aside. */
function shownIPs(s: Service): string[] {
  const ips = s.spec?.clusterIPs ?? (s.spec?.clusterIP ? [s.spec.clusterIP] : []);
  return ips.filter((ip) => ip !== '' && ip !== 'None');
}

/** The node ports a NodePort or LoadBalancer Service holds (health check port included). */
function heldPorts(s: Service): number[] {
  if (s.spec?.type !== 'NodePort' && s.spec?.type !== 'LoadBalancer') return [];
  const ports = (s.spec.ports ?? []).map((p) => p.nodePort ?? 0).filter((p) => p !== 0);
  const health = s.spec.healthCheckNodePort ?? 0;
  return health !== 0 ? [...ports, health] : ports;
}

/**
 * The allocation invariant: no two Services show the same cluster IP, every shown IP is in
 * the range, no two Services hold the same node port, the range bitmaps hold exactly what
 * the Services hold, and a repair run finds nothing to report.
 */
async function expectAllocationsConsistent(registry: Registry, store: Store): Promise<void> {
  const services = must(await registry.list<Service>('services')).items;
  const ips = services.flatMap(shownIPs);
  expect(new Set(ips).size, `duplicate cluster IPs in ${JSON.stringify(ips)}`).toBe(ips.length);
  for (const ip of ips) expect(ip).toMatch(/^10\.96\.0\.\d+$/);
  const ports = services.flatMap(heldPorts);
  expect(new Set(ports).size, `duplicate node ports in ${JSON.stringify(ports)}`).toBe(ports.length);
  expect(await sortedRangeIPs(store)).toEqual([...ips].sort());
  expect(await rangePorts(store)).toEqual([...ports].sort((x, y) => x - y));
  const run = await repairOnce(store, registry.net, NO_LEAKS);
  expect(run.events).toEqual([]);
}

function patchSvc(registry: Registry, name: string, patch: unknown) {
  return registry.patch<Service>('services', 'default', name, 'application/merge-patch+json', JSON.stringify(patch));
}

describe('a Service turned ExternalName keeps no clusterIP', () => {
  it('refuses a merge patch that sets clusterIP while clearing clusterIPs with the Forbidden a create of that object gets', async () => {
    const { registry, store } = await setup();
    must(await registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'kubernetes' }, spec: { clusterIP: '10.96.0.1', ports: [{ port: 443 }] } }));
    const before = must(await registry.create<Service>('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'd' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } }));
    for (const clusterIP of ['10.96.0.1', '192.168.9.9']) {
      const r = await patchSvc(registry, 'd', { spec: { type: 'ExternalName', externalName: 'x.example.com', clusterIP, clusterIPs: null } });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.status).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Service "d" is invalid: spec.clusterIPs: Forbidden: may not be set for ExternalName services',
        reason: 'Invalid',
        details: { name: 'd', kind: 'Service', causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: may not be set for ExternalName services', field: 'spec.clusterIPs' }] },
        code: 422,
      });
    }
    expect(must(await registry.get<Service>('services', 'default', 'd'))).toEqual(before);
    await expectAllocationsConsistent(registry, store);
  });

  it('still turns into ExternalName when the client leaves the allocated values as they were, giving them back', async () => {
    const { registry, store } = await setup();
    must(await registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'd' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } }));
    const r = must(await patchSvc(registry, 'd', { spec: { type: 'ExternalName', externalName: 'x.example.com' } }));
    expect(r.spec?.clusterIP).toBeUndefined();
    expect(r.spec?.clusterIPs).toBeUndefined();
    expect(await sortedRangeIPs(store)).toEqual([]);
    await expectAllocationsConsistent(registry, store);
  });

  // Patches a client might send, good and bad, over a few Services: after any sequence the
  // allocation invariant holds (refused patches change nothing; accepted ones keep the
  // ranges and the Services in step).
  const NAMES = ['a', 'b', 'c'] as const;
  const patchArb = fc.oneof(
    fc.record({ type: fc.constant('ExternalName'), externalName: fc.constant('x.example.com') }),
    fc.record({
      type: fc.constant('ExternalName'),
      externalName: fc.constant('x.example.com'),
      clusterIP: fc.constantFrom('10.96.0.1', '10.96.0.200', '192.168.9.9', 'None', ''),
      clusterIPs: fc.constant(null),
    }),
    fc.record({ type: fc.constantFrom('ClusterIP', 'NodePort', 'LoadBalancer') }),
    fc.record({ type: fc.constantFrom('ClusterIP', 'NodePort'), clusterIP: fc.constantFrom('10.96.0.1', '10.96.0.200', '192.168.9.9'), clusterIPs: fc.constant(null) }),
    fc.record({ type: fc.constant('NodePort'), ports: fc.constant([{ port: 80, nodePort: 30099 }]) }),
  );
  it('holds the allocation invariant after any sequence of creates and merge patches', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ name: fc.constantFrom(...NAMES), spec: patchArb }), { maxLength: 8 }), async (steps) => {
        const { registry, store } = await setup(['default']);
        must(await registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'kubernetes' }, spec: { clusterIP: '10.96.0.1', ports: [{ port: 443 }] } }));
        for (const name of NAMES) must(await registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }] } }));
        for (const step of steps) await patchSvc(registry, step.name, { spec: step.spec });
        await expectAllocationsConsistent(registry, store);
      }),
      { numRuns: 40, seed: 20250102 },
    );
  });
});

// --- Large bad values ----------------------------------------------------------------------

describe('a large bad value', () => {
  it('is refused with upstream\'s 422: one cause, the value quoted whole in the message and the cause, nothing stored', async () => {
    const { registry } = await setup(['default']);
    const value = 'x'.repeat(3_000_000);
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'big', labels: { a: value } }, spec: { ports: [{ port: 80 }] } });
    const r = await dispatch(registry, { verb: 'create', resource: 'services', namespace: 'default', body: Buffer.from(body) });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const status = r.error.status;
    expect(status.code).toBe(422);
    expect(status.reason).toBe('Invalid');
    const cause = `Invalid value: "${value}": must be no more than 63 characters`;
    expect(status.message === `Service "big" is invalid: metadata.labels: ${cause}`).toBe(true);
    expect(status.details?.causes?.length).toBe(1);
    expect(status.details?.causes?.[0]?.message === cause).toBe(true);
    // The value appears twice (upstream's ErrorBody prints it whole): the answer is bounded
    // by twice the body, not by how many times the renderer went over it.
    expect(Buffer.byteLength(JSON.stringify(status))).toBeLessThan(2 * Buffer.byteLength(body) + 1024);
    expect(must(await registry.list('services', 'default')).items).toEqual([]);
  });
});
