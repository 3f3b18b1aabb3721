// Shape checks for the entry points that take data from outside the package: Endpoints and
// Services from a watch or a JSON dump, the service port name and client address of a pick.
// A caller in JavaScript can pass anything; each check runs once, at the edge, so that a wrong
// shape is an ErrUserspaceInput value naming the part instead of a TypeError from deep inside.
// Kubernetes objects are checked with api-types' zod schemas.

import { EndpointsSchema, ServiceSchema, isRecord, describeValue, type ShapeSchema } from '@kubesvc/api-types';
import type { ErrUserspaceInput } from './errors.js';

function inputError(message: string): ErrUserspaceInput {
  return { _tag: 'ErrUserspaceInput', message };
}

function schemaError(schema: ShapeSchema, value: unknown, where: string): ErrUserspaceInput | undefined {
  const parsed = schema.safeParse(value);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const path = issue === undefined || issue.path.length === 0 ? '' : `.${issue.path.map(String).join('.')}`;
  return inputError(`${where}${path}: ${issue?.message ?? 'wrong shape'}`);
}

/** Why `value` is not an Endpoints object, or undefined. */
export function endpointsError(value: unknown, where = 'endpoints'): ErrUserspaceInput | undefined {
  return schemaError(EndpointsSchema, value, where);
}

/** Why `value` is not a Service, or undefined. */
export function serviceError(value: unknown): ErrUserspaceInput | undefined {
  return schemaError(ServiceSchema, value, 'service');
}

/** Why `proxy` is not `{ listenIP: string, hostIP: string }`, or undefined. */
export function proxyAddressError(proxy: unknown): ErrUserspaceInput | undefined {
  if (!isRecord(proxy)) return inputError(`proxy: expected { listenIP, hostIP }, got ${describeValue(proxy)}`);
  for (const field of ['listenIP', 'hostIP'] as const) {
    if (typeof proxy[field] !== 'string') return inputError(`proxy.${field}: expected a string, got ${describeValue(proxy[field])}`);
  }
  return undefined;
}

/** Why nextEndpoint's arguments (after the balancer) have the wrong shape, or undefined. */
export function pickError(spn: unknown, clientAddr: unknown, resetAffinity: unknown, now: unknown): ErrUserspaceInput | undefined {
  if (!isRecord(spn)) return inputError(`service port name: expected { namespace, name, port }, got ${describeValue(spn)}`);
  for (const field of ['namespace', 'name', 'port'] as const) {
    if (typeof spn[field] !== 'string') return inputError(`service port name.${field}: expected a string, got ${describeValue(spn[field])}`);
  }
  if (typeof clientAddr !== 'string') return inputError(`clientAddr: expected "host:port", got ${describeValue(clientAddr)}`);
  if (typeof resetAffinity !== 'boolean') return inputError(`resetAffinity: expected a boolean, got ${describeValue(resetAffinity)}`);
  if (typeof now !== 'number' || !Number.isFinite(now)) return inputError(`now: expected a finite number of milliseconds, got ${describeValue(now)}`);
  return undefined;
}
