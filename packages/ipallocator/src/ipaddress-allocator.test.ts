// Upstream's tests of the IPAddress allocator, as vectors (upstream v1.33:
// pkg/registry/core/service/ipallocator/ipallocator_test.go TestAllocateIPAllocator,
// TestAllocateTinyIPAllocator, TestAllocateReservedIPAllocator, TestAllocateSmallIPAllocator,
// TestForEachIPAllocator, the Free/Used values of TestIPAllocatorClusterIPMetrics and
// TestIPAllocatorClusterIPAllocatedMetrics, Test_broadcastAddress, Test_hostsPerNetwork,
// Test_ipIterator, Test_ipIterator_Number, TestAllocateNextFC). The fake clientset with its
// synced informer is ./ipaddress-store.fixtures.ts. The metrics counters themselves and
// Test_addOffsetAddress (Go's big.Int to netip.Addr bytes; addresses are bigints here) have
// nothing to check here.
import {
  formatIP,
  IP_ADDRESS_LABEL_FAMILY,
  IP_ADDRESS_LABEL_MANAGED_BY,
  parseCIDRSloppy,
  seededRng,
  type IP,
  type IPAddress,
  type Rng,
} from '@kubesvc/api-types';
import { mustParseCIDR, mustParseIP as ip } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import { errAllocated, errNotInRange } from './errors.js';
import {
  allocateIPAddressDryRun,
  allocateNextIPAddress,
  allocateNextIPAddressDryRun,
  allocatedIPAddresses,
  hasIPAddress,
  hostsPerNetwork,
  ipAddressesFree,
  ipAddressesUsed,
  newIPAddressAllocator,
  nextIPAddressCandidate,
  startBand,
  startIPAddressScan,
  type IPAddressAllocator,
} from './ipaddress-allocator.js';
import { allocate, allocateNext, IPAddressStore, release, web } from './ipaddress-store.fixtures.js';

function allocatorOf(text: string): IPAddressAllocator {
  const made = newIPAddressAllocator(mustParseCIDR(text));
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
}

/** upstream's `for r.Free() > 0 { AllocateNext() }`, checking no IP comes twice. */
function fill(store: IPAddressStore, a: IPAddressAllocator, rng: Rng): { found: Set<string>; rng: Rng } {
  const found = new Set<string>();
  let r = rng;
  while (ipAddressesFree(a, store.list()) > 0n) {
    const next = allocateNext(store, a, r);
    if ('_tag' in next) throw new Error(`${next.message} with ${found.size} allocated`);
    expect(found.has(formatIP(next.ip))).toBe(false);
    found.add(formatIP(next.ip));
    r = next.rng;
  }
  return { found, rng: r };
}

describe('TestAllocateIPAllocator', () => {
  const cases = [
    {
      name: 'IPv4',
      cidr: '192.168.1.0/24',
      free: 254,
      released: '192.168.1.5',
      outOfRange: ['192.168.0.1', '192.168.1.0', '192.168.1.255', '192.168.2.2'],
      alreadyAllocated: '192.168.1.1',
    },
    {
      name: 'IPv6',
      cidr: '2001:db8:1::/116',
      free: 4095,
      released: '2001:db8:1::5',
      outOfRange: ['2001:db8::1', '2001:db8:1::', '2001:db8:2::2'],
      alreadyAllocated: '2001:db8:1::1',
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const a = allocatorOf(tc.cidr);
      const store = new IPAddressStore();
      expect(ipAddressesFree(a, store.list())).toBe(BigInt(tc.free));
      expect(ipAddressesUsed(a, store.list())).toBe(0);
      const { found, rng } = fill(store, a, seededRng(7));
      expect(found.size).toBe(tc.free);
      expect(allocateNext(store, a, rng)).toMatchObject({ _tag: 'ErrFull', message: 'range is full' });
      expect(found.has(tc.released)).toBe(true);

      release(store, ip(tc.released));
      expect(ipAddressesFree(a, store.list())).toBe(1n);
      expect(ipAddressesUsed(a, store.list())).toBe(tc.free - 1);
      const again = allocateNext(store, a, rng);
      expect('ip' in again && formatIP(again.ip)).toBe(tc.released);

      release(store, ip(tc.released));
      for (const text of tc.outOfRange) {
        expect(allocate(store, a, ip(text))).toEqual(errNotInRange(ip(text), tc.cidr));
      }
      expect(allocate(store, a, ip(tc.alreadyAllocated))).toEqual(errAllocated);
      expect(ipAddressesFree(a, store.list())).toBe(1n);
      expect(ipAddressesUsed(a, store.list())).toBe(tc.free - 1);
      expect(allocate(store, a, ip(tc.released))).toBeUndefined();
      expect(ipAddressesFree(a, store.list())).toBe(0n);
      expect(ipAddressesUsed(a, store.list())).toBe(tc.free);
    });
  }

  it("ErrNotInRange carries upstream's text: the IP and the prefix", () => {
    const a = allocatorOf('192.168.1.0/24');
    expect(allocate(new IPAddressStore(), a, ip('192.168.1.255'))?.message).toBe(
      'the provided IP (192.168.1.255) is not in the valid range. The range of valid IPs is 192.168.1.0/24',
    );
  });
});

