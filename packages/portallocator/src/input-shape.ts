// Shape checks for the entry points that take values from outside the package: a caller in
// JavaScript, or data read from JSON, can pass anything. Each check runs once, at the edge,
// so that a wrong shape is an error value with a clear message instead of a TypeError from
// deep inside (the allocator's hot paths trust their input). The snapshot and Service
// checks both allocators share are api-types' (allocator/input-shape.ts).

import { isRecord } from '@kubesvc/api-types';

/** A PortRange value: integers with base + size - 1 within 0–65535 (an empty range is 0, 0). */
export function isPortRangeValue(value: unknown): boolean {
  if (!isRecord(value)) return false;
  const { base, size } = value;
  return typeof base === 'number' && typeof size === 'number' && Number.isInteger(base) && Number.isInteger(size) && base >= 0 && size >= 0 && base + size <= 65536;
}
