// INV-API-GARBAGE for @kubesvc/reconcilers: whatever a caller passes as the request, the lease
// map or the time of a reconcile, the answer carries a Result (a value, or an error with a _tag
// and a message), never an exception. The reconciler value itself comes from
// newEndpointReconciler and is a programmer error when made otherwise (docs/invariants.md).
import { fc, test } from '@fast-check/vitest';
import { shapeMutantArb } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import { newEndpointReconciler, reconcileEndpoints, removeEndpoints } from './endpoint-reconciler.js';
import { reconcileLease } from './lease.js';
import type { Leases, ReconcileRequest } from './types.js';

const ports = [{ name: 'https', port: 6443, protocol: 'TCP' as const }];
const endpoints = {
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { namespace: 'default', name: 'kubernetes', resourceVersion: '7' },
  subsets: [{ addresses: [{ ip: '10.0.0.2' }], ports }],
};
const slice = {
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { namespace: 'default', name: 'kubernetes', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.0.0.2'], conditions: { ready: true } }],
  ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
};
const request = { serviceName: 'kubernetes', ip: '10.0.0.3', endpointPorts: ports, reconcilePorts: true, observed: { endpoints, endpointSlice: slice } };
const leases = new Map([['10.0.0.2', { ip: '10.0.0.2', expiresAt: 20_000 }]]);
const valid = [request, leases, 1_000];

function isTypedResult(r: unknown): boolean {
  if (typeof r !== 'object' || r === null) return false;
  const { ok, error } = r as { ok?: unknown; error?: { _tag?: unknown; message?: unknown } };
  return ok === true || (ok === false && typeof error?._tag === 'string' && typeof error.message === 'string');
}

type Args = readonly [ReconcileRequest, Leases, number];
const asArgs = (x: unknown): Args => (Array.isArray(x) ? (x as unknown as Args) : ([x, x, x] as unknown as Args));

const entryPoints: readonly (readonly [string, (input: unknown) => unknown])[] = [
  ['reconcileLease', (x) => reconcileLease(...asArgs(x))],
  ...(['master-count', 'lease', 'none'] as const).flatMap((type) => {
    const r = newEndpointReconciler(type, { masterCount: 2 });
    return [
      [`reconcileEndpoints(${type})`, (x: unknown) => reconcileEndpoints(r, ...asArgs(x)).outcome] as const,
      [`removeEndpoints(${type})`, (x: unknown) => removeEndpoints(r, ...asArgs(x)).outcome] as const,
    ];
  }),
];

describe('reconcile input checks', () => {
  it('a request whose observed Endpoints have a non-array subsets is an ErrReconcileInput, not a TypeError', () => {
    const bad = { ...request, observed: { endpoints: { ...endpoints, subsets: 'x' }, endpointSlice: undefined } };
    const r = reconcileEndpoints(newEndpointReconciler('master-count'), bad as never, leases, 1_000);
    expect(r.outcome).toEqual({ ok: false, error: { _tag: 'ErrReconcileInput', message: expect.stringContaining('request.observed.endpoints.subsets') } });
  });

  it('a lease map that is a plain object is refused with the reason', () => {
    const r = reconcileLease(request as never, {} as never, 1_000);
    expect(r).toEqual({ ok: false, error: { _tag: 'ErrReconcileInput', message: 'leases: expected a Map of IP to { ip, expiresAt }, got an object' } });
  });

  it('the valid arguments still reconcile', () => {
    expect(reconcileLease(request as never, leases, 1_000).ok).toBe(true);
  });
});

test.prop([fc.constantFrom(...entryPoints).chain(([name, run]) => fc.tuple(fc.constant(name), fc.constant(run), fc.oneof(fc.anything(), shapeMutantArb(valid))))])(
  'INV-API-GARBAGE: every reconcilers entry point answers garbage with a Result, never an exception',
  ([, run, input]) => {
    expect(isTypedResult(run(input))).toBe(true);
  },
);
