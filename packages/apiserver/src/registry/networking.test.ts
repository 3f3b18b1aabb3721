// ServiceCIDRs and IPAddresses (networking.k8s.io/v1) through dispatch: stored cluster-scoped
// under the generic Store's key roots, validated with upstream's messages, the ServiceCIDR
// status subresource keeping the stored spec, and IPAddress generateName used as the name.
// The expected errors are upstream's: pkg/apis/networking/validation/validation_test.go
// (TestValidateServiceCIDR, TestValidateServiceCIDRUpdate, TestValidateIPAddress,
// TestValidateIPAddressUpdate) rendered as errors.NewInvalid renders them; the storage
// behaviour is pkg/registry/networking/{servicecidr,ipaddress}/{strategy.go,storage/storage.go}.
import type { KubeObject } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { openMemoryStore, type Store, virtualClock } from '@kubesvc/store';
import { dispatch, type ApiRequest } from './dispatch.js';
import { createRegistry, type Registry } from './registry.js';

async function setup(): Promise<{ registry: Registry; store: Store }> {
  const clock = virtualClock(Date.UTC(2025, 0, 2));
  const store = openMemoryStore({ clock });
  const r = createRegistry({ store, clock, seed: 1, serviceClusterIPRanges: ['10.96.0.0/24'], serviceNodePortRange: '30000-30100' });
  if (!r.ok) throw new Error(r.error.message);
  return { registry: r.value, store };
}

const serviceCIDR = (name: string, cidrs: readonly string[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs }, ...extra });

const SERVICE_REF = { group: '', resource: 'services', namespace: 'default', name: 'web' };

