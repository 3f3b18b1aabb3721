// Properties of the default ServiceCIDR controller over random flags, a random stored
// `kubernetes` ServiceCIDR and a random minute of interference (deletes, other CIDRs, other
// conditions, failing writes), run against the fake apiserver of the fixtures
// (INV-BOOT-SVCCIDR-CREATE, INV-BOOT-SVCCIDR-NOREWRITE). Rows in docs/invariants.md.
// upstream (v1.33): pkg/controlplane/controller/defaultservicecidr/default_servicecidr_controller.go
import { fc, test } from '@fast-check/vitest';
import type { ServiceCIDR } from '@kubesvc/api-types';
import { expect } from 'vitest';
import { FakeApiserver, apiError, serviceCIDR, type Verb } from './default-service-cidr.fixtures.js';

const V4 = '10.96.0.0/16';
const V6 = 'fd00:10:96::/112';
const OTHER4 = '10.100.0.0/16';
const FLAGS = [[V4], [V6], [V4, V6], [V6, V4]] as const;
const STORED_CIDRS = [[V4], [V6], [V4, V6], [V6, V4], [OTHER4], [OTHER4, V6], [V6, OTHER4]] as const;
const READY = [undefined, 'True', 'False', 'Unknown'] as const;

const storedArb = fc.option(
  fc.record({ cidrs: fc.constantFrom(...STORED_CIDRS), ready: fc.constantFrom(...READY), deleting: fc.boolean() }),
  { nil: undefined },
);

type Op =
  | { readonly at: number; readonly op: 'delete' }
  | { readonly at: number; readonly op: 'replace'; readonly cidrs: readonly string[] }
  | { readonly at: number; readonly op: 'condition'; readonly status: string }
  | { readonly at: number; readonly op: 'fail'; readonly verb: Verb }
  | { readonly at: number; readonly op: 'heal' };

const at = fc.integer({ min: 0, max: 60_000 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ at, op: fc.constant('delete' as const) }),
  fc.record({ at, op: fc.constant('replace' as const), cidrs: fc.constantFrom(...STORED_CIDRS) }),
  fc.record({ at, op: fc.constant('condition' as const), status: fc.constantFrom('True', 'False', 'Unknown') }),
  fc.record({ at, op: fc.constant('fail' as const), verb: fc.constantFrom<Verb>('create', 'update', 'apply-status') }),
  fc.record({ at, op: fc.constant('heal' as const) }),
);

function stored(s: NonNullable<typeof storedArb extends fc.Arbitrary<infer T> ? T : never>): ServiceCIDR {
  const metadata: ServiceCIDR['metadata'] = { name: 'kubernetes', ...(s.deleting ? { deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: ['networking.k8s.io/service-cidr-finalizer'] } : {}) };
  const status = s.ready === undefined ? {} : { status: { conditions: [{ type: 'Ready', status: s.ready, reason: 'R', message: 'm', lastTransitionTime: '2025-01-01T00:00:00Z' }] } };
  return serviceCIDR('kubernetes', s.cidrs, { metadata, ...status });
}

function run(flags: readonly string[], initial: ServiceCIDR | undefined, ops: readonly Op[]): FakeApiserver {
  const api = new FakeApiserver(flags, initial === undefined ? [] : [initial]);
  api.start();
  for (const o of [...ops].sort((a, b) => a.at - b.at)) {
    api.advanceTo(o.at);
    switch (o.op) {
      case 'delete':
        api.change((a) => a.objects.delete('kubernetes'));
        break;
      case 'replace':
        api.change((a) => {
          const cur = a.objects.get('kubernetes');
          if (cur !== undefined) a.put({ ...cur, spec: { cidrs: [...o.cidrs] } });
        });
        break;
      case 'condition':
        api.change((a) => {
          const cur = a.objects.get('kubernetes');
          if (cur !== undefined) a.put({ ...cur, status: { conditions: [{ type: 'Ready', status: o.status, reason: 'Other', message: 'set by another', lastTransitionTime: '2025-01-01T00:00:00Z' }] } });
        });
        break;
      case 'fail':
        api.failures.set(o.verb, apiError('InternalError', `${o.verb} failed`));
        break;
      case 'heal':
        api.failures.clear();
        break;
    }
  }
  return api;
}

const same = (a: readonly string[] | undefined, b: readonly string[]): boolean => a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);

test.prop([fc.constantFrom(...FLAGS), storedArb, fc.array(opArb, { maxLength: 8 })])(
  'INV-BOOT-SVCCIDR-CREATE: once writes succeed again, within two intervals the default ServiceCIDR exists; one holding the flags\' CIDRs with no Ready condition set by another becomes Ready=True, and a single-stack one holding the flags\' primary becomes dual-stack',
  (flags, initial, ops) => {
    const api = run(flags, initial === undefined ? undefined : stored(initial), ops);
    api.failures.clear();
    // Two intervals: a sync that upgrades to dual-stack reads the status of the object as it
    // was before (upstream's sync passes the lister's copy to syncStatus), so Ready=True comes
    // with the next sync.
    api.advanceTo(api.now + 20_001);
    const end = api.objects.get('kubernetes');
    expect(end).toBeDefined();
    const cidrs = end?.spec?.cidrs ?? [];
    if (flags.length === 2) expect(same(cidrs, [flags[0] ?? ''])).toBe(false);
    const readyCondition = end?.status?.conditions?.find((c) => c.type === 'Ready');
    if (same(cidrs, flags) && end?.metadata.deletionTimestamp === undefined && (readyCondition === undefined || readyCondition.status === 'True')) {
      expect(readyCondition?.status).toBe('True');
    }
  },
);

test.prop([fc.constantFrom(...FLAGS), storedArb, fc.array(opArb, { maxLength: 8 })])(
  'INV-BOOT-SVCCIDR-NOREWRITE: the controller creates only the flags\' ServiceCIDR, updates one only to add the flags\' second family to a single-stack one holding their primary, sets only Ready=True where no Ready condition is, and reports a mismatch and a Ready that is not True at most once each',
  (flags, initial, ops) => {
    const api = run(flags, initial === undefined ? undefined : stored(initial), ops);
    api.advanceTo(api.now + 30_000);
    for (const { action, before } of api.writes) {
      switch (action.kind) {
        case 'create':
          expect(action.object.metadata.name).toBe('kubernetes');
          expect(action.object.spec?.cidrs).toEqual(flags);
          break;
        case 'update':
          expect(flags.length).toBe(2);
          expect(before?.spec?.cidrs).toEqual([flags[0]]);
          expect(action.object.spec?.cidrs).toEqual(flags);
          expect({ ...action.object, spec: undefined, metadata: { ...action.object.metadata, resourceVersion: undefined } }).toEqual({
            ...before,
            spec: undefined,
            metadata: { ...before?.metadata, resourceVersion: undefined },
          });
          break;
        case 'apply-status':
          expect(action.condition).toMatchObject({ type: 'Ready', status: 'True', message: 'Kubernetes default Service CIDR is ready' });
          // What it was made from: the object as created, or as stored then.
          if (before !== undefined) expect(before.status?.conditions?.some((c) => c.type === 'Ready' && c.status !== 'True') ?? false).toBe(false);
          break;
      }
    }
    expect(api.logs.filter((l) => l.startsWith('inconsistent ServiceCIDR status')).length).toBeLessThanOrEqual(1);
    expect(api.logs.filter((l) => l.includes('condition Ready is not True')).length).toBeLessThanOrEqual(1);
  },
);
