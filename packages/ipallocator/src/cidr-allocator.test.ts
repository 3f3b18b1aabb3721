// Upstream's tests of the MetaAllocator, as vectors (upstream v1.33:
// pkg/registry/core/service/ipallocator/cidrallocator_test.go TestCIDRAllocateMultiple,
// TestCIDRAllocateShadow, TestCIDRAllocateGrow, TestCIDRAllocateShrink,
// TestCIDRAllocateDualWrite, TestCIDRAllocateDualWriteCollision, Test_isNotContained, and the
// Free/Used values of TestCIDRAllocatorClusterIPAllocatedMetrics; from later upstream tests
// whose behaviour v1.33 shares, TestCIDRAllocateIPv6, TestCIDRAllocateDualStack and
// TestCIDRAllocateNextDontStopOnNot). Where a vector comes from cidrallocator.go itself
// (readiness, the dual-write order), the test says so. A ServiceCIDR added or deleted is a new
// list given to newMetaAllocator: the informer's view after the event.
import { formatIP, seededRng, type IP, type ServiceCIDR } from '@kubesvc/api-types';
import { mustParseCIDR, mustParseIP as ip } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import {
  DISABLE_ALLOCATOR_DUAL_WRITE_DEFAULT,
  dryRunAllocatorOf,
  hasServiceIP,
  isNotContained,
  isServiceCIDRReady,
  newMetaAllocator,
  serviceCIDRAllocatorFor,
  serviceIPsFree,
  serviceIPsUsed,
  type MetaAllocator,
} from './cidr-allocator.js';
import { errAllocated, errMismatchedNetwork, errNotInRange } from './errors.js';
import { allocateIP, hasIP, ipAllocatorFree, newIPAllocator } from './ip-allocator.js';
import { IPAddressStore, metaAllocate, metaAllocateNext, metaRelease, type MetaHarness } from './ipaddress-store.fixtures.js';

/** upstream newServiceCIDR: the CIDRs, and a Ready condition that is True. */
function newServiceCIDR(name: string, ...cidrs: string[]): ServiceCIDR {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'ServiceCIDR',
    metadata: { name },
    spec: { cidrs },
    status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z', reason: '', message: '' }] },
  };
}

function meta(family: 'IPv4' | 'IPv6', ...serviceCIDRs: ServiceCIDR[]): MetaAllocator {
  const made = newMetaAllocator(family, serviceCIDRs);
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
}

function harness(m: MetaAllocator, seed = 1): MetaHarness {
  return { meta: m, store: new IPAddressStore(), bitmap: undefined, rng: seededRng(seed) };
}

function free(h: MetaHarness): bigint {
  return serviceIPsFree(h.meta, h.store.list());
}

/** upstream's `for r.Free() > 0 { AllocateNext() }`: how many it took, none twice. */
function fill(h: MetaHarness, found: Set<string>): number {
  let count = 0;
  while (free(h) > 0n) {
    const next = metaAllocateNext(h);
    if ('_tag' in next) throw new Error(`${next.message} after ${count}`);
    expect(found.has(formatIP(next))).toBe(false);
    found.add(formatIP(next));
    count++;
  }
  return count;
}

function isIP(value: IP | { readonly _tag: string }): value is IP {
  return !('_tag' in value);
}

describe('TestCIDRAllocateMultiple', () => {
  it('fills a /28, then a second /28 after one given IP, 28 in all', () => {
    const h = harness(meta('IPv4'));
    expect(free(h)).toBe(0n);
    expect(metaAllocateNext(h)).toMatchObject({ _tag: 'ErrFull' });

    const test = newServiceCIDR('test', '192.168.0.0/28');
    h.meta = meta('IPv4', test);
    const found = new Set<string>();
    let count = fill(h, found);
    expect(count).toBe(14);
    expect(metaAllocateNext(h)).toMatchObject({ _tag: 'ErrFull' });

    h.meta = meta('IPv4', test, newServiceCIDR('test2', '10.0.0.0/28'));
    expect(metaAllocate(h, ip('10.0.0.11'))).toBeUndefined();
    count++;
    count += fill(h, found);
    expect(count).toBe(28);
    expect(metaAllocateNext(h)).toMatchObject({ _tag: 'ErrFull' });
  });
});

