// The whole create and update path, as `kubectl create` / `kubectl replace` meet it.
// Expected messages are upstream's (pkg/registry/core/service/storage/alloc.go,
// pkg/apis/core/validation/validation.go), cases after upstream's storage_test.go
// (TestCreateInitIPFields, TestUpdateDryRun-style type changes) and validation tests.
import { describe, expect, it } from 'vitest';
import { defaultService } from '../defaults.js';
import type { Service, ServiceSpec } from '../objects/service.js';
import { renderFieldError } from './field-errors.js';
import { validateServiceCreate, validateServiceUpdate, type ServiceClusterConfig, type ServiceRequestResult } from './service-request.js';
import { validateObject } from './validate.js';

const v4: ServiceClusterConfig = { ipFamilies: ['IPv4'] };
const dual: ServiceClusterConfig = { ipFamilies: ['IPv4', 'IPv6'] };
const v6dual: ServiceClusterConfig = { ipFamilies: ['IPv6', 'IPv4'] };

const manifest = (spec: ServiceSpec, name = 'web'): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'shop' },
  spec,
});
const web = (spec: ServiceSpec = {}): Service => manifest({ selector: { app: 'web' }, ports: [{ port: 80 }], ...spec });

const value = (r: ServiceRequestResult): Service => {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};
const message = (r: ServiceRequestResult): string => (r.ok ? '' : r.error.message);

describe('validateServiceCreate', () => {
  it('accepts a manifest that sets only clusterIP, and fills clusterIPs and the family fields', () => {
    const raw = web({ clusterIP: '10.96.0.20' });
    // The trap: validating defaulted output alone reports what the registry would have filled.
    expect(validateObject(defaultService(raw)).map(renderFieldError)).toEqual(['spec.clusterIPs: Required value']);
    const service = value(validateServiceCreate(raw, v4));
    expect(service.spec).toMatchObject({
      clusterIP: '10.96.0.20',
      clusterIPs: ['10.96.0.20'],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    });
    expect(service.status).toEqual({ loadBalancer: {} });
  });

  it('gives a plain Service the primary family and no cluster IP yet (the allocator fills it)', () => {
    expect(value(validateServiceCreate(web(), v6dual)).spec).toMatchObject({ ipFamilies: ['IPv6'], ipFamilyPolicy: 'SingleStack' });
    expect(value(validateServiceCreate(web(), v6dual)).spec?.clusterIPs).toBeUndefined();
  });

  it('gives PreferDualStack both families on a dual-stack cluster, primary first, and one on a single-stack cluster', () => {
    expect(value(validateServiceCreate(web({ ipFamilyPolicy: 'PreferDualStack' }), dual)).spec?.ipFamilies).toEqual(['IPv4', 'IPv6']);
    expect(value(validateServiceCreate(web({ ipFamilyPolicy: 'PreferDualStack' }), v6dual)).spec?.ipFamilies).toEqual(['IPv6', 'IPv4']);
    expect(value(validateServiceCreate(web({ ipFamilyPolicy: 'PreferDualStack' }), v4)).spec?.ipFamilies).toEqual(['IPv4']);
  });

  it('refuses ipFamilies [IPv6] on a single-stack IPv4 cluster', () => {
    const result = validateServiceCreate(web({ ipFamilies: ['IPv6'] }), v4);
    expect(message(result)).toBe('Service "web" is invalid: spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster');
    expect(result.ok ? [] : result.error.causes.map((c) => c.field)).toEqual(['spec.ipFamilies[0]']);
    expect(result.ok ? '' : result.error._tag).toBe('ErrInvalid');
  });

  it('refuses RequireDualStack on a single-stack cluster', () => {
    expect(message(validateServiceCreate(web({ ipFamilyPolicy: 'RequireDualStack' }), v4))).toBe(
      'Service "web" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
    );
  });

  it('refuses a cluster IP of a family the cluster does not serve, naming the IP', () => {
    expect(message(validateServiceCreate(web({ clusterIP: 'fd00::20' }), v4))).toBe(
      'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"fd00::20"}: IPv6 is not configured on this cluster',
    );
  });

  it('makes a selectorless headless Service RequireDualStack with both families, and keeps clusterIPs ["None"]', () => {
    const headless = manifest({ clusterIP: 'None', ports: [{ port: 5432 }] }, 'db');
    expect(value(validateServiceCreate(headless, v4)).spec).toMatchObject({
      clusterIP: 'None',
      clusterIPs: ['None'],
      ipFamilyPolicy: 'RequireDualStack',
      ipFamilies: ['IPv4', 'IPv6'],
    });
    const withSelector = manifest({ clusterIP: 'None', selector: { app: 'db' } }, 'db');
    expect(value(validateServiceCreate(withSelector, dual)).spec).toMatchObject({ ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'] });
  });

  it('refuses a headless NodePort Service in validation, after the family fields were filled', () => {
    expect(message(validateServiceCreate(web({ type: 'NodePort', clusterIP: 'None' }), v4))).toBe(
      `Service "web" is invalid: spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`,
    );
  });

  it('stops at the registry\'s errors: a port error is not reported beside a family error', () => {
    const result = validateServiceCreate(web({ ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 0 }] }), v4);
    expect(result.ok ? [] : result.error.causes.map(renderFieldError)).toEqual([
      'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
    ]);
    expect(message(validateServiceCreate(web({ ports: [{ port: 0 }] }), v4))).toBe(
      'Service "web" is invalid: [spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive]',
    );
  });

  it('leaves an ExternalName Service without IP fields, and refuses one that sets them', () => {
    const external = manifest({ type: 'ExternalName', externalName: 'db.example.com' });
    expect(value(validateServiceCreate(external, v4)).spec).not.toHaveProperty('ipFamilies');
    expect(message(validateServiceCreate(manifest({ type: 'ExternalName', externalName: 'db.example.com', clusterIP: '10.96.0.9' }), v4))).toBe(
      'Service "web" is invalid: spec.clusterIPs: Forbidden: may not be set for ExternalName services',
    );
  });

  it('does not change its input', () => {
    const raw = web({ clusterIP: '10.96.0.20' });
    const copy = structuredClone(raw);
    validateServiceCreate(raw, v4);
    expect(raw).toEqual(copy);
  });
});

