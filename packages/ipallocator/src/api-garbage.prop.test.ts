// INV-API-GARBAGE for @kubesvc/ipallocator: whatever a caller passes to an entry point that
// takes outside data, the answer is a Result (a value, or an error with a _tag and a message),
// never an exception. Operations on an allocator value take the package's own values and are
// programmer errors when given anything else (docs/invariants.md lists them).
import { fc, test } from '@fast-check/vitest';
import { mustParseCIDR } from '@kubesvc/testkit';
import { shapeMutantArb } from '@kubesvc/testkit';
import { expect } from 'vitest';
import { newIPAllocators } from './dual-stack.js';
import { ipAllocatorFromSnapshot, newIPAllocator, restoreIPAllocator, snapshotIPAllocator } from './ip-allocator.js';
import { repairClusterIPs } from './repair.js';
import { serviceIPRange } from './service-ip-range.js';

const v4 = mustParseCIDR('10.96.0.0/24');
const v6 = mustParseCIDR('fd00::/120');
const allocator = newIPAllocator(v4);
const snapshot = snapshotIPAllocator(allocator);
const service = { metadata: { namespace: 'default', name: 'web' }, spec: { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'] } };

function expectTypedResult(result: unknown): void {
  expect(result).toSatisfy(
    (r: unknown) =>
      typeof r === 'object' &&
      r !== null &&
      ((r as { ok?: unknown }).ok === true ||
        ((r as { ok?: unknown }).ok === false &&
          typeof (r as { error?: { _tag?: unknown } }).error?._tag === 'string' &&
          typeof (r as { error?: { message?: unknown } }).error?.message === 'string')),
  );
}

const entryPoints: readonly (readonly [string, (input: unknown) => unknown, unknown])[] = [
  ['newIPAllocators', (x) => newIPAllocators(x as never), [v4, v6]],
  ['serviceIPRange', (x) => serviceIPRange(x as never), v4],
  ['ipAllocatorFromSnapshot', (x) => ipAllocatorFromSnapshot(x as never), snapshot],
  ['restoreIPAllocator', (x) => restoreIPAllocator(allocator, x as never), snapshot],
  ['repairClusterIPs', (x) => repairClusterIPs(x as never), { networks: [v4], snapshots: [snapshot], services: [service] }],
];

test.prop([fc.constantFrom(...entryPoints).chain(([name, run, valid]) => fc.tuple(fc.constant(name), fc.constant(run), fc.oneof(fc.anything(), shapeMutantArb(valid))))])(
  'INV-API-GARBAGE: every ipallocator entry point answers garbage with a Result, never an exception',
  ([, run, input]) => {
    expectTypedResult(run(input));
  },
);
