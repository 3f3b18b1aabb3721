// The Service registry validates spec.trafficDistribution with kube-apiserver's
// PreferSameTrafficDistribution gate (RegistryOptions.preferSameTrafficDistribution), as
// upstream (v1.33) pkg/apis/core/validation/validation.go validateServiceTrafficDistribution
// reads it: PreferClose always; PreferSameZone and PreferSameNode only with the gate on.
import type { Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { memoryRegistry, must, svc } from './registry.fixtures.js';

describe('trafficDistribution and the PreferSameTrafficDistribution gate', () => {
  it('refuses PreferSameNode with the gate off (the default), on create and on update', async () => {
    const { registry } = await memoryRegistry();
    const r = await registry.create<Service>('services', 'default', svc('web', { trafficDistribution: 'PreferSameNode' }));
    expect(r.ok || [r.error.code, r.error.message]).toEqual([422, 'Service "web" is invalid: spec.trafficDistribution: Unsupported value: "PreferSameNode": supported values: "PreferClose"']);
    const made = must(await registry.create<Service>('services', 'default', svc('web', { trafficDistribution: 'PreferClose' })));
    const u = await registry.update<Service>('services', 'default', 'web', { ...made, spec: { ...made.spec, trafficDistribution: 'PreferSameZone' } });
    expect(u.ok || [u.error.code, u.error.message]).toEqual([422, 'Service "web" is invalid: spec.trafficDistribution: Unsupported value: "PreferSameZone": supported values: "PreferClose"']);
  });

  it('takes PreferSameZone and PreferSameNode with the gate on, and lists all three when refusing another', async () => {
    const { registry } = await memoryRegistry({ preferSameTrafficDistribution: true });
    const made = must(await registry.create<Service>('services', 'default', svc('web', { trafficDistribution: 'PreferSameNode' })));
    expect(made.spec?.['trafficDistribution']).toBe('PreferSameNode');
    const u = must(await registry.update<Service>('services', 'default', 'web', { ...made, spec: { ...made.spec, trafficDistribution: 'PreferSameZone' } }));
    expect(u.spec?.['trafficDistribution']).toBe('PreferSameZone');
    const r = await registry.create<Service>('services', 'default', svc('api', { trafficDistribution: 'Random' }));
    expect(r.ok || r.error.message).toBe('Service "api" is invalid: spec.trafficDistribution: Unsupported value: "Random": supported values: "PreferClose", "PreferSameZone", "PreferSameNode"');
  });
});
