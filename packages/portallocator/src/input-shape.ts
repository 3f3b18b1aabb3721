// Shape checks for the entry points that take values from outside the package: a caller in
// JavaScript, or data read from JSON, can pass anything. Each check runs once, at the edge,
// so that a wrong shape is an error value with a clear message instead of a TypeError from
// deep inside (the allocator's hot paths trust their input). Services are checked with
// api-types' zod schema.

import { ServiceSchema, isRecord, describeValue } from '@kubesvc/api-types';

/** A PortRange value: integers with base + size - 1 within 0–65535 (an empty range is 0, 0). */
export function isPortRangeValue(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const { base, size } = value;
  return typeof base === 'number' && typeof size === 'number' && Number.isInteger(base) && Number.isInteger(size) && base >= 0 && size >= 0 && base + size <= 65536;
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