describe('validateServiceUpdate', () => {
  /** The stored object: created through the same path, then given its allocated IP and metadata. */
  const stored = (raw: Service, clusterIPs: string[], cluster: ServiceClusterConfig = v4): Service => {
    const created = value(validateServiceCreate(raw, cluster));
    return {
      ...created,
      metadata: { ...created.metadata, uid: 'a3c1', resourceVersion: '41', creationTimestamp: '2025-01-02T03:04:05Z' },
      spec: { ...created.spec, clusterIP: clusterIPs[0] ?? '', clusterIPs },
    };
  };

  it('re-applying the manifest is no change: allocated IPs, uid, resourceVersion and timestamps come from the stored object', () => {
    const old = stored(web(), ['10.96.0.10']);
    const next = value(validateServiceUpdate(web(), old, v4));
    expect(next).toEqual(old);
  });

  it("keeps clusterIP immutable, with upstream's message", () => {
    const old = stored(web(), ['10.96.0.10']);
    const result = validateServiceUpdate(web({ clusterIP: '10.96.0.20' }), old, v4);
    expect(message(result)).toBe('Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.0.20"}: may not change once set');
  });

  it('clears the cluster IPs and family fields on a change to ExternalName when the client left them as stored', () => {
    const old = stored(web(), ['10.96.0.10']);
    // What `kubectl edit` sends: the stored object with the type changed.
    const edited: Service = { ...old, spec: { ...old.spec, type: 'ExternalName', externalName: 'db.example.com' } };
    const next = value(validateServiceUpdate(edited, old, v4));
    for (const field of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) expect(next.spec).not.toHaveProperty(field);
    expect(next.spec).toMatchObject({ type: 'ExternalName', externalName: 'db.example.com' });
  });

  it('refuses a change to ExternalName that also changes the cluster IP (the unchanged family fields still go)', () => {
    const old = stored(web(), ['10.96.0.10']);
    const edited: Service = { ...old, spec: { ...old.spec, type: 'ExternalName', externalName: 'db.example.com', clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.11'] } };
    expect(message(validateServiceUpdate(edited, old, v4))).toBe(
      'Service "web" is invalid: spec.clusterIPs: Forbidden: may not be set for ExternalName services',
    );
  });

  it('fills the family fields on a change from ExternalName, leaving the IP to the allocator', () => {
    const old = stored(manifest({ type: 'ExternalName', externalName: 'db.example.com' }), []);
    const oldExternal: Service = { ...old, spec: { type: 'ExternalName', externalName: 'db.example.com', sessionAffinity: 'None' } };
    const next = value(validateServiceUpdate(web({ type: 'ClusterIP' }), oldExternal, dual));
    expect(next.spec).toMatchObject({ ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' });
    expect(next.spec?.clusterIPs).toBeUndefined();
  });

  it('upgrades a SingleStack Service to dual-stack when asked, and refuses it on a single-stack cluster', () => {
    const old = stored(web(), ['10.96.0.10'], dual);
    const upgraded = value(validateServiceUpdate(web({ ipFamilyPolicy: 'PreferDualStack' }), old, dual));
    expect(upgraded.spec).toMatchObject({ ipFamilyPolicy: 'PreferDualStack', ipFamilies: ['IPv4', 'IPv6'], clusterIPs: ['10.96.0.10'] });
    expect(message(validateServiceUpdate(web({ ipFamilyPolicy: 'RequireDualStack' }), old, v4))).toBe(
      'Service "web" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
    );
  });

  it('downgrades a dual-stack Service that asks for SingleStack with the stored lists', () => {
    const old = stored(web({ ipFamilyPolicy: 'RequireDualStack' }), ['10.96.0.10', 'fd00::10'], dual);
    const next = value(validateServiceUpdate({ ...old, spec: { ...old.spec, ipFamilyPolicy: 'SingleStack' } }, old, dual));
    expect(next.spec).toMatchObject({ clusterIPs: ['10.96.0.10'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' });
  });

  it('reports a changed uid once in the message and, as upstream, in each check that finds it', () => {
    const old = stored(web(), ['10.96.0.10']);
    const result = validateServiceUpdate({ ...web(), metadata: { ...web().metadata, uid: 'b000' } }, old, v4);
    expect(message(result)).toBe('Service "web" is invalid: metadata.uid: Invalid value: "b000": field is immutable');
    expect(result.ok ? [] : result.error.causes.map(renderFieldError)).toEqual([
      'metadata.uid: Invalid value: "b000": field is immutable',
      'metadata.uid: Invalid value: "b000": field is immutable',
    ]);
  });

  it('keeps the stored status', () => {
    const old: Service = { ...stored(web({ type: 'LoadBalancer' }), ['10.96.0.10']), status: { loadBalancer: { ingress: [{ ip: '192.0.2.7', ipMode: 'VIP' }] } } };
    const sent: Service = { ...old, status: { loadBalancer: { ingress: [{ ip: '192.0.2.99', ipMode: 'VIP' }] } } };
    expect(value(validateServiceUpdate(sent, old, v4)).status).toEqual(old.status);
  });
});
