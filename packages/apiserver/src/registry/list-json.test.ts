// registry.listJson: the API's plain list as text, written from the stored values. It must be
// the bytes JSON.stringify gives for list() (the object path), page by page, on the real
// SQLite store, and refuse what list() refuses.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Service } from '@kubesvc/api-types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { type Store, virtualClock } from '@kubesvc/store';
import { openRegistry, type Registry } from './registry.js';

let dir: string;
let store: Store;
let registry: Registry;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kubesvc-list-json-'));
  const clock = virtualClock(Date.UTC(2026, 0, 2, 3, 4, 5));
  store = openSqliteStore({ path: join(dir, 'store.db'), clock });
  const r = await openRegistry({ store, clock, seed: 7, serviceClusterIPRanges: ['10.96.0.0/12'] });
  if (!r.ok) throw new Error(r.error.message);
  registry = r.value;
  for (const ns of ['default', 'other']) {
    const created = await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    if (!created.ok) throw new Error(created.error.message);
  }
  const services: Service[] = [
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', labels: { app: 'web' }, annotations: { note: 'quotes " and {braces}' } }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db', namespace: 'default' }, spec: { clusterIP: 'None', ports: [{ port: 5432 }] } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext', namespace: 'other' }, spec: { type: 'ExternalName', externalName: 'example.com' } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'np', namespace: 'other' }, spec: { type: 'NodePort', ports: [{ port: 443, nodePort: 30443 }] } },
  ];
  // Created concurrently: their allocations share range writes.
  const results = await Promise.all(services.map((s) => registry.create('services', s.metadata.namespace ?? '', s)));
  for (const r of results) if (!r.ok) throw new Error(r.error.message);
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('registry.listJson', () => {
  it('is the JSON of list() across all namespaces and in one', async () => {
    for (const ns of [undefined, 'default', 'other', 'absent']) {
      const objects = await registry.list('services', ns);
      const text = await registry.listJson('services', ns);
      if (!objects.ok || !text.ok) throw new Error('list failed');
      expect(text.value).toBe(JSON.stringify(objects.value));
    }
    const text = await registry.listJson('services');
    if (!text.ok) throw new Error('list failed');
    const names = (JSON.parse(text.value) as { items: Service[] }).items.map((s) => `${s.metadata.namespace}/${s.metadata.name}`);
    expect(names).toEqual(['default/db', 'default/web', 'other/ext', 'other/np']);
  });

  it('pages with limit and continue exactly as list() does', async () => {
    let token: string | undefined;
    let pages = 0;
    do {
      const options = { limit: 3, ...(token === undefined ? {} : { continue: token }) };
      const objects = await registry.list('services', undefined, options);
      const text = await registry.listJson('services', undefined, options);
      if (!objects.ok || !text.ok) throw new Error('list failed');
      expect(text.value).toBe(JSON.stringify(objects.value));
      token = objects.value.metadata.continue;
      pages++;
    } while (token !== undefined);
    expect(pages).toBe(2);
  });

  it('refuses a continue token that is not one, as list() does', async () => {
    const objects = await registry.list('services', undefined, { continue: 'garbage' });
    const text = await registry.listJson('services', undefined, { continue: 'garbage' });
    expect(objects.ok).toBe(false);
    expect(text).toEqual(objects);
  });
});

describe('registry.listJsonParts', () => {
  it('is listJson in parts of at most 48 K characters and one object, the same text twice over (the second from the cached texts)', async () => {
    // Enough Services for several parts: each stored object is some 500 characters.
    for (let i = 0; i < 300; i += 50) {
      const batch = Array.from({ length: 50 }, (_, k) => registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: `s-${i + k}`, labels: { app: `s-${i + k}` } }, spec: { ports: [{ port: 80 }] } }));
      for (const r of await Promise.all(batch)) if (!r.ok) throw new Error(r.error.message);
    }
    const objects = await registry.list('services');
    if (!objects.ok) throw new Error('list failed');
    for (let round = 0; round < 2; round++) {
      const parts = await registry.listJsonParts('services');
      if (!parts.ok) throw new Error('list failed');
      expect(parts.value.join('')).toBe(JSON.stringify(objects.value));
      expect(parts.value.length).toBeGreaterThan(2);
      const longestObject = Math.max(...objects.value.items.map((s) => JSON.stringify(s).length));
      for (const part of parts.value) expect(part.length).toBeLessThan(48 * 1024 + longestObject + 1);
    }
  });
});