describe('TestCIDRAllocateShadow', () => {
  it("a /24's network address is allocatable once a /16 holds it as an ordinary address", () => {
    const test = newServiceCIDR('test', '192.168.1.0/24');
    const h = harness(meta('IPv4', test));
    expect(metaAllocate(h, ip('192.168.1.0'))).toEqual(errMismatchedNetwork);
    expect(serviceIPsUsed(h.meta, h.store.list())).toBe(0);
    h.meta = meta('IPv4', test, newServiceCIDR('test2', '192.168.0.0/16'));
    expect(metaAllocate(h, ip('192.168.1.0'))).toBeUndefined();
    expect(serviceIPsUsed(h.meta, h.store.list())).toBe(1);
  });
});

describe('TestCIDRAllocateGrow', () => {
  it('a /24 over a full /28 adds its other addresses: 254 in all, counted once', () => {
    const test = newServiceCIDR('test', '192.168.0.0/28');
    const h = harness(meta('IPv4', test), 2);
    const found = new Set<string>();
    let count = fill(h, found);
    expect(count).toBe(14);
    expect(metaAllocateNext(h)).toMatchObject({ _tag: 'ErrFull' });
    h.meta = meta('IPv4', test, newServiceCIDR('test2', '192.168.0.0/24'));
    expect(serviceCIDRAllocatorFor(h.meta, ip('192.168.0.253'), true).ok).toBe(true);
    count += fill(h, found);
    expect(count).toBe(254);
    expect(metaAllocateNext(h)).toMatchObject({ _tag: 'ErrFull' });
  });
});

describe('TestCIDRAllocateShrink', () => {
  it('after the /24 is emptied and replaced by a /28, only the /28 is handed out', () => {
    const cidr = newServiceCIDR('test', '192.168.0.0/24');
    const h = harness(meta('IPv4', cidr), 3);
    const found = new Set<string>();
    expect(fill(h, found)).toBe(254);
    expect(metaAllocateNext(h)).toMatchObject({ _tag: 'ErrFull' });
    for (const text of [...found].sort()) expect(metaRelease(h, ip(text))).toBeUndefined();
    expect(serviceIPsUsed(h.meta, h.store.list())).toBe(0);
    // cidr2 is created, then the /24 deleted.
    h.meta = meta('IPv4', newServiceCIDR('cidr2', '192.168.0.0/28'));
    expect(serviceCIDRAllocatorFor(h.meta, ip('192.168.0.253'), true)).toEqual({ ok: false, error: errMismatchedNetwork });
    expect(fill(h, new Set())).toBe(14);
    expect(metaAllocateNext(h)).toMatchObject({ _tag: 'ErrFull' });
  });
});

describe('TestCIDRAllocateIPv6', () => {
  it('an IPv6 /120 hands out 255 addresses (no broadcast address), and gives them all back', () => {
    const h = harness(meta('IPv6', newServiceCIDR('test', 'fd00:1:2:3::/120')), 4);
    expect(free(h)).toBe(255n);
    const found = new Set<string>();
    expect(fill(h, found)).toBe(255);
    expect([...found].every((s) => ip(s).family === 6)).toBe(true);
    expect(metaAllocateNext(h)).toMatchObject({ _tag: 'ErrFull' });
    for (const s of found) expect(metaRelease(h, ip(s))).toBeUndefined();
    expect(serviceIPsUsed(h.meta, h.store.list())).toBe(0);
  });
});

describe('TestCIDRAllocateDualStack', () => {
  it("an IPv6 MetaAllocator takes only the IPv6 range of a dual-stack ServiceCIDR", () => {
    const h = harness(meta('IPv6', newServiceCIDR('test', '192.168.0.0/24', 'fd00:1:2:3::/120')), 5);
    expect(serviceCIDRAllocatorFor(h.meta, ip('192.168.0.1'), false)).toEqual({ ok: false, error: errMismatchedNetwork });
    const next = metaAllocateNext(h);
    expect(isIP(next) && formatIP(next).startsWith('fd00:1:2:3::')).toBe(true);
  });
});

describe('TestCIDRAllocateNextDontStopOnNot', () => {
  it('automatic allocation skips a ServiceCIDR that is not ready', () => {
    const notReady = newServiceCIDR('test1', '192.168.0.0/24');
    notReady.status = { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: '2025-01-01T00:00:00Z', reason: '', message: '' }] };
    const h = harness(meta('IPv4', notReady, newServiceCIDR('test2', '192.168.1.0/24')), 6);
    const second = mustParseCIDR('192.168.1.0/24');
    for (let i = 0; i < 200; i++) {
      const next = metaAllocateNext(h);
      if (!isIP(next)) throw new Error(next.message);
      expect(next.value >> 8n).toBe(second.network.value >> 8n);
    }
  });
});

