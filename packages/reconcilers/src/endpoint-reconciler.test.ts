// The reconciler value: types, stopReconciling, none, and how a caller treats AlreadyExists.
// upstream: pkg/controlplane/reconcilers/{reconcilers,none,instancecount,lease,endpointsadapter}.go
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ENDPOINT_RECONCILER_INTERVAL_MS,
  DEFAULT_ENDPOINT_RECONCILER_TTL_MS,
  LEASE_STORAGE_PREFIX,
  SKIP_MIRROR_LABEL,
  alreadyExistsIgnored,
  newEndpointReconciler,
  reconcileEndpoints,
  removeEndpoints,
  stopReconciling,
} from './index.js';
import type { EndpointWrite, ReconcileRequest, ReconcilerType } from './index.js';

const req: ReconcileRequest = {
  serviceName: 'kubernetes',
  ip: '10.0.0.1',
  endpointPorts: [{ name: 'https', port: 6443, protocol: 'TCP' }],
  reconcilePorts: true,
  observed: { endpoints: undefined, endpointSlice: undefined },
};

describe('the reconciler value', () => {
  it('upstream constants', () => {
    expect([DEFAULT_ENDPOINT_RECONCILER_INTERVAL_MS, DEFAULT_ENDPOINT_RECONCILER_TTL_MS, LEASE_STORAGE_PREFIX, SKIP_MIRROR_LABEL]).toEqual([
      10_000,
      15_000,
      '/masterleases/',
      'endpointslice.kubernetes.io/skip-mirror',
    ]);
  });

  it('defaults: --apiserver-count 1, lease TTL 15 s; a non-positive count is refused', () => {
    expect(newEndpointReconciler('lease')).toEqual({ type: 'lease', stopped: false, masterCount: 1, leaseTtlMs: 15_000 });
    expect(() => newEndpointReconciler('master-count', { masterCount: 0 })).toThrow(new RangeError('masterCount must be a positive integer, got 0'));
    expect(() => newEndpointReconciler('master-count', { masterCount: 1.5 })).toThrow(RangeError);
    expect(() => newEndpointReconciler('lease', { leaseTtlMs: 0 })).toThrow(new RangeError('leaseTtlMs must be positive, got 0'));
  });

  it('stopReconciling returns a new value and leaves the old one as it was', () => {
    const r = newEndpointReconciler('master-count', { masterCount: 2 });
    const s = stopReconciling(r);
    expect(s).toEqual({ ...r, stopped: true });
    expect(r.stopped).toBe(false);
  });

  it.each<ReconcilerType>(['master-count', 'lease', 'none'])('%s: after stopReconciling a reconcile does nothing, not even refresh the lease', (type) => {
    const leases = new Map([['10.0.0.9', { ip: '10.0.0.9', expiresAt: 100 }]]);
    const step = reconcileEndpoints(stopReconciling(newEndpointReconciler(type)), req, leases, 0);
    expect(step).toEqual({ outcome: { ok: true, value: { action: 'none', writes: [] } }, leases, leaseWrites: [] });
  });

  it('none does nothing, ever', () => {
    const r = newEndpointReconciler('none');
    const leases = new Map([['10.0.0.1', { ip: '10.0.0.1', expiresAt: 100 }]]);
    expect(reconcileEndpoints(r, req, leases, 0)).toEqual({ outcome: { ok: true, value: { action: 'none', writes: [] } }, leases, leaseWrites: [] });
    expect(removeEndpoints(r, req, leases, 0)).toEqual({ outcome: { ok: true, value: { action: 'none', writes: [] } }, leases, leaseWrites: [] });
  });

  it('master-count and lease create the Endpoints and then the slice when both are missing', () => {
    for (const type of ['master-count', 'lease'] as const) {
      const step = reconcileEndpoints(newEndpointReconciler(type), req, new Map(), 0);
      if (!step.outcome.ok) throw new Error(step.outcome.error.message);
      expect(step.outcome.value.action).toBe('create');
      expect(step.outcome.value.writes.map((w) => w.kind)).toEqual(['create-endpoints', 'create-endpointslice']);
    }
  });
});

describe('alreadyExistsIgnored', () => {
  const e = { apiVersion: 'v1' as const, kind: 'Endpoints' as const, metadata: { name: 'kubernetes' } };
  const s = { apiVersion: 'discovery.k8s.io/v1' as const, kind: 'EndpointSlice' as const, metadata: { name: 'kubernetes' }, addressType: 'IPv4' as const };
  const created: EndpointWrite[] = [
    { kind: 'create-endpoints', endpoints: e },
    { kind: 'create-endpointslice', endpointSlice: s },
  ];
  const recreated: EndpointWrite[] = [
    { kind: 'delete-endpointslice', namespace: 'default', name: 'kubernetes', resourceVersion: undefined },
    { kind: 'create-endpointslice', endpointSlice: s },
  ];

  it('lease ignores AlreadyExists on creating the Endpoints; master-count does not', () => {
    expect(alreadyExistsIgnored('lease', created, 0)).toBe(true);
    expect(alreadyExistsIgnored('master-count', created, 0)).toBe(false);
  });

  it('creating a missing slice ignores it; re-creating after a delete does not', () => {
    expect(alreadyExistsIgnored('master-count', created, 1)).toBe(true);
    expect(alreadyExistsIgnored('master-count', recreated, 1)).toBe(false);
    expect(alreadyExistsIgnored('lease', recreated, 0)).toBe(false);
    expect(alreadyExistsIgnored('lease', created, 5)).toBe(false);
    // The no-change path ensures only the slice: its create is the first write.
    expect(alreadyExistsIgnored('lease', created.slice(1), 0)).toBe(true);
    expect(alreadyExistsIgnored('master-count', created.slice(1), 0)).toBe(true);
  });
});
