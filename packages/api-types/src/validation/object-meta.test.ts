// Expected messages and their order follow upstream:
//   staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go (v1.32:
//     ValidateObjectMetaAccessor, ValidateObjectMetaAccessorUpdate, validateOwnerReference)
//   pkg/apis/core/validation/validation.go (ValidateObjectMeta wrapper, validateKubeFinalizerName)
// Strings such as `metadata.name: Required value: name or generateName is required` and
// `metadata.resourceVersion: Invalid value: "": must be specified for an update` are the
// ones a real apiserver returns.
import { DNS1035_LABEL_MSG as DNS1035_MSG, DNS1123_LABEL_MSG as LABEL_MSG } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import { fieldPath } from './field-path.js';
import { renderFieldError, type FieldError } from './field-errors.js';
import { nameIsDNSLabel, validateServiceName } from './names.js';
import { validateObjectMeta, validateObjectMetaUpdate, type ObjectMetaInput } from './object-meta.js';

const META = fieldPath('metadata');
const service = { namespaced: true, validateName: validateServiceName } as const;
const namespace = { namespaced: false, validateName: nameIsDNSLabel } as const;

const render = (errs: readonly FieldError[]): string[] => errs.map(renderFieldError);
const fields = (errs: readonly FieldError[]): string[] => errs.map((e) => e.field);