describe('the IPAddress created (createIPAddress, serviceToRef)', () => {
  it('is named by the IP, labelled with the family and managed-by, and points at the Service', () => {
    const store = new IPAddressStore();
    expect(allocate(store, allocatorOf('2001:db8:1::/116'), ip('2001:db8:1::a'))).toBeUndefined();
    expect(store.list()).toEqual([
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IPAddress',
        metadata: {
          name: '2001:db8:1::a',
          labels: { 'ipaddress.kubernetes.io/ip-family': 'IPv6', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' },
        },
        // ParentReference's fields are omitempty (api/networking/v1/types.go): no group "".
        spec: { parentRef: { resource: 'services', namespace: 'default', name: 'web' } },
      },
    ]);
  });
});

describe('NewIPAllocator', () => {
  it('refuses an IPv6 prefix shorter than /64, with upstream text', () => {
    expect(newIPAddressAllocator(mustParseCIDR('2001:db8::/48'))).toEqual({
      ok: false,
      error: { _tag: 'ErrServiceCIDRTooLarge', prefix: 48, message: 'shortest allowed prefix length for service CIDR is 64, got 48' },
    });
    expect(newIPAddressAllocator(mustParseCIDR('2001:db8::/64')).ok).toBe(true);
  });
});

describe('TestAllocateTinyIPAllocator', () => {
  it('a /32 has nothing free and AllocateNext fails', () => {
    const a = allocatorOf('192.168.1.0/32');
    const store = new IPAddressStore();
    expect(ipAddressesFree(a, store.list())).toBe(0n);
    expect(allocateNext(store, a, seededRng(1))).toMatchObject({ _tag: 'ErrFull' });
  });
});

describe('TestAllocateReservedIPAllocator', () => {
  it('a /25 fills its dynamic block (.17-.126) first, then takes the static block on request', () => {
    const a = allocatorOf('192.168.1.0/25');
    const store = new IPAddressStore();
    // subnet /25 = 128; the static block is min(max(16, 128/16), 256) = 16 addresses.
    expect(a.rangeOffset).toBe(16);
    expect(a.size).toBe(126n);
    let rng = seededRng(3);
    for (let i = 0; i < 126 - 16; i++) {
      const next = allocateNext(store, a, rng);
      if ('_tag' in next) throw new Error(next.message);
      rng = next.rng;
    }
    for (let i = 16; i < 126; i++) expect(hasIPAddress(store.view(), ip(`192.168.1.${i + 1}`))).toBe(true);
    expect(ipAddressesFree(a, store.list())).toBe(16n);
    for (let i = 0; i < 16; i++) expect(allocate(store, a, ip(`192.168.1.${i + 1}`))).toBeUndefined();
    expect(ipAddressesFree(a, store.list())).toBe(0n);
    release(store, ip('192.168.1.10'));
    const next = allocateNext(store, a, rng);
    expect('ip' in next && formatIP(next.ip)).toBe('192.168.1.10');
    expect(ipAddressesFree(a, store.list())).toBe(0n);
  });
});

