// Shape checks for the entry points that take data from outside the package (a reconcile
// request built from storage, the lease map, the clock): a caller in JavaScript or data read
// from JSON can pass anything. Each check runs once, at the edge, so that a wrong shape is an
// ErrReconcileInput value with a clear message instead of a TypeError from deep inside.
// Endpoints, EndpointSlices and EndpointPorts are checked with api-types' zod schemas.

import { EndpointPortSchema, EndpointSliceSchema, EndpointsSchema, isRecord, describeValue, schemaProblem } from '@kubesvc/api-types';
import type { ErrReconcileInput } from './types.js';

function requestProblem(req: unknown, withReconcilePorts: boolean): string | undefined {
  if (!isRecord(req)) return `request: expected an object, got ${describeValue(req)}`;
  if (typeof req['serviceName'] !== 'string') return `request.serviceName: expected a string, got ${describeValue(req['serviceName'])}`;
  if (typeof req['ip'] !== 'string') return `request.ip: expected a string, got ${describeValue(req['ip'])}`;
  const ports = req['endpointPorts'];
  if (!Array.isArray(ports)) return `request.endpointPorts: expected an array, got ${describeValue(ports)}`;
  for (const [i, port] of (ports as unknown[]).entries()) {
    const problem = schemaProblem(EndpointPortSchema, port, `request.endpointPorts[${i}]`);
    if (problem !== undefined) return problem;
  }
  if (withReconcilePorts && typeof req['reconcilePorts'] !== 'boolean') {
    return `request.reconcilePorts: expected a boolean, got ${describeValue(req['reconcilePorts'])}`;
  }
  const observed = req['observed'];
  if (!isRecord(observed)) return `request.observed: expected { endpoints, endpointSlice }, got ${describeValue(observed)}`;
  if (observed['endpoints'] !== undefined) {
    const problem = schemaProblem(EndpointsSchema, observed['endpoints'], 'request.observed.endpoints');
    if (problem !== undefined) return problem;
  }
  if (observed['endpointSlice'] !== undefined) {
    const problem = schemaProblem(EndpointSliceSchema, observed['endpointSlice'], 'request.observed.endpointSlice');
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function leasesProblem(leases: unknown): string | undefined {
  if (!(leases instanceof Map)) return `leases: expected a Map of IP to { ip, expiresAt }, got ${describeValue(leases)}`;
  for (const [key, lease] of leases as Map<unknown, unknown>) {
    if (typeof key !== 'string') return `leases: expected string keys, got ${describeValue(key)}`;
    if (!isRecord(lease) || typeof lease['ip'] !== 'string' || typeof lease['expiresAt'] !== 'number') {
      return `leases[${JSON.stringify(key)}]: expected { ip: string, expiresAt: number }, got ${describeValue(lease)}`;
    }
  }
  return undefined;
}

/** Why the arguments of a reconcile are not a request, a lease map and a time, or undefined. */
export function reconcileInputProblem(req: unknown, leases: unknown, now: unknown, withReconcilePorts: boolean): ErrReconcileInput | undefined {
  const problem =
    requestProblem(req, withReconcilePorts) ??
    leasesProblem(leases) ??
    (typeof now === 'number' && Number.isFinite(now) ? undefined : `now: expected a finite number of milliseconds, got ${describeValue(now)}`);
  return problem === undefined ? undefined : { _tag: 'ErrReconcileInput', message: problem };
}