describe('validateObjectMeta', () => {
  it('accepts a valid namespaced object', () => {
    expect(validateObjectMeta({ name: 'web', namespace: 'default', labels: { app: 'web' } }, service, META)).toEqual([]);
  });

  it('requires a name and, for namespaced kinds, a namespace', () => {
    expect(render(validateObjectMeta({}, service, META))).toEqual([
      'metadata.name: Required value: name or generateName is required',
      'metadata.namespace: Required value',
    ]);
  });

  it("uses the kind's name rule and the namespace-name rule", () => {
    expect(render(validateObjectMeta({ name: '1web', namespace: 'Default' }, service, META))).toEqual([
      `metadata.name: Invalid value: "1web": ${DNS1035_MSG}`,
      `metadata.namespace: Invalid value: "Default": ${LABEL_MSG}`,
    ]);
  });

  it('checks generateName as a prefix, before the name', () => {
    expect(render(validateObjectMeta({ generateName: 'web-', name: 'web-x7k2p', namespace: 'ns' }, service, META))).toEqual(
      [],
    );
    expect(render(validateObjectMeta({ generateName: 'Web-', namespace: 'ns' }, service, META))).toEqual([
      `metadata.generateName: Invalid value: "Web-": ${DNS1035_MSG}`,
      'metadata.name: Required value: name or generateName is required',
    ]);
  });

  it('forbids a namespace on a cluster-scoped kind', () => {
    expect(render(validateObjectMeta({ name: 'team-a', namespace: 'x' }, namespace, META))).toEqual([
      'metadata.namespace: Forbidden: not allowed on this type',
    ]);
  });

  it('reports label errors on `metadata.labels` itself, with the key or value as bad value', () => {
    const errs = validateObjectMeta(
      { name: 'web', namespace: 'ns', labels: { app: 'ok', 'bad key': 'v', tier: '-front' } },
      service,
      META,
    );
    expect(render(errs)).toEqual([
      `metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `metadata.labels: Invalid value: "-front": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ]);
  });

  it('lower-cases annotation keys before checking them and limits keys plus values to 262144 bytes', () => {
    const ok = { name: 'web', namespace: 'ns', annotations: { 'Example.COM/Key': 'x', a: 'b'.repeat(262144 - 1 - 'Example.COM/Key'.length - 1) } };
    expect(validateObjectMeta(ok, service, META)).toEqual([]);
    const tooBig = { ...ok, annotations: { ...ok.annotations, c: '' } };
    expect(render(validateObjectMeta(tooBig, service, META))).toEqual([
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
  });

  it('validates owner references against the list path, without an index', () => {
    const meta: ObjectMetaInput = {
      name: 'web',
      namespace: 'ns',
      ownerReferences: [{ apiVersion: 'a/b/c', kind: '', name: '', uid: '' }],
    };
    expect(render(validateObjectMeta(meta, service, META))).toEqual([
      'metadata.ownerReferences.apiVersion: Invalid value: "a/b/c": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
  });

  it('bans Events as owners and allows one controller', () => {
    const meta: ObjectMetaInput = {
      name: 'web',
      namespace: 'ns',
      ownerReferences: [
        { apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' },
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: '1', controller: true },
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'b', uid: '2', controller: true },
      ],
    };
    const errs = render(validateObjectMeta(meta, service, META));
    expect(errs[0]).toBe(
      'metadata.ownerReferences: Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"u", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an owner',
    );
    expect(errs).toHaveLength(2);
    expect(errs[1]).toMatch(/^metadata\.ownerReferences: Invalid value: \[\]v1\.OwnerReference\{v1\.OwnerReference\{/);
    expect(errs[1]).toMatch(
      /: Only one reference can have Controller set to true\. Found "true" in references for ReplicaSet\/a and ReplicaSet\/b$/,
    );
  });

  it('checks finalizers as qualified names, then for the orphan/foreground conflict, then the legacy rule', () => {
    expect(validateObjectMeta({ name: 'web', namespace: 'ns', finalizers: ['kubernetes', 'example.com/x'] }, service, META)).toEqual(
      [],
    );
    expect(
      render(validateObjectMeta({ name: 'web', namespace: 'ns', finalizers: ['orphan', 'foregroundDeletion', 'custom'] }, service, META)),
    ).toEqual([
      'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion", "custom"}: finalizer orphan and foregroundDeletion cannot be both set',
      'metadata.finalizers[2]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
    expect(fields(validateObjectMeta({ name: 'web', namespace: 'ns', finalizers: ['Bad_/x'] }, service, META))).toEqual([
      'metadata.finalizers',
    ]);
  });

  it('rejects a negative generation', () => {
    expect(render(validateObjectMeta({ name: 'web', namespace: 'ns', generation: -1 }, service, META))).toEqual([
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  it('runs the checks in upstream order', () => {
    const meta: ObjectMetaInput = {
      generateName: 'XY-',
      namespace: 'N',
      generation: -1,
      labels: { 'a b': 'c' },
      annotations: { '/x': '' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: '', uid: 'u' }],
      finalizers: ['custom'],
    };
    expect(fields(validateObjectMeta(meta, service, META))).toEqual([
      'metadata.generateName',
      'metadata.name',
      'metadata.namespace',
      'metadata.generation',
      'metadata.labels',
      'metadata.annotations',
      'metadata.ownerReferences.name',
      'metadata.finalizers[0]',
    ]);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old: ObjectMetaInput = {
    name: 'web',
    namespace: 'ns',
    uid: 'u1',
    resourceVersion: '7',
    generation: 2,
    creationTimestamp: '2024-01-01T00:00:00Z',
  };

  it('accepts an unchanged object carrying a resourceVersion', () => {
    expect(validateObjectMetaUpdate({ ...old }, old, META)).toEqual([]);
  });

  it('requires a resourceVersion', () => {
    expect(render(validateObjectMetaUpdate({ ...old, resourceVersion: '' }, old, META))).toEqual([
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
    ]);
  });

  it('keeps name, namespace and uid immutable', () => {
    expect(render(validateObjectMetaUpdate({ ...old, name: 'api', uid: 'u2' }, old, META))).toEqual([
      'metadata.name: Invalid value: "api": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
    ]);
  });

  it('compares timestamps as instants and prints them like time.Time', () => {
    expect(validateObjectMetaUpdate({ ...old, creationTimestamp: '2024-01-01T01:00:00+01:00' }, old, META)).toEqual([]);
    expect(render(validateObjectMetaUpdate({ ...old, creationTimestamp: '2024-02-29T23:59:58.5+00:00' }, old, META))).toEqual(
      ['metadata.creationTimestamp: Invalid value: 2024-02-29 23:59:58.5 +0000 UTC: field is immutable'],
    );
    expect(render(validateObjectMetaUpdate({ ...old, creationTimestamp: null }, old, META))).toEqual([
      'metadata.creationTimestamp: Invalid value: 0001-01-01 00:00:00 +0000 UTC: field is immutable',
    ]);
    const deleting = { ...old, deletionTimestamp: '2024-03-01T00:00:00Z' };
    expect(render(validateObjectMetaUpdate({ ...deleting, deletionTimestamp: null }, deleting, META))).toEqual([
      'metadata.deletionTimestamp: Invalid value: "null": field is immutable',
    ]);
  });

  it('forbids new finalizers once deletion started, listing them sorted', () => {
    const deleting = { ...old, deletionTimestamp: '2024-03-01T00:00:00Z', finalizers: ['kubernetes'] };
    expect(
      render(validateObjectMetaUpdate({ ...deleting, finalizers: ['kubernetes', 'example.com/b', 'example.com/a'] }, deleting, META)),
    ).toEqual([
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/a", "example.com/b"}',
    ]);
  });

  it('rejects a decremented generation', () => {
    expect(render(validateObjectMetaUpdate({ ...old, generation: 1 }, old, META))).toEqual([
      'metadata.generation: Invalid value: 1: must not be decremented',
    ]);
  });

  it('re-validates labels, annotations and owner references, and only the legacy finalizer rule', () => {
    const next = { ...old, labels: { 'a b': 'x' }, finalizers: ['Bad_/x', 'custom'] };
    expect(fields(validateObjectMetaUpdate(next, old, META))).toEqual(['metadata.labels', 'metadata.finalizers[1]']);
  });

  it('runs the checks in upstream order', () => {
    const deleting = { ...old, deletionTimestamp: '2024-03-01T00:00:00Z' };
    const next: ObjectMetaInput = {
      name: 'other',
      namespace: 'other',
      uid: 'other',
      generation: 1,
      creationTimestamp: '2020-01-01T00:00:00Z',
      deletionGracePeriodSeconds: 30,
      finalizers: ['example.com/new'],
      labels: { 'a b': 'c' },
    };
    expect(fields(validateObjectMetaUpdate(next, deleting, META))).toEqual([
      'metadata.finalizers',
      'metadata.resourceVersion',
      'metadata.generation',
      'metadata.name',
      'metadata.namespace',
      'metadata.uid',
      'metadata.creationTimestamp',
      'metadata.deletionTimestamp',
      'metadata.deletionGracePeriodSeconds',
      'metadata.labels',
    ]);
  });
});

describe('generateName masking', () => {
  it('checks "abc-" as "aba" but leaves a lone "-" to fail, as apimachinery generic.go maskTrailingDash does', () => {
    expect(render(validateObjectMeta({ generateName: '1-', name: 'x', namespace: 'ns' }, service, META))).toEqual([]);
    expect(fields(validateObjectMeta({ generateName: '-', name: 'x', namespace: 'ns' }, service, META))).toEqual(['metadata.generateName']);
  });
});