const ipAddress = (meta: Record<string, unknown>, parentRef?: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', metadata: meta, spec: parentRef === undefined ? {} : { parentRef } });

const create = (resource: 'servicecidrs' | 'ipaddresses', body: string): ApiRequest => ({ verb: 'create', resource, namespace: '', body });

async function ok(registry: Registry, request: ApiRequest): Promise<KubeObject> {
  const r = await dispatch(registry, request);
  if (!r.ok) throw new Error(r.error.status.message);
  return r.value.body as KubeObject;
}

async function refused(registry: Registry, request: ApiRequest): Promise<{ code: number; message: string }> {
  const r = await dispatch(registry, request);
  if (r.ok) throw new Error('expected a refusal');
  return { code: r.error.status.code, message: r.error.status.message ?? '' };
}

const NOT_A_CIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';
const NOT_AN_IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

describe('servicecidrs', () => {
  it('creates a ServiceCIDR cluster-scoped under /registry/servicecidrs/ and reads it back', async () => {
    const { registry, store } = await setup();
    const created = await ok(registry, create('servicecidrs', serviceCIDR('extra', ['10.100.0.0/16', 'fd00:100::/64'])));
    expect(created.kind).toBe('ServiceCIDR');
    expect(created.metadata.namespace).toBeUndefined();
    expect((await store.get('/registry/servicecidrs/extra')).kv).toBeDefined();
    const got = await ok(registry, { verb: 'get', resource: 'servicecidrs', namespace: '', name: 'extra' });
    expect((got as { spec?: { cidrs?: string[] } }).spec?.cidrs).toEqual(['10.100.0.0/16', 'fd00:100::/64']);
    const list = (await ok(registry, { verb: 'list', resource: 'servicecidrs', namespace: '' })) as unknown as { kind: string; apiVersion: string; items: KubeObject[] };
    expect([list.kind, list.apiVersion, list.items.map((i) => i.metadata.name)]).toEqual(['ServiceCIDRList', 'networking.k8s.io/v1', ['extra']]);
  });

  const createCases: readonly { readonly name: string; readonly body: string; readonly message: string }[] = [
    {
      // TestValidateServiceCIDR "empty-iprange"
      name: 'no CIDRs',
      body: serviceCIDR('bad', []),
      message: 'ServiceCIDR.networking.k8s.io "bad" is invalid: spec.cidrs: Required value: at least one CIDR required',
    },
    {
      // "not-iprange-ipv4"
      name: 'a CIDR that does not parse',
      body: serviceCIDR('bad', ['asdasdasd']),
      message: `ServiceCIDR.networking.k8s.io "bad" is invalid: spec.cidrs[0]: Invalid value: "asdasdasd": ${NOT_A_CIDR}`,
    },
    {
      // "badip-iprange-ipv4"
      name: 'a CIDR with host bits set',
      body: serviceCIDR('bad', ['192.168.0.1/24']),
      message: 'ServiceCIDR.networking.k8s.io "bad" is invalid: spec.cidrs[0]: Invalid value: "192.168.0.1/24": must not have bits set beyond the prefix length',
    },
    {
      // "three-ipranges"
      name: 'three CIDRs',
      body: serviceCIDR('bad', ['192.168.0.0/24', 'fd00::/64', '10.0.0.0/16']),
      message:
        'ServiceCIDR.networking.k8s.io "bad" is invalid: spec.cidrs: Invalid value: networking.ServiceCIDRSpec{CIDRs:[]string{"192.168.0.0/24", "fd00::/64", "10.0.0.0/16"}}: may only hold up to 2 values',
    },
  ];

  for (const c of createCases) {
    it(`refuses ${c.name} with a 422 and writes nothing`, async () => {
      const { registry, store } = await setup();
      const before = await store.revision();
      expect(await refused(registry, create('servicecidrs', c.body))).toEqual({ code: 422, message: c.message });
      expect(await store.revision()).toBe(before);
    });
  }

  it('refuses a change of a CIDR and allows the single-stack to dual-stack upgrade', async () => {
    const { registry } = await setup();
    const stored = await ok(registry, create('servicecidrs', serviceCIDR('extra', ['10.100.0.0/16'])));
    const meta = stored.metadata;
    // TestValidateServiceCIDRUpdate "Failed update, update spec.CIDRs single stack"
    const changed = await refused(registry, {
      verb: 'update',
      resource: 'servicecidrs',
      namespace: '',
      name: 'extra',
      body: serviceCIDR('extra', ['10.101.0.0/16'], { metadata: meta }),
    });
    expect(changed).toEqual({ code: 422, message: 'ServiceCIDR.networking.k8s.io "extra" is invalid: spec.cidrs[0]: Invalid value: "10.101.0.0/16": field is immutable' });
    // "Successful update, single IPv4 to dual stack upgrade"
    const upgraded = await ok(registry, {
      verb: 'update',
      resource: 'servicecidrs',
      namespace: '',
      name: 'extra',
      body: serviceCIDR('extra', ['10.100.0.0/16', 'fd00:100::/64'], { metadata: meta }),
    });
    expect((upgraded as { spec?: { cidrs?: string[] } }).spec?.cidrs).toEqual(['10.100.0.0/16', 'fd00:100::/64']);
  });

  it('/status writes the conditions and keeps the stored spec (serviceCIDRStatusStrategy.PrepareForUpdate)', async () => {
    const { registry } = await setup();
    const stored = await ok(registry, create('servicecidrs', serviceCIDR('extra', ['10.100.0.0/16'])));
    const ready = { type: 'Ready', status: 'True', lastTransitionTime: '2025-01-02T00:00:00Z', reason: '', message: 'Kubernetes Service CIDR is ready' };
    const written = await ok(registry, {
      verb: 'update',
      resource: 'servicecidrs',
      namespace: '',
      name: 'extra',
      subresource: 'status',
      body: serviceCIDR('extra', ['10.200.0.0/16'], { metadata: stored.metadata, status: { conditions: [ready] } }),
    });
    const w = written as { spec?: { cidrs?: string[] }; status?: { conditions?: unknown[] } };
    expect(w.spec?.cidrs).toEqual(['10.100.0.0/16']);
    expect(w.status?.conditions).toEqual([ready]);
  });

  it('stores the status a create or an update of the main resource carries (upstream\'s PrepareForCreate and PrepareForUpdate are empty)', async () => {
    const { registry } = await setup();
    const pending = { type: 'Ready', status: 'False', lastTransitionTime: '2025-01-02T00:00:00Z', reason: 'Pending', message: '' };
    const stored = await ok(registry, create('servicecidrs', serviceCIDR('extra', ['10.100.0.0/16'], { status: { conditions: [pending] } })));
    expect((stored as { status?: unknown }).status).toEqual({ conditions: [pending] });
    const cleared = await ok(registry, {
      verb: 'update',
      resource: 'servicecidrs',
      namespace: '',
      name: 'extra',
      body: serviceCIDR('extra', ['10.100.0.0/16'], { metadata: stored.metadata }),
    });
    expect((cleared as { status?: unknown }).status).toBeUndefined();
  });

  it('deletes a ServiceCIDR with a Status naming it in its group', async () => {
    const { registry, store } = await setup();
    const stored = await ok(registry, create('servicecidrs', serviceCIDR('extra', ['10.100.0.0/16'])));
    const deleted = (await ok(registry, { verb: 'delete', resource: 'servicecidrs', namespace: '', name: 'extra' })) as unknown as Record<string, unknown>;
    expect(deleted).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'extra', group: 'networking.k8s.io', kind: 'servicecidrs', uid: stored.metadata.uid },
    });
    expect((await store.get('/registry/servicecidrs/extra')).kv).toBeUndefined();
    expect(await refused(registry, { verb: 'get', resource: 'servicecidrs', namespace: '', name: 'extra' })).toEqual({
      code: 404,
      message: 'servicecidrs.networking.k8s.io "extra" not found',
    });
  });
});

