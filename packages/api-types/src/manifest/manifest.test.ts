import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Service } from '../objects/service.js';
import { kubectlList } from '../objects/kinds.js';
import { decodeObject, formatManifestIssue, parseManifests, type ErrManifest, type Manifests, type ParseManifestsOptions } from './parse.js';
import { printJSON, printYAML, printYAMLDocuments } from './print.js';

function first<T>(items: readonly T[]): T {
  const [item] = items;
  if (item === undefined) throw new Error('expected at least one object');
  return item;
}

/** A stream that must parse; fails the test with ErrManifest's message otherwise. */
function parsed(text: string, options?: ParseManifestsOptions): Manifests {
  const result = parseManifests(text, options);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

/** A stream that must not parse. */
function refused(text: string, options?: ParseManifestsOptions): ErrManifest {
  const result = parseManifests(text, options);
  if (result.ok) throw new Error('expected ErrManifest');
  return result.error;
}

const dump = readFileSync(new URL('./fixtures/cluster-dump.json', import.meta.url), 'utf8');

describe('a kubectl get svc,endpoints,endpointslices,pods -A -o json dump', () => {
  const result = parseManifests(dump);
  const { objects } = parsed(dump);

  it('parses into typed objects of three namespaces, with no errors', () => {
    expect(result.ok).toBe(true);
    expect(objects.map((o) => o.kind)).toEqual([
      ...Array<string>(4).fill('Service'),
      ...Array<string>(4).fill('Endpoints'),
      ...Array<string>(5).fill('EndpointSlice'),
      ...Array<string>(5).fill('Pod'),
    ]);
    expect(new Set(objects.map((o) => o.metadata.namespace))).toEqual(new Set(['default', 'kube-system', 'shop']));
    const web = objects.find((o): o is Service => o.kind === 'Service' && o.metadata.name === 'web');
    expect(web?.spec?.ports?.[0]?.targetPort).toBe('http');
    expect(web?.spec?.sessionAffinityConfig?.clientIP?.timeoutSeconds).toBe(10800);
  });

  it('prints back byte for byte, fields it does not model included', () => {
    expect(printJSON(kubectlList(objects))).toBe(dump);
    // A container spec is not modelled, and still survives.
    expect(dump).toContain('"imagePullPolicy": "IfNotPresent"');
  });

  it('keeps a null endpoints list of an empty slice as null', () => {
    const empty = objects.find((o) => o.metadata.name === 'empty-8c2jq');
    expect(empty).toMatchObject({ kind: 'EndpointSlice', endpoints: null, ports: null });
  });

  it('goes through YAML and back to the same objects', () => {
    const yaml = printYAML(kubectlList(objects));
    expect(parsed(yaml).objects).toEqual(objects);
  });
});

describe('YAML as kubectl prints it', () => {
  it('sorts keys, does not indent sequences, and quotes strings YAML 1.1 would read otherwise', () => {
    const { objects } = parsed(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","creationTimestamp":"2026-11-02T09:00:00Z","labels":{"app10":"on","app2":"80"}},"spec":{"ports":[{"port":80,"targetPort":"8080"}],"clusterIP":""}}`);
    expect(printYAML(first(objects))).toBe(
      [
        'apiVersion: v1',
        'kind: Service',
        'metadata:',
        '  creationTimestamp: "2026-11-02T09:00:00Z"',
        '  labels:',
        '    app2: "80"',
        '    app10: "on"',
        '  name: web',
        'spec:',
        '  clusterIP: ""',
        '  ports:',
        '  - port: 80',
        '    targetPort: "8080"',
        '',
      ].join('\n'),
    );
  });

  it('writes multi-document streams that read back', () => {
    const { objects } = parsed(dump);
    const text = printYAMLDocuments(objects.slice(0, 3));
    expect(text.startsWith('---\napiVersion: v1\n')).toBe(true);
    expect(parsed(text).objects).toEqual(objects.slice(0, 3));
  });

  it("escapes <, > and & in JSON as Go's encoder does", () => {
    const { objects } = parsed('{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a","annotations":{"x":"<b> & </b>"}}}');
    expect(printJSON(first(objects))).toContain('"x": "\\u003cb\\u003e \\u0026 \\u003c/b\\u003e"');
  });
});

describe('reading manifests', () => {
  it('reads YAML 1.1 scalars as kubectl does, and keeps timestamps as strings', () => {
    const { objects } = parsed(
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  creationTimestamp: 2026-11-02T09:00:00Z\nspec:\n  publishNotReadyAddresses: yes\n  ports:\n  - port: 0x50\n',
    );
    expect(objects[0]).toMatchObject({
      metadata: { creationTimestamp: '2026-11-02T09:00:00Z' },
      spec: { publishNotReadyAddresses: true, ports: [{ port: 80 }] },
    });
  });

  it('reads on, yes, y and n as booleans, as go-yaml v2 does, so a string field refuses them', () => {
    const error = refused('apiVersion: v1\nkind: Namespace\nmetadata:\n  name: n\n  labels: {enabled: on}\n');
    expect(error.causes.map(formatManifestIssue)).toEqual([
      'document 1 (Namespace): metadata.name: expected string, got boolean false',
      'document 1 (Namespace): metadata.labels[enabled]: expected string, got boolean true',
    ]);
  });

  it('names the document, the object and the field of each error', () => {
    const text = [
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: ok}',
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n  labels: {tier: 3}\nspec:\n  ports:\n  - port: "80"\n  - port: 99999999999\n    targetPort: [1]',
    ].join('\n---\n');
    const result = parseManifests(text);
    expect(result.ok).toBe(false);
    const error = refused(text);
    expect(error._tag).toBe('ErrManifest');
    // The document that decoded is carried on the error.
    expect(error.objects.map((o) => o.metadata.name)).toEqual(['ok']);
    const lines = [
      'document 2 (Service shop/web): metadata.labels[tier]: expected string, got integer 3',
      'document 2 (Service shop/web): spec.ports[0].port: expected number, got string "80"',
      'document 2 (Service shop/web): spec.ports[1].port: integer 99999999999 is out of range for a 32-bit integer',
      'document 2 (Service shop/web): spec.ports[1].targetPort: expected an integer or a string, got array',
    ];
    expect(error.causes.map(formatManifestIssue)).toEqual(lines);
    // message is the causes printed with formatManifestIssue, one a line.
    expect(error.message).toBe(lines.join('\n'));
  });

  it('refuses unknown kinds, or skips them in tolerant mode', () => {
    const text = 'apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: d}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n';
    const strict = refused(text);
    expect(strict.causes.map(formatManifestIssue)).toEqual([
      'document 1 (StatefulSet d): no matches for kind "StatefulSet" in version "apps/v1"',
    ]);
    expect(strict.skipped).toEqual([]);
    expect(parseManifests(text, { tolerant: true }).ok).toBe(true);
    const tolerant = parsed(text, { tolerant: true });
    expect(tolerant.skipped.map(formatManifestIssue)).toEqual(strict.causes.map(formatManifestIssue));
    expect(tolerant.objects.map((o) => o.metadata.name)).toEqual(['ns']);
  });

  it('reports a kind under the wrong apiVersion, and a missing kind', () => {
    const error = refused('apiVersion: v1\nkind: EndpointSlice\nmetadata: {name: s}\naddressType: IPv4\n---\napiVersion: v1\nmetadata: {name: x}\n');
    expect(error.causes.map((e) => e.message)).toEqual([
      'no matches for kind "EndpointSlice" in version "v1"',
      `Object 'Kind' is missing in '{"apiVersion":"v1","metadata":{"name":"x"}}'`,
    ]);
  });

  it('skips empty documents and reports YAML syntax errors with their line', () => {
    const error = refused('---\n# only a comment\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a\n');
    expect(error.objects).toEqual([]);
    expect(error.causes).toHaveLength(1);
    expect(error.causes[0]?.document).toBe(2);
    expect(error.causes[0]?.message).toMatch(/^YAML: line \d+, column \d+: /);
  });

  it('reads a stream of JSON objects and a typed list whose items carry no kind', () => {
    const text = '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}\n{"apiVersion":"v1","kind":"ServiceList","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"s","namespace":"a"},"spec":{"ports":[{"port":80}]}}]}';
    expect(parseManifests(text).ok).toBe(true);
    expect(parsed(text).objects.map((o) => `${o.apiVersion} ${o.kind} ${o.metadata.name}`)).toEqual(['v1 Namespace a', 'v1 Service s']);
  });

  it('reports a broken JSON document and goes on with the next', () => {
    const error = refused('{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"},}\n{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"b"}}');
    expect(error.objects.map((o) => o.metadata.name)).toEqual(['b']);
    expect(error.causes.map((e) => [e.document, e.message.startsWith('JSON: document starting at line 1, column 1: ')])).toEqual([[1, true]]);
  });

  it('refuses a document that is not an object', () => {
    expect(refused('- a\n- b\n').causes.map(formatManifestIssue)).toEqual(['document 1: expected an object, got array']);
  });
});

describe('decodeObject', () => {
  it('gives the typed object as the value', () => {
    const raw = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } };
    expect(decodeObject(raw)).toEqual({ ok: true, value: raw });
  });

  it('tags a kind this project does not model ErrNoKindMatch, with upstream text', () => {
    expect(decodeObject({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'd' } })).toEqual({
      ok: false,
      error: {
        _tag: 'ErrNoKindMatch',
        message: 'no matches for kind "StatefulSet" in version "apps/v1"',
        causes: [{ kind: 'StatefulSet', name: 'd', message: 'no matches for kind "StatefulSet" in version "apps/v1"' }],
      },
    });
  });

  it('tags bad fields ErrDecode, one cause per field, and prints them one a line', () => {
    const result = decodeObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 1, labels: { a: 2 } } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error._tag).toBe('ErrDecode');
    expect(result.error.causes.map((c) => c.field)).toEqual(['metadata.name', 'metadata.labels[a]']);
    expect(result.error.message).toBe('metadata.name: expected string, got integer 1\nmetadata.labels[a]: expected string, got integer 2');
  });
});
