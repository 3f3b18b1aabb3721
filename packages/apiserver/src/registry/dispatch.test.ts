// Bad input through dispatch: each request gets upstream's error, and the store's revision
// does not move (nothing was written, not even an allocation).
import { describe, expect, it } from 'vitest';
import type { Store } from '@kubesvc/store';
import { dispatch, type ApiRequest } from './dispatch.js';
import type { Registry } from './registry.js';
import { memoryRegistry } from './registry.fixtures.js';

async function setup(): Promise<{ registry: Registry; store: Store }> {
  const { registry, store } = await memoryRegistry();
  const taken = await dispatch(registry, {
    verb: 'create',
    resource: 'services',
    namespace: 'default',
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'taken' }, spec: { type: 'NodePort', clusterIP: '10.96.0.10', ports: [{ port: 80, nodePort: 30010 }] } }),
  });
  if (!taken.ok) throw new Error(taken.error.message);
  return { registry, store };
}

const service = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }], ...spec }, ...extra });

const create = (body: string | Uint8Array, resource: ApiRequest['resource'] = 'services'): ApiRequest => ({ verb: 'create', resource, namespace: 'default', body });

const cases: readonly { readonly name: string; readonly request: ApiRequest; readonly code: number; readonly message: string }[] = [
  {
    name: 'malformed JSON',
    request: create('{"apiVersion":"v1",'),
    code: 400,
    message: 'the object provided is unrecognized (must be of type Service): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1",)',
  },
  {
    name: 'malformed JSON (a bad character)',
    request: create('{"kind" "Service"}'),
    code: 400,
    message: 'the object provided is unrecognized (must be of type Service): couldn\'t get version/kind; json parse error: invalid character \'"\' after object key ({"kind" "Service"})',
  },
  {
    name: 'a body that is not an object',
    request: create('[]'),
    code: 400,
    message:
      'the object provided is unrecognized (must be of type Service): couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b5d)',
  },
  {
    name: 'a wrong kind',
    request: create(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' } })),
    code: 400,
    message: 'Pod in version "v1" cannot be handled as a Service: converting (v1.Pod) to (core.Service): unknown conversion',
  },
  {
    // networking.k8s.io/v1 is in the legacy scheme too (v1.33), so this is a conversion refusal.
    name: 'a kind of another group',
    request: create(JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: 'web' } })),
    code: 400,
    message: 'ServiceCIDR in version "v1" cannot be handled as a Service: converting (v1.ServiceCIDR) to (core.Service): unknown conversion',
  },
  {
    name: 'a wrong apiVersion',
    request: create(JSON.stringify({ apiVersion: 'v2', kind: 'Service', metadata: { name: 'web' } })),
    code: 400,
    message: 'Service in version "v2" cannot be handled as a Service: no kind "Service" is registered for version "v2" in scheme "pkg/api/legacyscheme/scheme.go:30"',
  },
  {
    name: 'an unknown field under strict field validation',
    request: { ...create(service({ foo: 1 })), fieldValidation: 'Strict' } as ApiRequest,
    code: 400,
    message: 'Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.foo"',
  },
  {
    name: 'unknown fields in nested lists',
    request: { ...create(service({ ports: [{ port: 80, bar: true }] }, { extra: {} })), fieldValidation: 'Strict' } as ApiRequest,
    code: 400,
    message: 'Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.ports[0].bar", unknown field "extra"',
  },
  {
    name: 'a value of the wrong JSON type',
    request: create(service({ ports: [{ port: '80' }] })),
    code: 400,
    message: 'Service in version "v1" cannot be handled as a Service: spec.ports[0].port: expected number, got string "80"',
  },
  {
    name: 'a name in the body that differs from the URL',
    request: { verb: 'update', resource: 'services', namespace: 'default', name: 'taken', body: service({}) },
    code: 400,
    message: 'the name of the object (web) does not match the name on the URL (taken)',
  },
  {
    name: 'a namespace in the body that differs from the request',
    request: create(JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'other' }, spec: { ports: [{ port: 80 }] } })),
    code: 400,
    message: 'the namespace of the provided object does not match the namespace sent on the request',
  },
  {
    name: 'a body over 3 MiB',
    request: create(service({}, { metadata: { name: 'web', annotations: { big: 'x'.repeat(3 * 1024 * 1024) } } })),
    code: 413,
    message: 'Request entity too large: limit is 3145728',
  },
  {
    name: 'a clusterIP outside the range',
    request: create(service({ clusterIP: '10.0.0.5' })),
    code: 422,
    message:
      'Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.5"}: failed to allocate IP 10.0.0.5: the provided IP (10.0.0.5) is not in the valid range. The range of valid IPs is 10.96.0.0/24',
  },
  {
    name: 'a clusterIP already allocated',
    request: create(service({ clusterIP: '10.96.0.10' })),
    code: 422,
    message: 'Service "web" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
  },
  {
    name: 'a nodePort out of range',
    request: create(service({ type: 'NodePort', ports: [{ port: 80, nodePort: 32000 }] })),
    code: 422,
    message: 'Service "web" is invalid: spec.ports[0].nodePort: Invalid value: 32000: provided port is not in the valid range. The range of valid ports is 30000-30100',
  },
  {
    name: 'a nodePort already allocated',
    request: create(service({ type: 'NodePort', ports: [{ port: 80, nodePort: 30010 }] })),
    code: 422,
    message: 'Service "web" is invalid: spec.ports[0].nodePort: Invalid value: 30010: provided port is already allocated',
  },
  {
    name: 'an invalid Service (validation from api-types)',
    request: create(service({ type: 'Foo' })),
    code: 422,
    message: 'Service "web" is invalid: spec.type: Unsupported value: "Foo": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
  },
];