describe('ipaddresses', () => {
  it('creates an IPAddress under /registry/ipaddresses/ named by its IP', async () => {
    const { registry, store } = await setup();
    const created = await ok(registry, create('ipaddresses', ipAddress({ name: '10.96.0.20' }, SERVICE_REF)));
    expect(created.metadata.namespace).toBeUndefined();
    expect((await store.get('/registry/ipaddresses/10.96.0.20')).kv).toBeDefined();
  });

  it('names an IPAddress created with generateName by generateName itself (noopNameGenerator)', async () => {
    const { registry, store } = await setup();
    const created = await ok(registry, create('ipaddresses', ipAddress({ generateName: '10.96.0.21' }, SERVICE_REF)));
    expect(created.metadata.name).toBe('10.96.0.21');
    expect((await store.get('/registry/ipaddresses/10.96.0.21')).kv).toBeDefined();
  });

  const createCases: readonly { readonly name: string; readonly body: string; readonly message: string }[] = [
    {
      // TestValidateIPAddress "empty-ipaddress-bad-name"
      name: 'a name that is not an IP',
      body: ipAddress({ name: 'test-name' }, SERVICE_REF),
      message: `IPAddress.networking.k8s.io "test-name" is invalid: metadata.name: Invalid value: "test-name": ${NOT_AN_IP}`,
    },
    {
      // "missing-ipaddress-reference"
      name: 'no parentRef',
      body: ipAddress({ name: '192.168.1.1' }),
      message: 'IPAddress.networking.k8s.io "192.168.1.1" is invalid: spec.parentRef: Required value',
    },
    {
      // "wrong-ipaddress-leading-zeros" as v0.33's strict parser words it
      name: 'an IP with leading zeros',
      body: ipAddress({ name: '10.0.0.01' }, SERVICE_REF),
      message: 'IPAddress.networking.k8s.io "10.0.0.01" is invalid: metadata.name: Invalid value: "10.0.0.01": must not have leading 0s',
    },
  ];

  for (const c of createCases) {
    it(`refuses ${c.name} with a 422`, async () => {
      const { registry } = await setup();
      expect(await refused(registry, create('ipaddresses', c.body))).toEqual({ code: 422, message: c.message });
    });
  }

  it('refuses a change of the parentRef (TestValidateIPAddressUpdate)', async () => {
    const { registry } = await setup();
    const gateway = { group: 'custom.resource.com', resource: 'gateway', namespace: 'foo', name: 'bar' };
    const stored = await ok(registry, create('ipaddresses', ipAddress({ name: '192.168.1.1' }, gateway)));
    const changed = await refused(registry, {
      verb: 'update',
      resource: 'ipaddresses',
      namespace: '',
      name: '192.168.1.1',
      body: ipAddress(stored.metadata, { ...gateway, name: 'baz' }),
    });
    expect(changed).toEqual({
      code: 422,
      message:
        'IPAddress.networking.k8s.io "192.168.1.1" is invalid: spec.parentRef: Invalid value: networking.ParentReference{Group:"custom.resource.com", Resource:"gateway", Namespace:"foo", Name:"baz"}: field is immutable',
    });
  });

  it('has no status subresource', async () => {
    const { registry } = await setup();
    const stored = await ok(registry, create('ipaddresses', ipAddress({ name: '10.96.0.20' }, SERVICE_REF)));
    const r = await refused(registry, {
      verb: 'update',
      resource: 'ipaddresses',
      namespace: '',
      name: '10.96.0.20',
      subresource: 'status',
      body: ipAddress(stored.metadata, SERVICE_REF),
    });
    expect(r.code).toBe(404);
  });
});
