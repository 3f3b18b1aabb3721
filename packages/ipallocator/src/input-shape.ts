// Shape checks for the entry points that take values from outside the package: a caller in
// JavaScript, or data read from JSON, can pass anything. Each check runs once, at the edge,
// so that a wrong shape is an error value with a clear message instead of a TypeError from
// deep inside (the allocator's hot paths trust their input). The snapshot and Service
// checks both allocators share are api-types' (allocator/input-shape.ts).

import { type CIDR, type IP, isRecord } from '@kubesvc/api-types';

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
