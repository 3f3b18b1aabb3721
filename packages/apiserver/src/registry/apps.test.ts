// The apps/v1 storages: what create, update, /status and /scale keep and move.
// upstream (v1.33): pkg/registry/apps/deployment/strategy_test.go, storage/storage_test.go (scale)
import type { Deployment, Scale } from '@kubesvc/api-types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '@kubesvc/store';
import { memoryRegistry, must } from './registry.fixtures.js';
import type { Registry } from './registry.js';

let registry: Registry;
let store: Store;

beforeEach(async () => {
  ({ registry, store } = await memoryRegistry());
});
afterEach(async () => {
  await store.close();
});

const web = (replicas = 3): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
  status: { replicas: 99 },
});

describe('deployment storage', () => {
  it('create drops the status and sets generation 1', async () => {
    const d = must(await registry.create<Deployment>('deployments', 'default', web()));
    expect(d.metadata.generation).toBe(1);
    expect(d.status).toEqual({});
  });

  it('an update keeps the stored status; the generation moves on a spec or annotation change only', async () => {
    const d = must(await registry.create<Deployment>('deployments', 'default', web()));
    const withStatus = must(await registry.updateStatus<Deployment>('deployments', 'default', 'web', { ...d, spec: { ...d.spec, replicas: 40 }, status: { replicas: 3, observedGeneration: 1 } }));
    expect(withStatus.spec?.replicas).toBe(3);
    expect(withStatus.metadata.generation).toBe(1);
    const labelled = must(await registry.update<Deployment>('deployments', 'default', 'web', { ...withStatus, metadata: { ...withStatus.metadata, labels: { app: 'web', x: 'y' } }, status: {} }));
    expect(labelled.metadata.generation).toBe(1);
    expect(labelled.status).toEqual({ replicas: 3, observedGeneration: 1 });
    const annotated = must(await registry.update<Deployment>('deployments', 'default', 'web', { ...labelled, metadata: { ...labelled.metadata, annotations: { a: 'b' } } }));
    expect(annotated.metadata.generation).toBe(2);
    const scaled = must(await registry.update<Deployment>('deployments', 'default', 'web', { ...annotated, spec: { ...annotated.spec, replicas: 4 } }));
    expect(scaled.metadata.generation).toBe(3);
  });

  it('refuses a changed selector with the qualified kind', async () => {
    const d = must(await registry.create<Deployment>('deployments', 'default', web()));
    const r = await registry.update<Deployment>('deployments', 'default', 'web', { ...d, spec: { ...d.spec, selector: { matchLabels: { app: 'other' } } } });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toContain('Deployment.apps "web" is invalid: ');
    if (!r.ok) expect(r.error.message).toContain('spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"other"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable');
  });
});

describe('/scale', () => {
  it('reads a Scale with the selector as text, and writes spec.replicas through the update', async () => {
    const d = must(await registry.create<Deployment>('deployments', 'default', web()));
    const scale = must(await registry.getScale('deployments', 'default', 'web'));
    expect(scale).toEqual({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: 'default', uid: d.metadata.uid, resourceVersion: d.metadata.resourceVersion, creationTimestamp: d.metadata.creationTimestamp },
      spec: { replicas: 3 },
      status: { replicas: 0, selector: 'app=web' },
    });
    const written = must(await registry.updateScale('deployments', 'default', 'web', { ...scale, spec: { replicas: 5 } }));
    expect(written.spec).toEqual({ replicas: 5 });
    const after = must(await registry.get<Deployment>('deployments', 'default', 'web'));
    expect(after.spec?.replicas).toBe(5);
    expect(after.metadata.generation).toBe(2);
  });

  it('a Scale with a stale resourceVersion is a conflict; a negative count is invalid', async () => {
    must(await registry.create<Deployment>('deployments', 'default', web()));
    const scale = must(await registry.getScale('deployments', 'default', 'web'));
    must(await registry.updateScale('deployments', 'default', 'web', { ...scale, spec: { replicas: 4 } }));
    const stale = await registry.updateScale('deployments', 'default', 'web', { ...scale, spec: { replicas: 6 } });
    expect(stale.ok ? 'ok' : stale.error._tag).toBe('Conflict');
    const negative = await registry.updateScale('deployments', 'default', 'web', { ...scale, metadata: { name: 'web' }, spec: { replicas: -1 } } as Scale);
    expect(negative.ok ? 'ok' : negative.error.message).toBe('Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
  });

  it('a merge patch of the Scale sets the replicas, as kubectl scale sends it', async () => {
    must(await registry.create<Deployment>('deployments', 'default', web()));
    const patched = must(await registry.patch<Scale>('deployments', 'default', 'web', 'application/merge-patch+json', '{"spec":{"replicas":0}}', { subresource: 'scale' }));
    expect(patched.spec).toEqual({});
    expect(must(await registry.get<Deployment>('deployments', 'default', 'web')).spec?.replicas).toBe(0);
  });

  it('pods have no /scale', async () => {
    const r = await registry.getScale('pods', 'default', 'x');
    expect(r.ok ? 'ok' : r.error._tag).toBe('NotFound');
  });
});

describe('deployment /status', () => {
  it('keeps the stored spec and labels, takes the annotations, and refuses counts upstream refuses', async () => {
    const d = must(await registry.create<Deployment>('deployments', 'default', web()));
    const written = must(
      await registry.updateStatus<Deployment>('deployments', 'default', 'web', {
        ...d,
        metadata: { ...d.metadata, labels: { changed: 'yes' }, annotations: { 'deployment.kubernetes.io/revision': '1' } },
        status: { replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2, collisionCount: 1 },
      }),
    );
    expect(written.metadata.labels).toEqual({ app: 'web' });
    expect(written.metadata.annotations).toEqual({ 'deployment.kubernetes.io/revision': '1' });
    const bad = await registry.updateStatus<Deployment>('deployments', 'default', 'web', { ...written, status: { replicas: 1, readyReplicas: 2, availableReplicas: 3 } });
    expect(bad.ok ? 'ok' : bad.error.message).toBe(
      'Deployment.apps "web" is invalid: [status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas, status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas, status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas, status.collisionCount: Invalid value: 0: cannot be decremented]',
    );
  });
});