describe('readiness (cidrallocator.go syncAllocators, isReady)', () => {
  const ready = (name: string, status?: string, deleting?: boolean): ServiceCIDR => {
    const sc = newServiceCIDR(name, '10.0.0.0/24');
    if (status === undefined) delete sc.status;
    else sc.status = { conditions: [{ type: 'Ready', status, lastTransitionTime: '2025-01-01T00:00:00Z', reason: '', message: '' }] };
    if (deleting === true) sc.metadata.deletionTimestamp = '2025-01-02T00:00:00Z';
    return sc;
  };

  it('a ServiceCIDR with no Ready condition counts as ready ("kcm is not running")', () => {
    expect(isServiceCIDRReady(ready('a'))).toBe(true);
    expect(isServiceCIDRReady(ready('a', 'True'))).toBe(true);
    expect(isServiceCIDRReady(ready('a', 'False'))).toBe(false);
    expect(isServiceCIDRReady(ready('a', 'Unknown'))).toBe(false);
  });

  it('a ServiceCIDR being deleted or not Ready gives no allocations, but releases still find it', () => {
    for (const sc of [ready('a', 'True', true), ready('a', 'False')]) {
      const h = harness(meta('IPv4', sc));
      expect(h.meta.allocators).toHaveLength(1);
      expect(h.meta.allocators[0]?.ready).toBe(false);
      expect(metaAllocateNext(h)).toMatchObject({ _tag: 'ErrFull' });
      expect(metaAllocate(h, ip('10.0.0.5'))).toEqual(errMismatchedNetwork);
      expect(hasServiceIP(h.meta, h.store.view(), ip('10.0.0.5'))).toBe(false);
      expect(metaRelease(h, ip('10.0.0.5'))).toBeUndefined();
    }
  });

  it('a CIDR named by several ServiceCIDRs is ready when any of them is, and not when none is', () => {
    const m = meta('IPv4', ready('old', 'True', true), ready('new', 'True'));
    expect(m.allocators).toEqual([expect.objectContaining({ cidr: '10.0.0.0/24', serviceCIDRs: ['old', 'new'], ready: true })]);
    // Upstream's event-by-event sync would keep this shared allocator ready (docs/deviations.md).
    const none = meta('IPv4', ready('old', 'True', true), ready('new', 'False'));
    expect(none.allocators).toEqual([expect.objectContaining({ serviceCIDRs: ['old', 'new'], ready: false })]);
  });

  it('an IPv6 range wider than /64 gets no allocator, and says why', () => {
    const m = meta('IPv6', newServiceCIDR('wide', '2001:db8::/48'));
    expect(m.allocators).toEqual([]);
    expect(m.unusable).toEqual([
      { serviceCIDR: 'wide', cidr: '2001:db8::/48', message: 'shortest allowed prefix length for service CIDR is 64, got 48' },
    ]);
  });
});

describe('Test_isNotContained', () => {
  const list = [mustParseCIDR('10.0.0.0/24'), mustParseCIDR('10.0.0.0/27')];
  it.each([
    ['ipv4 not contained nor overlapping', '192.168.0.0/24', true],
    ['ipv4 not contained but contains', '10.0.0.0/8', true],
    ['ipv4 not contained but matches existing one', '10.0.0.0/24', true],
    ['ipv4 contained but matches existing one', '10.0.0.0/27', false],
  ] as const)('%s', (_name, prefix, want) => {
    expect(isNotContained(mustParseCIDR(prefix), list)).toBe(want);
  });
});

describe('TestCIDRAllocatorClusterIPAllocatedMetrics: Free and Used over two ranges', () => {
  it('a /30 and a /29 give 2 + 6 addresses, and each refuses a second allocation', () => {
    const first = newServiceCIDR('test1', '192.168.1.0/30');
    const h = harness(meta('IPv4', first), 7);
    const found = new Set<string>();
    expect(fill(h, found)).toBe(2);
    h.meta = meta('IPv4', first, newServiceCIDR('test2', '10.0.0.0/29'));
    expect(free(h)).toBe(6n);
    expect(fill(h, found)).toBe(6);
    expect(metaAllocateNext(h)).toMatchObject({ _tag: 'ErrFull' });
    for (const s of found) expect(metaAllocate(h, ip(s))).toEqual(errAllocated);
  });
});