describe('TestAllocateSmallIPAllocator', () => {
  it('a /30 hands out its two addresses once, and stays full', () => {
    const a = allocatorOf('192.168.1.240/30');
    const store = new IPAddressStore();
    expect(ipAddressesFree(a, store.list())).toBe(2n);
    let rng = seededRng(11);
    const found = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const next = allocateNext(store, a, rng);
      if ('_tag' in next) throw new Error(next.message);
      found.add(formatIP(next.ip));
      rng = next.rng;
    }
    expect([...found].sort()).toEqual(['192.168.1.241', '192.168.1.242']);
    for (const s of found) {
      expect(hasIPAddress(store.view(), ip(s))).toBe(true);
      expect(allocate(store, a, ip(s))).toEqual(errAllocated);
    }
    expect(ipAddressesFree(a, store.list())).toBe(0n);
    for (let i = 0; i < 100; i++) {
      const next = allocateNext(store, a, rng);
      expect(next).toMatchObject({ _tag: 'ErrFull' });
      if ('rng' in next) rng = next.rng;
    }
  });
});

describe('TestForEachIPAllocator', () => {
  const cases = [[], ['192.168.1.1'], ['192.168.1.1', '192.168.1.254'], ['192.168.1.1', '192.168.1.128', '192.168.1.254']];
  for (const [i, tc] of cases.entries()) {
    it(`case ${i}: ForEach calls back once per allocated IP`, () => {
      const a = allocatorOf('192.168.1.0/24');
      const store = new IPAddressStore();
      for (const s of tc) {
        expect(allocate(store, a, ip(s))).toBeUndefined();
        expect(hasIPAddress(store.view(), ip(s))).toBe(true);
      }
      expect(allocatedIPAddresses(a.family, store.list()).map(formatIP).sort()).toEqual([...tc].sort());
    });
  }

  it('ForEach and Used select by the family and managed-by labels (the lister selector)', () => {
    const a = allocatorOf('192.168.1.0/24');
    const object = (name: string, labels: Record<string, string>): IPAddress => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IPAddress',
      metadata: { name, labels },
    });
    const managed = { [IP_ADDRESS_LABEL_FAMILY]: 'IPv4', [IP_ADDRESS_LABEL_MANAGED_BY]: 'ipallocator.k8s.io' };
    const list = [
      object('192.168.1.1', managed),
      object('10.0.0.1', managed), // another range of the family: v1.33 counts it
      object('192.168.1.2', { ...managed, [IP_ADDRESS_LABEL_MANAGED_BY]: 'someone-else' }),
      object('192.168.1.3', { ...managed, [IP_ADDRESS_LABEL_FAMILY]: 'IPv6' }),
    ];
    expect(ipAddressesUsed(a, list)).toBe(2);
    expect(ipAddressesFree(a, list)).toBe(252n);
    expect(allocatedIPAddresses('IPv4', list).map(formatIP)).toEqual(['192.168.1.1', '10.0.0.1']);
  });
});

describe('where upstream overflows or passes nil (docs/deviations.md)', () => {
  it('Free of a /64 is 2^64 - 1 minus Used, where upstream converts the size to a Go int (-1)', () => {
    expect(ipAddressesFree(allocatorOf('fd00:1:2:3::/64'), [])).toBe(18446744073709551615n);
  });

  it('ForEach leaves out an IPAddress whose name is no IP, where upstream calls back with nil', () => {
    const managed = { [IP_ADDRESS_LABEL_FAMILY]: 'IPv4', [IP_ADDRESS_LABEL_MANAGED_BY]: 'ipallocator.k8s.io' };
    const list: IPAddress[] = ['192.168.1.10', 'invalid-ip-address'].map((name) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IPAddress',
      metadata: { name, labels: managed },
    }));
    expect(allocatedIPAddresses('IPv4', list).map(formatIP)).toEqual(['192.168.1.10']);
    // Used counts both, as upstream's v1.33 Used does.
    expect(ipAddressesUsed(allocatorOf('192.168.1.0/24'), list)).toBe(2);
  });
});

