// A reconcile given data of the wrong shape (from JavaScript, or JSON read from storage)
// answers ErrReconcileInput naming the field, and writes nothing: no Endpoints write, no lease
// write. api-garbage.prop.test.ts checks that garbage never throws; these check which field
// each message names.
import { describe, expect, it } from 'vitest';
import { newEndpointReconciler, reconcileEndpoints, removeEndpoints } from './endpoint-reconciler.js';
import { reconcileLease } from './lease.js';
import type { ReconcileStep } from './endpoint-reconciler.js';
import type { Leases, ReconcileRequest } from './types.js';

const good: ReconcileRequest = {
  serviceName: 'kubernetes',
  ip: '10.0.0.1',
  endpointPorts: [{ name: 'https', port: 6443, protocol: 'TCP' }],
  reconcilePorts: true,
  observed: { endpoints: undefined, endpointSlice: undefined },
};
const leases: Leases = new Map([['10.0.0.1', { ip: '10.0.0.1', expiresAt: 10_000 }]]);

/** The message of the ErrReconcileInput a lease reconcile answers, checking that nothing is written. */
function problem(step: ReconcileStep): string {
  expect(step.leaseWrites).toEqual([]);
  if (step.outcome.ok) throw new Error('expected ErrReconcileInput, got a success');
  expect(step.outcome.error._tag).toBe('ErrReconcileInput');
  return step.outcome.error.message;
}
const reconcile = (req: unknown, l: unknown = leases, now: unknown = 0): string =>
  problem(reconcileEndpoints(newEndpointReconciler('lease'), req as ReconcileRequest, l as Leases, now as number));
const remove = (req: unknown, l: unknown = leases, now: unknown = 0): string =>
  problem(removeEndpoints(newEndpointReconciler('lease'), req as ReconcileRequest, l as Leases, now as number));

describe('ErrReconcileInput names the wrong field', () => {
  it('the request itself', () => {
    expect(reconcile(null)).toMatch(/^request: expected an object, got /);
  });

  it('serviceName and ip must be strings', () => {
    // The message shows the value it was given.
    expect(reconcile({ ...good, serviceName: 7 })).toBe('request.serviceName: expected a string, got number 7');
    expect(reconcile({ ...good, ip: 10 })).toBe('request.ip: expected a string, got number 10');
  });

  it('endpointPorts must be an array of EndpointPorts; the bad one is named by index', () => {
    expect(reconcile({ ...good, endpointPorts: 'https' })).toMatch(/^request\.endpointPorts: expected an array, got /);
    expect(reconcile({ ...good, endpointPorts: [good.endpointPorts[0], { port: 'x' }] })).toMatch(/^request\.endpointPorts\[1\]/);
  });

  it('reconcilePorts must be a boolean for a reconcile, and is not asked for a removal', () => {
    expect(reconcile({ ...good, reconcilePorts: 'yes' })).toBe('request.reconcilePorts: expected a boolean, got the string "yes"');
    const lease = reconcileLease({ ...good, reconcilePorts: 'yes' } as unknown as ReconcileRequest, leases, 0);
    expect(lease.ok ? '' : lease.error.message).toMatch(/^request\.reconcilePorts: expected a boolean/);
    const { reconcilePorts: _ignored, ...withoutFlag } = good;
    const two: Leases = new Map([...leases, ['10.0.0.2', { ip: '10.0.0.2', expiresAt: 10_000 }]]);
    expect(removeEndpoints(newEndpointReconciler('lease'), withoutFlag, two, 0).outcome.ok).toBe(true);
  });

  it('observed must hold an Endpoints and an EndpointSlice, each checked against its schema', () => {
    expect(reconcile({ ...good, observed: null })).toMatch(/^request\.observed: expected \{ endpoints, endpointSlice \}, got /);
    expect(reconcile({ ...good, observed: { endpoints: { kind: 'Endpoints' }, endpointSlice: undefined } })).toMatch(/^request\.observed\.endpoints/);
    expect(reconcile({ ...good, observed: { endpoints: undefined, endpointSlice: { kind: 'EndpointSlice' } } })).toMatch(/^request\.observed\.endpointSlice/);
    // A valid Endpoints does not end the check: the slice beside it is checked too.
    const endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'kubernetes', namespace: 'default' } };
    expect(reconcile({ ...good, observed: { endpoints, endpointSlice: { kind: 'EndpointSlice' } } })).toMatch(/^request\.observed\.endpointSlice/);
  });

  it('leases must be a Map of string to { ip, expiresAt }', () => {
    expect(reconcile(good, {})).toMatch(/^leases: expected a Map of IP to \{ ip, expiresAt \}, got /);
    expect(reconcile(good, new Map([[1, { ip: '10.0.0.1', expiresAt: 1 }]]))).toMatch(/^leases: expected string keys, got /);
    for (const lease of [null, { ip: 1, expiresAt: 1 }, { ip: '10.0.0.2', expiresAt: '1' }, { expiresAt: 1 }]) {
      expect(reconcile(good, new Map([['10.0.0.2', lease]]))).toMatch(/^leases\["10\.0\.0\.2"\]: expected \{ ip: string, expiresAt: number \}, got /);
    }
  });

  it('now must be a finite number', () => {
    for (const now of ['0', Number.NaN, Number.POSITIVE_INFINITY, null]) {
      expect(reconcile(good, leases, now)).toMatch(/^now: expected a finite number of milliseconds, got /);
    }
  });

  it('a removal checks the same fields', () => {
    expect(remove({ ...good, ip: 1 })).toMatch(/^request\.ip: /);
    expect(remove(good, new Map([['10.0.0.1', null]]))).toMatch(/^leases\["10\.0\.0\.1"\]/);
    const mc = removeEndpoints(newEndpointReconciler('master-count'), { ...good, ip: 1 } as unknown as ReconcileRequest, leases, 0);
    expect(mc.leaseWrites).toEqual([]);
    expect(mc.outcome.ok).toBe(false);
  });
});

describe('a well-formed request passes', () => {
  it('for every reconciler, and master-count removal writes no lease', () => {
    expect(reconcileEndpoints(newEndpointReconciler('lease'), good, leases, 0).outcome.ok).toBe(true);
    const step = removeEndpoints(newEndpointReconciler('master-count'), good, leases, 0);
    expect(step).toEqual({ outcome: { ok: true, value: { action: 'none', writes: [] } }, leases, leaseWrites: [] });
  });
});