describe('dual write (DisableAllocatorDualWrite off)', () => {
  it('is the v1.33 default: the gate is Beta and off', () => {
    expect(DISABLE_ALLOCATOR_DUAL_WRITE_DEFAULT).toBe(false);
  });

  it('TestCIDRAllocateDualWrite: the bitmap mirrors every allocation', () => {
    const h = harness(meta('IPv4', newServiceCIDR('test', '192.168.0.0/28')), 8);
    h.bitmap = newIPAllocator(mustParseCIDR('192.168.0.0/28'));
    let count = 0;
    while (free(h) > 0n) {
      expect(isIP(metaAllocateNext(h))).toBe(true);
      expect(free(h)).toBe(BigInt(ipAllocatorFree(h.bitmap)));
      count++;
    }
    expect(count).toBe(14);
    expect(metaAllocateNext(h)).toMatchObject({ _tag: 'ErrFull' });
  });

  it('TestCIDRAllocateDualWriteCollision: an IP the bitmap holds cannot be allocated', () => {
    const h = harness(meta('IPv4', newServiceCIDR('test', '192.168.0.0/28')));
    const taken = allocateIP(newIPAllocator(mustParseCIDR('192.168.0.0/28')), ip('192.168.0.5'));
    if (!taken.ok) throw new Error(taken.error.message);
    h.bitmap = taken.value;
    expect(metaAllocate(h, ip('192.168.0.5'))).toEqual(errAllocated);
    expect(h.store.creates).toEqual([]);
  });

  it("a given IP goes to the bitmap first, with the bitmap's range check (cidrallocator.go AllocateService)", () => {
    const h = harness(meta('IPv4', newServiceCIDR('wide', '10.0.0.0/16')));
    h.bitmap = newIPAllocator(mustParseCIDR('10.0.1.0/24'));
    // 10.0.1.0 is an ordinary address of the /16 but the network address of the bitmap's /24.
    expect(metaAllocate(h, ip('10.0.1.0'))).toEqual(errNotInRange(ip('10.0.1.0'), '10.0.1.0/24'));
    expect(h.store.creates).toEqual([]);
    expect(metaAllocate(h, ip('10.0.1.7'))).toBeUndefined();
    expect(hasIP(h.bitmap, ip('10.0.1.7'))).toBe(true);
    // Outside the bitmap's CIDR only the IPAddress is written.
    const before = h.bitmap;
    expect(metaAllocate(h, ip('10.0.5.1'))).toBeUndefined();
    expect(h.bitmap).toBe(before);
    expect(metaRelease(h, ip('10.0.1.7'))).toBeUndefined();
    expect(hasIP(h.bitmap, ip('10.0.1.7'))).toBe(false);
    expect(h.store.objects.has('10.0.1.7')).toBe(false);
  });

  it('when the bitmap refuses an automatic IP, the next ServiceCIDR is tried and the IPAddress stays (AllocateNextService)', () => {
    // One ServiceCIDR, whose two addresses the bitmap already holds: the scan creates one
    // IPAddress, the bitmap refuses it, and there is no other ServiceCIDR: ErrFull.
    const h = harness(meta('IPv4', newServiceCIDR('small', '10.0.0.0/30')), 9);
    let bitmap = newIPAllocator(mustParseCIDR('10.0.0.0/30'));
    for (const s of ['10.0.0.1', '10.0.0.2']) {
      const r = allocateIP(bitmap, ip(s));
      if (!r.ok) throw new Error(r.error.message);
      bitmap = r.value;
    }
    h.bitmap = bitmap;
    expect(metaAllocateNext(h)).toMatchObject({ _tag: 'ErrFull' });
    expect(h.store.list()).toHaveLength(1);
    expect(['10.0.0.1', '10.0.0.2']).toContain(h.store.creates[0]);

    // With a second ServiceCIDR outside the bitmap, the allocation lands there.
    const g = harness(meta('IPv4', newServiceCIDR('small', '10.0.0.0/30'), newServiceCIDR('other', '10.1.0.0/30')), 10);
    g.bitmap = bitmap;
    const next = metaAllocateNext(g);
    expect(isIP(next) && formatIP(next).startsWith('10.1.0.')).toBe(true);
  });
});

describe('DryRun and Has', () => {
  it('DryRun uses one allocator; with none the caller answers ErrNotReady', () => {
    expect(dryRunAllocatorOf(meta('IPv4'))).toBeUndefined();
    expect(dryRunAllocatorOf(meta('IPv4', newServiceCIDR('a', '10.0.0.0/24')))?.rangeSpec).toBe('10.0.0.0/24');
  });

  it('Has asks a ready allocator and the view', () => {
    const h = harness(meta('IPv4', newServiceCIDR('a', '10.0.0.0/24')));
    expect(hasServiceIP(h.meta, h.store.view(), ip('10.0.0.9'))).toBe(false);
    expect(metaAllocate(h, ip('10.0.0.9'))).toBeUndefined();
    expect(hasServiceIP(h.meta, h.store.view(), ip('10.0.0.9'))).toBe(true);
  });
});