describe('Free and Used as the metrics tests see them', () => {
  it('TestIPAllocatorClusterIPMetrics: a /24 and a /112', () => {
    const a = allocatorOf('10.0.0.0/24');
    const b = allocatorOf('2001:db8::/112');
    const sa = new IPAddressStore();
    const sb = new IPAddressStore();
    expect([ipAddressesFree(a, sa.list()), ipAddressesUsed(a, sa.list())]).toEqual([254n, 0]);
    expect([ipAddressesFree(b, sb.list()), ipAddressesUsed(b, sb.list())]).toEqual([65535n, 0]);
    let ra = seededRng(5);
    let rb = seededRng(6);
    const found: IP[] = [];
    for (let i = 0; i < 2; i++) {
      const next = allocateNext(sa, a, ra);
      if ('_tag' in next) throw new Error(next.message);
      found.push(next.ip);
      ra = next.rng;
    }
    expect([ipAddressesFree(a, sa.list()), ipAddressesUsed(a, sa.list())]).toEqual([252n, 2]);
    for (const taken of found) {
      expect(hasIPAddress(sa.view(), taken)).toBe(true);
      expect(allocate(sa, a, taken)).toEqual(errAllocated);
    }
    for (const taken of found) release(sa, taken);
    expect([ipAddressesFree(a, sa.list()), ipAddressesUsed(a, sa.list())]).toEqual([254n, 0]);
    let failedA = 0;
    for (let i = 0; i < 264; i++) {
      const na = allocateNext(sa, a, ra);
      if ('_tag' in na) failedA++;
      ra = na.rng;
      const nb = allocateNext(sb, b, rb);
      rb = nb.rng;
    }
    // 254 dynamic allocations and 10 errors on the /24.
    expect(failedA).toBe(10);
    expect([ipAddressesFree(a, sa.list()), ipAddressesUsed(a, sa.list())]).toEqual([0n, 254]);
    expect([ipAddressesFree(b, sb.list()), ipAddressesUsed(b, sb.list())]).toEqual([65271n, 264]);
  });

  it('TestIPAllocatorClusterIPAllocatedMetrics: a /25 has 126 free', () => {
    expect(ipAddressesFree(allocatorOf('10.0.0.0/25'), [])).toBe(126n);
  });
});

describe('Test_broadcastAddress, through the last address of a range', () => {
  it.each([
    ['192.168.0.0/24', '192.168.0.254'], // IPv4 keeps its broadcast address .255 out
    ['10.0.0.0/12', '10.15.255.254'],
    ['fd00:1:2:3::/64', 'fd00:1:2:3:ffff:ffff:ffff:ffff'],
    ['00fc::/112', 'fc::ffff'],
    ['fc00::/112', 'fc00::ffff'],
  ])('%s ends at %s', (cidr, last) => {
    const a = allocatorOf(cidr);
    expect(formatIP({ family: a.cidr.network.family, value: a.last })).toBe(last);
  });
});

describe('Test_hostsPerNetwork', () => {
  const MAX_UINT64 = 18446744073709551615n;
  it.each([
    ['192.168.1.0/24', 254n],
    ['192.168.1.0/32', 0n],
    ['192.168.1.0/31', 0n],
    ['0.0.0.0/1', 2147483646n], // math.MaxInt32 - 1
    ['0.0.0.0/0', 4294967294n], // math.MaxUint32 - 1
    ['2001:db2::/112', 65535n],
    ['2001:db8::/128', 0n],
    ['2001:db8::/127', 1n],
    ['2001:db8::/65', 9223372036854775807n], // math.MaxInt64
    ['2001:db8::/64', MAX_UINT64],
    ['2001:db8::/1', MAX_UINT64],
  ])('%s has %s addresses', (cidr, addrs) => {
    // upstream reads the CIDR with ParseCIDRSloppy, which masks the host bits of 2001:db8::/1.
    const parsed = parseCIDRSloppy(cidr);
    if (!parsed.ok) throw new Error(parsed.error.message);
    expect(hostsPerNetwork(parsed.value.cidr)).toBe(addrs);
  });
});

/** Every address a scan of [first, last] from `offset` visits, on an empty view. */
function iterate(first: string, last: string, offset: bigint): string[] {
  const lo = ip(first);
  const hi = ip(last);
  // An allocator whose dynamic band is exactly [first, last]: no static band.
  const allocator: IPAddressAllocator = {
    ...allocatorOf(lo.family === 4 ? '0.0.0.0/0' : '::/64'),
    first: lo.value,
    offsetAddress: lo.value,
    last: hi.value,
    rangeOffset: 0,
  };
  const out: string[] = [];
  const seen = new Set<string>();
  let scan = startBand(allocator, 'dynamic', offset, seededRng(0));
  for (;;) {
    const next = nextIPAddressCandidate(allocator, seen, scan, web);
    if (!next.ok) return out;
    out.push(formatIP(next.value.ip));
    seen.add(formatIP(next.value.ip));
    scan = next.value.scan;
  }
}

