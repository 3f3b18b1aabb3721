// Shape checks for the entry points that take values from outside the package: a caller in
// JavaScript, or data read from JSON, can pass anything. Each check runs once, at the edge,
// so that a wrong shape is an error value with a clear message instead of a TypeError from
// deep inside (the allocator's hot paths trust their input). Services are checked with
// api-types' zod schema.

import { ServiceSchema, type CIDR, type IP, isRecord, describeValue } from '@kubesvc/api-types';

/** An IP value as api-types' parseIP returns it. */
export function isIPValue(value: unknown): value is IP {
  if (!isRecord(value)) return false;
  const { family, value: n } = value;
  if (typeof n !== 'bigint' || n < 0n) return false;
  return (family === 4 && n <= 0xffff_ffffn) || (family === 6 && n < 1n << 128n);
}

/** A CIDR value as api-types' parseCIDR returns it. */
export function isCIDRValue(value: unknown): value is CIDR {
  if (!isRecord(value) || !isIPValue(value['network'])) return false;
  const prefix = value['prefix'];
  const bits = value['network'].family === 4 ? 32 : 128;
  return typeof prefix === 'number' && Number.isInteger(prefix) && prefix >= 0 && prefix <= bits;
}

/** Why a snapshot argument is not `{ range: string, data: string | Uint8Array }`, or undefined. */
export function snapshotShapeProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return `expected a snapshot { range, data }, got ${describeValue(value)}`;
  if (typeof value['range'] !== 'string') return `snapshot range: expected a string, got ${describeValue(value['range'])}`;
  const data = value['data'];
  if (typeof data !== 'string' && !(data instanceof Uint8Array)) return `snapshot data: expected base64 text or bytes, got ${describeValue(data)}`;
  return undefined;
}

/** What repair reads of a Service: its metadata and spec (`Pick<Service, 'metadata' | 'spec'>`). */
const SERVICE_PARTS = ServiceSchema.pick({ metadata: true, spec: true });

/** Why a list of Services is not one, or undefined (the schema's first issue, with its index). */
export function servicesShapeProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return `services: expected an array, got ${describeValue(value)}`;
  for (const [i, service] of (value as unknown[]).entries()) {
    const parsed = SERVICE_PARTS.safeParse(service);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return `services[${i}]${issue === undefined || issue.path.length === 0 ? '' : `.${issue.path.join('.')}`}: ${issue?.message ?? 'not a Service'}`;
    }
  }
  return undefined;
}