describe('bad input gets a clear error and nothing is written', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const { registry, store } = await setup();
      const before = await store.revision();
      const r = await dispatch(registry, c.request);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.status.code).toBe(c.code);
      expect(r.error.code).toBe(c.code);
      expect(r.error.status.message).toBe(c.message);
      expect(await store.revision()).toBe(before);
    });
  }

  it('under Warn an unknown field is dropped with a warning, and the object is stored without it', async () => {
    const { registry } = await setup();
    const r = await dispatch(registry, { ...create(service({ foo: 1 })), fieldValidation: 'Warn' } as ApiRequest);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.code).toBe(201);
    expect(r.value.warnings).toEqual(['unknown field "spec.foo"']);
    const got = await dispatch(registry, { verb: 'get', resource: 'services', namespace: 'default', name: 'web' });
    expect(got.ok && (got.value.body as { spec: Record<string, unknown> }).spec['foo']).toBe(undefined);
    expect(got.ok).toBe(true);
  });

  it('without fieldValidation the default is Warn, as in kube-apiserver (kubectl sends Strict itself)', async () => {
    // upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go fieldValidation:
    // an empty directive is metav1.FieldValidationWarn.
    const { registry } = await setup();
    const r = await dispatch(registry, create(service({ foo: 1 })));
    expect(r.ok && [r.value.code, r.value.warnings]).toEqual([201, ['unknown field "spec.foo"']]);
    const patched = await dispatch(registry, { verb: 'patch', resource: 'services', namespace: 'default', name: 'web', patchType: 'application/merge-patch+json', body: '{"spec":{"bar":1}}' });
    expect(patched.ok).toBe(true);
    const strict = await dispatch(registry, { verb: 'patch', resource: 'services', namespace: 'default', name: 'web', patchType: 'application/merge-patch+json', body: '{"spec":{"bar":1}}', fieldValidation: 'Strict' });
    expect(strict.ok || strict.error.message).toBe('Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.bar"');
  });

  it('routes every verb', async () => {
    const { registry } = await setup();
    const list = await dispatch(registry, { verb: 'list', resource: 'services', namespace: 'default' });
    expect(list.ok && (list.value.body as unknown as { items: unknown[] }).items.length).toBe(1);
    const patch = await dispatch(registry, { verb: 'patch', resource: 'services', namespace: 'default', name: 'taken', patchType: 'application/merge-patch+json', body: '{"metadata":{"labels":{"a":"b"}}}' });
    expect(patch.ok).toBe(true);
    const del = await dispatch(registry, { verb: 'delete', resource: 'services', namespace: 'default', name: 'taken' });
    expect(del.ok && del.value.code).toBe(200);
  });
});
