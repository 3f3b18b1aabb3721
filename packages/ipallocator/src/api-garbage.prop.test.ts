// INV-API-GARBAGE for @kubesvc/ipallocator: whatever a caller passes to an entry point that
// takes outside data, the answer is a Result (a value, or an error with a _tag and a message),
// never an exception. Operations on an allocator value take the package's own values and are
// programmer errors when given anything else (docs/invariants.md lists them).
import { fc, test } from '@fast-check/vitest';
import { mustParseCIDR } from '@kubesvc/testkit';
import { shapeMutantArb } from '@kubesvc/testkit';
import { expect } from 'vitest';
import { newMetaAllocator } from './cidr-allocator.js';
import { newIPAllocators } from './dual-stack.js';
import { ipAllocatorFromSnapshot, newIPAllocator, restoreIPAllocator, snapshotIPAllocator } from './ip-allocator.js';
import { allocatedIPAddresses, ipAddressNames, managedIPAddressNames } from './ipaddress-allocator.js';
import { repairClusterIPs } from './repair.js';
import { serviceIPRange } from './service-ip-range.js';

const v4 = mustParseCIDR('10.96.0.0/24');
const v6 = mustParseCIDR('fd00::/120');
const allocator = newIPAllocator(v4);
const snapshot = snapshotIPAllocator(allocator);
const serviceCIDR = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name: 'kubernetes', deletionTimestamp: '2025-01-02T00:00:00Z' },
  spec: { cidrs: ['10.96.0.0/24', 'fd00::/120'] },
  status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z', reason: '', message: '' }] },
};
const ipAddress = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'IPAddress',
  metadata: { name: '10.96.0.10', labels: { 'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' } },
  spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'web' } },
};
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
  ['newMetaAllocator (its ServiceCIDRs)', (x) => newMetaAllocator('IPv4', x as never), [serviceCIDR]],
  ['newMetaAllocator (its family)', (x) => newMetaAllocator(x as never, [serviceCIDR] as never), 'IPv6'],
];

/** The readers of an IPAddress list answer with a value. */
const readers: readonly (readonly [string, (input: unknown) => unknown, unknown])[] = [
  ['ipAddressNames', (x) => ipAddressNames(x as never), [ipAddress]],
  ['managedIPAddressNames', (x) => managedIPAddressNames('IPv4', x as never), [ipAddress]],
  ['allocatedIPAddresses', (x) => allocatedIPAddresses('IPv4', x as never), [ipAddress]],
];

test.prop([fc.constantFrom(...entryPoints).chain(([name, run, valid]) => fc.tuple(fc.constant(name), fc.constant(run), fc.oneof(fc.anything(), shapeMutantArb(valid))))])(
  'INV-API-GARBAGE: every ipallocator entry point answers garbage with a Result, never an exception',
  ([, run, input]) => {
    expectTypedResult(run(input));
  },
);

test.prop([fc.constantFrom(...readers).chain(([name, run, valid]) => fc.tuple(fc.constant(name), fc.constant(run), fc.oneof(fc.anything(), shapeMutantArb(valid))))])(
  'INV-API-GARBAGE: the IPAddress list readers answer garbage with a value, never an exception',
  ([, run, input]) => {
    expect(run(input)).toBeDefined();
  },
);
