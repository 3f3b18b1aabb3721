import { describe, expect, it } from 'vitest';
import { defaultService } from './defaults.js';
import type { Service, ServiceSpec } from './objects/service.js';
import { defaultServiceIPFamilies, initServiceIPFamilies } from './service-ip-families.js';
import { renderFieldError } from './validation/field-errors.js';

const svc = (spec: ServiceSpec): Service => defaultService({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec });
const ok = (r: ReturnType<typeof defaultServiceIPFamilies>): ServiceSpec => {
  if (!r.ok) throw new Error(r.error.message);
  return r.value.spec ?? {};
};
const errs = (r: ReturnType<typeof defaultServiceIPFamilies>): string[] => (r.ok ? [] : r.error.causes.map(renderFieldError));

describe('defaultServiceIPFamilies (upstream alloc.go initIPFamilyFields, on create)', () => {
  it('makes a plain Service SingleStack in the primary family', () => {
    expect(ok(defaultServiceIPFamilies(svc({ selector: { app: 'web' }, ports: [{ port: 80 }] }), ['IPv4']))).toMatchObject({ ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'] });
    expect(ok(defaultServiceIPFamilies(svc({ ports: [{ port: 80 }] }), ['IPv6', 'IPv4'])).ipFamilies).toEqual(['IPv6']);
  });

  it('copies clusterIP into clusterIPs and takes the family from it', () => {
    expect(ok(defaultServiceIPFamilies(svc({ clusterIP: 'fd00::a', ports: [{ port: 80 }] }), ['IPv4', 'IPv6']))).toMatchObject({ clusterIPs: ['fd00::a'], ipFamilies: ['IPv6'], ipFamilyPolicy: 'SingleStack' });
  });

  it('gives PreferDualStack both families on a dual-stack cluster and one on a single-stack cluster', () => {
    const prefer = svc({ ipFamilyPolicy: 'PreferDualStack', ports: [{ port: 80 }] });
    expect(ok(defaultServiceIPFamilies(prefer, ['IPv4', 'IPv6'])).ipFamilies).toEqual(['IPv4', 'IPv6']);
    expect(ok(defaultServiceIPFamilies(prefer, ['IPv4'])).ipFamilies).toEqual(['IPv4']);
  });

  it('makes a selectorless headless Service RequireDualStack with both families, even on a single-stack cluster', () => {
    expect(ok(defaultServiceIPFamilies(svc({ clusterIP: 'None' }), ['IPv4']))).toMatchObject({ ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'], clusterIPs: ['None'] });
    expect(ok(defaultServiceIPFamilies(svc({ clusterIP: 'None', selector: { app: 'db' } }), ['IPv4']))).toMatchObject({ ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'] });
  });

  it("refuses what the cluster cannot serve, in upstream's words", () => {
    expect(errs(defaultServiceIPFamilies(svc({ ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] }), ['IPv4']))).toEqual([
      'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
    ]);
    expect(errs(defaultServiceIPFamilies(svc({ clusterIP: 'fd00::a', ports: [{ port: 80 }] }), ['IPv4']))).toEqual([
      'spec.clusterIPs[0]: Invalid value: []string{"fd00::a"}: IPv6 is not configured on this cluster',
    ]);
    expect(errs(defaultServiceIPFamilies(svc({ ipFamilies: ['IPv4', 'IPv6'], ports: [{ port: 80 }] }), ['IPv4', 'IPv6']))).toEqual([
      `spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified`,
    ]);
  });

  it('passes clusterIP errors through before anything else, and leaves ExternalName alone', () => {
    expect(errs(defaultServiceIPFamilies(svc({ clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.2'], ports: [{ port: 80 }] }), ['IPv4']))).toEqual([
      'spec.clusterIPs: Invalid value: []string{"10.0.0.2"}: first value must match `clusterIP`',
    ]);
    const external = svc({ type: 'ExternalName', externalName: 'db.example.com' });
    expect(defaultServiceIPFamilies(external, ['IPv4'])).toEqual({ ok: true, value: external });
  });
});

describe('initServiceIPFamilies on update (upstream alloc.go initIPFamilyFields with a stored Service)', () => {
  const dual: ServiceSpec = { selector: { app: 'web' }, ports: [{ port: 80 }], clusterIP: '10.0.0.10', clusterIPs: ['10.0.0.10', 'fd00::10'], ipFamilies: ['IPv4', 'IPv6'] };
  const stored = (spec: ServiceSpec): Service => svc(spec);

  it('leaves an unchanged PreferDualStack Service alone when the cluster is single-stack now', () => {
    const old = stored({ ...dual, ipFamilyPolicy: 'PreferDualStack' });
    const next = svc({ ...dual, ipFamilyPolicy: 'PreferDualStack' });
    expect(initServiceIPFamilies(next, ['IPv4'], old)).toEqual({ ok: true, value: next });
    // Without a stored object the same Service is checked in full, and refused.
    expect(errs(initServiceIPFamilies(next, ['IPv4']))).toEqual(['spec.ipFamilies[1]: Invalid value: "IPv6": not configured on this cluster']);
  });

  it('takes the stored policy when the client sends none', () => {
    const old = stored({ ...dual, ipFamilyPolicy: 'RequireDualStack' });
    expect(ok(initServiceIPFamilies(svc(dual), ['IPv4', 'IPv6'], old)).ipFamilyPolicy).toBe('RequireDualStack');
  });

  it('downgrades to the primary cluster IP and family when SingleStack is asked with the lists unchanged', () => {
    const old = stored({ ...dual, ipFamilyPolicy: 'RequireDualStack' });
    expect(ok(initServiceIPFamilies(svc({ ...dual, ipFamilyPolicy: 'SingleStack' }), ['IPv4', 'IPv6'], old))).toMatchObject({
      clusterIPs: ['10.0.0.10'],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
    });
  });

  it("refuses to drop the secondary IP or family unless the policy is SingleStack, in upstream's words", () => {
    const old = stored({ ...dual, ipFamilyPolicy: 'PreferDualStack' });
    const next = svc({ ...dual, ipFamilyPolicy: 'RequireDualStack', clusterIPs: ['10.0.0.10'], ipFamilies: ['IPv4'] });
    const result = initServiceIPFamilies(next, ['IPv4', 'IPv6'], old);
    expect(errs(result)).toEqual([
      `spec.ipFamilyPolicy: Invalid value: "RequireDualStack": must be 'SingleStack' to release the secondary cluster IP`,
      `spec.ipFamilyPolicy: Invalid value: "RequireDualStack": must be 'SingleStack' to release the secondary IP family`,
    ]);
    expect(result.ok ? '' : result.error.message).toBe(
      `Service "web" is invalid: [spec.ipFamilyPolicy: Invalid value: "RequireDualStack": must be 'SingleStack' to release the secondary cluster IP, ` +
        `spec.ipFamilyPolicy: Invalid value: "RequireDualStack": must be 'SingleStack' to release the secondary IP family]`,
    );
  });
});
