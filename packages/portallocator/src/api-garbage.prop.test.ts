// INV-API-GARBAGE for @kubesvc/portallocator: whatever a caller passes to an entry point that
// takes outside data, the answer is a Result (a value, or an error with a _tag and a message),
// never an exception. Operations on an allocator value take the package's own values and are
// programmer errors when given anything else (docs/invariants.md lists them).
import { fc, test } from '@fast-check/vitest';
import { shapeMutantArb } from '@kubesvc/testkit';
import { expect } from 'vitest';
import { newPortAllocator, portAllocatorFromSnapshot, restorePortAllocator, snapshotPortAllocator } from './port-allocator.js';
import { parsePortRange } from './port-range.js';
import { repairNodePorts } from './repair.js';

const range = { base: 30000, size: 2768 };
const allocator = newPortAllocator(range);
const snapshot = snapshotPortAllocator(allocator);
const service = { metadata: { namespace: 'default', name: 'web' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] } };

function isTypedResult(r: unknown): boolean {
  if (typeof r !== 'object' || r === null) return false;
  const { ok, error } = r as { ok?: unknown; error?: { _tag?: unknown; message?: unknown } };
  return ok === true || (ok === false && typeof error?._tag === 'string' && typeof error.message === 'string');
}

const entryPoints: readonly (readonly [string, (input: unknown) => unknown, unknown])[] = [
  ['parsePortRange', (x) => parsePortRange(x as never), '30000-32767'],
  ['portAllocatorFromSnapshot', (x) => portAllocatorFromSnapshot(x as never), snapshot],
  ['restorePortAllocator', (x) => restorePortAllocator(allocator, x as never), snapshot],
  ['repairNodePorts', (x) => repairNodePorts(x as never), { portRange: range, snapshot, services: [service] }],
];

test.prop([fc.constantFrom(...entryPoints).chain(([name, run, valid]) => fc.tuple(fc.constant(name), fc.constant(run), fc.oneof(fc.anything(), shapeMutantArb(valid))))])(
  'INV-API-GARBAGE: every portallocator entry point answers garbage with a Result, never an exception',
  ([, run, input]) => {
    expect(isTypedResult(run(input))).toBe(true);
  },
);
