// A namespaced object without a namespace is read as kubectl sends it, in `default`
// (upstream: staging/src/k8s.io/cli-runtime/pkg/resource/visitor.go, SetNamespace), by
// `validate` and by every command that reads a dump; a cluster-scoped one keeps none.
import type { ClusterIPFamilies } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { loadDump } from '../dump/load-dump.js';
import { formatValidation, validateText } from './validate.js';

const FAMILIES: ClusterIPFamilies = ['IPv4'];
const STREAM = [
  'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80}]}',
  'apiVersion: v1\nkind: Service\nmetadata: {name: api, namespace: ""}\nspec: {ports: [{port: 81}]}',
  'apiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: shop}\nspec: {ports: [{port: 5432}]}',
  'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}',
].join('\n---\n');

describe('the default namespace', () => {
  it('validate checks a Service without a namespace as one in default, as kubectl create sends it', () => {
    const report = validateText('in.yaml', STREAM, FAMILIES);
    expect(formatValidation(report)).toBe(
      [
        'in.yaml: document 1 (Service default/web): valid',
        'in.yaml: document 2 (Service default/api): valid',
        'in.yaml: document 3 (Service shop/db): valid',
        'in.yaml: document 4 (Namespace shop): valid',
        '4 valid, 0 invalid',
        '',
      ].join('\n'),
    );
  });

  it('a dump puts namespaced objects without one in default, and leaves a Namespace without one', () => {
    const loaded = loadDump('in.yaml', STREAM);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.value.services.map((s) => `${s.metadata.namespace ?? '<none>'}/${s.metadata.name ?? ''}`)).toStrictEqual(['default/web', 'default/api', 'shop/db']);
    expect(loaded.value.namespaces.map((n) => n.metadata.namespace ?? '<none>')).toStrictEqual(['<none>']);
  });
});

describe('YAML aliases', () => {
  it('an input whose aliases stay near its size is read as usual; one they blow up is refused before it is decoded', async () => {
    const { aliasExpansionLimit, aliasExpansionOver } = await import('../dump/alias-expansion.js');
    const manifest = 'apiVersion: v1\nkind: Service\nmetadata: {name: web, labels: &l {app: web}}\nspec: {selector: *l, ports: [{port: 80}]}\n';
    expect(aliasExpansionOver(manifest, aliasExpansionLimit(manifest.length))).toBeUndefined();
    expect(formatValidation(validateText('in.yaml', manifest, FAMILIES))).toBe('in.yaml: document 1 (Service default/web): valid\n1 valid, 0 invalid\n');
    // 999 aliases of a 100,000-character scalar: about 100 million characters once expanded.
    const bomb = `a: &a ${'x'.repeat(100_000)}\nb: [${Array.from({ length: 999 }, () => '*a').join(',')}]\n`;
    const over = aliasExpansionOver(bomb, aliasExpansionLimit(bomb.length));
    expect(over).toBeGreaterThan(99_900_000);
  });
});
