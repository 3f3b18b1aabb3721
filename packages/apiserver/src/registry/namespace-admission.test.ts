// NamespaceLifecycle on the create path when the namespace changes behind the registry's back
// (another apiserver on the same store): the registry answers the check from a namespace it read
// active a moment ago, and the create's compare on the namespace's modRevision catches the
// change, so the answers are those of a live read.
import type { Namespace, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { memoryRegistry, must, rangeIPs, svc } from './registry.fixtures.js';

const NS_KEY = '/registry/namespaces/team';

/** Marks the namespace terminating, or deletes it, straight in the store, as another apiserver would. */
async function behindTheRegistry(store: Awaited<ReturnType<typeof memoryRegistry>>['store'], change: 'terminate' | 'delete'): Promise<void> {
  const { kv } = await store.get(NS_KEY);
  if (kv === undefined) throw new Error('no namespace');
  if (change === 'delete') {
    await store.txn([], [{ kind: 'delete', key: NS_KEY }]);
    return;
  }
  const ns = JSON.parse(kv.value) as Namespace;
  await store.txn([], [{ kind: 'put', key: NS_KEY, value: JSON.stringify({ ...ns, status: { phase: 'Terminating' } }) }]);
}

describe('NamespaceLifecycle on create, the namespace changed by another writer', () => {
  it('refuses a Service in a namespace marked terminating since the last create, with nothing allocated left behind', async () => {
    const { registry, store } = await memoryRegistry({ namespaces: ['team'] });
    must(await registry.create<Service>('services', 'team', svc('first')));
    const before = await rangeIPs(store);
    await behindTheRegistry(store, 'terminate');
    const r = await registry.create<Service>('services', 'team', svc('second'));
    expect(r.ok ? 'created' : { code: r.error.code, message: r.error.message }).toEqual({
      code: 403,
      message: 'services "second" is forbidden: unable to create new content in namespace team because it is being terminated',
    });
    expect(await rangeIPs(store)).toEqual(before);
    expect((await store.get('/registry/services/specs/team/second')).kv).toBeUndefined();
  });

  it('refuses an Endpoints in a namespace deleted since the last create, as not found', async () => {
    const { registry, store } = await memoryRegistry({ namespaces: ['team'] });
    must(await registry.create('endpoints', 'team', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'first' } }));
    await behindTheRegistry(store, 'delete');
    const r = await registry.create('endpoints', 'team', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'second' } });
    expect(r.ok ? 'created' : { code: r.error.code, message: r.error.message }).toEqual({ code: 404, message: 'namespaces "team" not found' });
  });

  it('refuses at once after the registry itself marks the namespace terminating', async () => {
    const { registry } = await memoryRegistry({ namespaces: ['team'] });
    must(await registry.create<Service>('services', 'team', svc('first')));
    must(await registry.delete('namespaces', '', 'team'));
    const r = await registry.create<Service>('services', 'team', { ...svc('bad'), spec: { ports: [{ port: 0 }] } });
    // Admission's refusal, before validation would have said the port is invalid.
    expect(r.ok ? 'created' : r.error.code).toBe(403);
  });
});