describe('Test_ipIterator', () => {
  it.each([
    ['192.168.0.1', '192.168.0.2', 0n, ['192.168.0.1', '192.168.0.2']],
    ['192.168.0.1', '192.168.0.2', 1n, ['192.168.0.2', '192.168.0.1']],
    ['192.168.0.1', '192.168.0.2', 10n, ['192.168.0.1', '192.168.0.2']],
    ['192.168.0.1', '192.168.0.7', 0n, ['192.168.0.1', '192.168.0.2', '192.168.0.3', '192.168.0.4', '192.168.0.5', '192.168.0.6', '192.168.0.7']],
    ['192.168.0.1', '192.168.0.7', 2n, ['192.168.0.3', '192.168.0.4', '192.168.0.5', '192.168.0.6', '192.168.0.7', '192.168.0.1', '192.168.0.2']],
    ['192.168.0.1', '192.168.0.7', 6n, ['192.168.0.7', '192.168.0.1', '192.168.0.2', '192.168.0.3', '192.168.0.4', '192.168.0.5', '192.168.0.6']],
  ] as const)('[%s, %s] from offset %s', (first, last, offset, want) => {
    expect(iterate(first, last, offset)).toEqual(want);
  });
});

describe('Test_ipIterator_Number', () => {
  it.each([
    ['192.168.0.1', '192.168.0.2', 0n, 2],
    ['192.168.0.1', '192.168.0.2', 1n, 2],
    ['192.168.0.1', '192.168.0.2', 10n, 2],
    ['192.168.0.1', '192.168.0.7', 0n, 7],
    ['192.168.0.1', '192.168.0.7', 2n, 7],
    ['192.168.0.1', '192.168.0.7', 6n, 7],
    ['2001:db8:1::101', '2001:db8:1::fff', 0n, 3839],
    ['2001:db8:1::101', '2001:db8:1::fff', 255n, 3839],
    ['2001:db8:1::101', '2001:db8:1::fff', 3838n, 3839],
  ] as const)('[%s, %s] from offset %s visits %s addresses', (first, last, offset, want) => {
    expect(iterate(first, last, offset)).toHaveLength(want);
  });
});

describe('TestAllocateNextFC', () => {
  it('allocates from fc::/112', () => {
    const next = allocateNext(new IPAddressStore(), allocatorOf('fc::/112'), seededRng(2));
    expect('ip' in next && formatIP(next.ip).startsWith('fc::')).toBe(true);
  });
});

describe('a create that loses (allocateFromRange)', () => {
  it('goes on with the next address of the same scan, with no new draw', () => {
    // A /29: six addresses, no static band, so the scan from a start s is s, s+1, ..., wrapping.
    const a = allocatorOf('10.0.0.0/29');
    const rng = seededRng(9);
    const first = allocateNextIPAddress(a, new Set(), rng, web);
    if (!first.ok) throw new Error(first.error.message);
    const start = first.value.ip.value;
    const store = new IPAddressStore();
    store.lost.add(formatIP(first.value.ip));
    const won = allocateNext(store, a, rng);
    const following = ((start - a.first + 1n) % 6n) + a.first;
    expect('ip' in won && won.ip.value).toBe(following);
    expect(store.creates).toEqual([formatIP(first.value.ip), formatIP({ family: 4, value: following })]);
    // One draw in all: the generator is the one the first candidate came with.
    expect('rng' in won && won.rng).toEqual(first.value.scan.rng);
  });
});

describe('the scan draws', () => {
  it('draws once for the dynamic band, and not at all when the range is empty', () => {
    const rng = seededRng(4);
    const empty = startIPAddressScan(allocatorOf('10.0.0.0/31'), rng);
    expect(empty).toMatchObject({ ok: false, error: { _tag: 'ErrFull', rng } });
    const scan = startIPAddressScan(allocatorOf('10.0.0.0/24'), rng);
    expect(scan.ok && scan.value.band).toBe('dynamic');
    expect(scan.ok && scan.value.rng).not.toEqual(rng);
  });
});

describe('DryRun', () => {
  it('Allocate checks the range only; AllocateNext answers the network address', () => {
    const a = allocatorOf('10.0.0.0/24');
    expect(allocateIPAddressDryRun(a, ip('10.0.0.5'))).toEqual({ ok: true, value: ip('10.0.0.5') });
    expect(allocateIPAddressDryRun(a, ip('10.0.0.255'))).toEqual({ ok: false, error: errNotInRange(ip('10.0.0.255'), '10.0.0.0/24') });
    expect(formatIP(allocateNextIPAddressDryRun(a))).toBe('10.0.0.0');
  });
});
