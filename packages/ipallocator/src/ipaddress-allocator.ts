// The ClusterIP allocator of one ServiceCIDR range that records each allocated IP as an
// IPAddress object (Kubernetes v1.33, MultiCIDRServiceAllocator locked on), as pure decisions.
//
// Upstream's Allocator reads what is taken from an IPAddress informer and takes an IP by
// creating its IPAddress through the API: the object's existence is the lock, so a create that
// answers AlreadyExists means another apiserver took the IP first. Here the read and the write
// are the caller's. What is taken is an IPAddressView (the names the lister sees); the functions
// return the IP to take and the IPAddress object to create, or upstream's error; the caller
// creates it, and when the create loses, nextIPAddressCandidate continues the same scan from
// where it stopped, as upstream's loop does (see IPAddressScan for why a cursor and not a fresh
// call with the lost IP added to the view).
//
// upstream (v1.33): pkg/registry/core/service/ipallocator/ipallocator.go (NewIPAllocator,
//           createIPAddress, allocateService, allocateNextService, ipIterator,
//           allocateFromRange, release, ForEach, Has, Used, Free, DryRun, addOffsetAddress,
//           hostsPerNetwork, broadcastAddress, serviceToRef), bitmap.go (calculateRangeOffset),
//           interfaces.go (ErrFull, ErrNotInRange, ErrAllocated)
// The stored upstream text is newer than v1.33 in three places this file follows v1.33 on:
// v1.33.0 swallows every create error in allocateFromRange and tries the next IP (later
// releases stop on errors other than AlreadyExists), counts every labelled IPAddress of the
// family in Used (later releases only those inside the range), and reads the /64 scan start
// through a signed cast (see drawDynamicStart).
import {
  err,
  errFull,
  familyName,
  formatCIDR,
  formatIP,
  IP_ADDRESS_LABEL_FAMILY,
  IP_ADDRESS_LABEL_MANAGED_BY,
  IP_ALLOCATOR_CONTROLLER_NAME,
  isRecord,
  nextInt,
  ok,
  parseIPSloppy,
  SERVICE_CIDR_API_VERSION,
  type CIDR,
  type ErrFull,
  type IP,
  type IPAddress,
  type IPFamily,
  type Result,
  type Rng,
  type WithRng,
  cidrLastValue,
} from '@kubesvc/api-types';
import { nextBigInt } from './big-draw.js';
import { errNotInRange, errServiceCIDRTooLarge, type ErrNotInRange, type ErrServiceCIDRTooLarge } from './errors.js';
import { calculateIPRangeOffset } from './ip-range.js';

/**
 * One range's allocator (upstream Allocator without its client and informer). Addresses are
 * the bigint values of api-types' IP: `first` is network + 1, `last` the broadcast address for
 * IPv6 and the one below it for IPv4, and [first, offsetAddress) is the static band that
 * automatic allocation uses last (KEP-3070), [offsetAddress, last] the dynamic band.
 */
export interface IPAddressAllocator {
  /** upstream IPFamily(), and the ipaddress.kubernetes.io/ip-family label of its IPAddresses. */
  readonly family: IPFamily;
  readonly cidr: CIDR;
  /** The CIDR as Go prints it: ErrNotInRange's valid range. */
  readonly rangeSpec: string;
  readonly first: bigint;
  readonly offsetAddress: bigint;
  readonly last: bigint;
  /** The size of the static band (calculateRangeOffset: min(max(16, RangeSize/16), 256), 0 up to 16 addresses). */
  readonly rangeOffset: number;
  /** How many addresses the range hands out (upstream hostsPerNetwork). */
  readonly size: bigint;
}

/** The Service an IPAddress is allocated to: its parentRef names it. */
export interface ServiceRef {
  readonly namespace: string;
  readonly name: string;
}

/**
 * What is taken, as the IPAddress lister sees it: `has(name)` for an IPAddress name, which is
 * the IP's canonical text (formatIP, Go's netip.Addr.String). A `ReadonlySet<string>` of the
 * names is one (ipAddressNames builds it from a list); a live view that asks the store on
 * every call is another, and matches upstream, whose scan asks the lister at every step.
 */
export interface IPAddressView {
  has(name: string): boolean;
}

const MAX_UINT64 = (1n << 64n) - 1n;

function bitsOf(cidr: CIDR): number {
  return cidr.network.family === 4 ? 32 : 128;
}

/**
 * upstream hostsPerNetwork: 2^hostBits - 2 for IPv4 (no network, no broadcast address),
 * 2^hostBits - 1 for IPv6 (no network address), 0 when nothing is left, and MaxUint64 once
 * the host bits reach 64.
 */
export function hostsPerNetwork(cidr: CIDR): bigint {
  const hostBits = bitsOf(cidr) - cidr.prefix;
  if (hostBits >= 64) return MAX_UINT64;
  let max = (1n << BigInt(hostBits)) - 1n;
  if (cidr.network.family === 4) {
    if (max === 0n) return 0n;
    max -= 1n;
  }
  return max;
}


/**
 * The allocator of `cidr` (upstream NewIPAllocator), or ErrServiceCIDRTooLarge for an IPv6
 * prefix shorter than /64. Ranges with nothing to hand out (IPv4 /31 and /32, IPv6 /128) are
 * accepted and are always full.
 */
export function newIPAddressAllocator(cidr: CIDR): Result<IPAddressAllocator, ErrServiceCIDRTooLarge> {
  if (cidr.network.family === 6 && cidr.prefix < 64) return err(errServiceCIDRTooLarge(cidr.prefix));
  const first = cidr.network.value + 1n;
  const broadcast = cidrLastValue(cidr);
  const rangeOffset = calculateIPRangeOffset(cidr);
  return ok({
    family: familyName(cidr.network.family),
    cidr,
    rangeSpec: formatCIDR(cidr),
    first,
    offsetAddress: first + BigInt(rangeOffset),
    last: cidr.network.family === 4 ? broadcast - 1n : broadcast,
    rangeOffset,
    size: hostsPerNetwork(cidr),
  });
}

/** The name of the IPAddress that records `ip`: its canonical text. */
export function ipAddressName(ip: IP): string {
  return formatIP(ip);
}

/**
 * The IPAddress object the allocator creates for `ip` (upstream createIPAddress and
 * serviceToRef): named by the IP, labelled with the family and managed-by ipallocator.k8s.io,
 * its parentRef the Service (group "", resource "services").
 */
export function ipAddressObject(allocator: IPAddressAllocator, ip: IP, parent: ServiceRef): IPAddress {
  return serviceIPAddress(ipAddressName(ip), allocator.family, parent);
}

/**
 * The IPAddress named `name` of `family`, held by the Service `parent`, as both the allocator
 * and the repair loop write it (upstream createIPAddress and repairip.go newIPAddress, both
 * through serviceToRef). ParentReference's fields are `omitempty`, so the stored object has
 * no `group` (always "" for a Service), and no namespace or name where those are empty.
 */
export function serviceIPAddress(name: string, family: IPFamily, parent: ServiceRef): IPAddress {
  return {
    apiVersion: SERVICE_CIDR_API_VERSION,
    kind: 'IPAddress',
    metadata: {
      name,
      labels: { [IP_ADDRESS_LABEL_FAMILY]: family, [IP_ADDRESS_LABEL_MANAGED_BY]: IP_ALLOCATOR_CONTROLLER_NAME },
    },
    spec: {
      parentRef: {
        resource: 'services',
        ...(parent.namespace === '' ? {} : { namespace: parent.namespace }),
        ...(parent.name === '' ? {} : { name: parent.name }),
      },
    },
  };
}

/** The IP to take and the IPAddress to create for it. */
export interface IPAddressToCreate {
  readonly ip: IP;
  readonly ipAddress: IPAddress;
}

function inRange(allocator: IPAddressAllocator, ip: IP): boolean {
  // upstream compares netip.Addr values, where every IPv4 address sorts before every IPv6 one:
  // an address of the other family is below first or above last.
  return ip.family === allocator.cidr.network.family && ip.value >= allocator.first && ip.value <= allocator.last;
}

/**
 * Takes a given IP (upstream AllocateService): ErrNotInRange when it is below first or above
 * last (the network address, the IPv4 broadcast address, another network or family).
 * Otherwise the IPAddress to create. Upstream does not ask the lister here: the create decides,
 * and its AlreadyExists is upstream's ErrAllocated (`errAllocated`).
 */
export function allocateIPAddress(
  allocator: IPAddressAllocator,
  ip: IP,
  parent: ServiceRef,
): Result<IPAddressToCreate, ErrNotInRange> {
  if (!inRange(allocator, ip)) return err(errNotInRange(ip, allocator.rangeSpec));
  return ok({ ip, ipAddress: ipAddressObject(allocator, ip, parent) });
}

/** upstream DryRun().Allocate: the range check alone, nothing to create. */
export function allocateIPAddressDryRun(allocator: IPAddressAllocator, ip: IP): Result<IP, ErrNotInRange> {
  return inRange(allocator, ip) ? ok(ip) : err(errNotInRange(ip, allocator.rangeSpec));
}

/** upstream DryRun().AllocateNext: the network address, no draw and nothing to create. */
export function allocateNextIPAddressDryRun(allocator: IPAddressAllocator): IP {
  return allocator.cidr.network;
}

/**
 * Where an automatic allocation's scan is (upstream's ipIterator, as a value). A scan draws a
 * start in the dynamic band and walks up from it to `last`, wraps to the band's first address
 * and stops before the start; only then does it draw a start in the static band and walk that
 * the same way. `next` is the address it looks at next, undefined once the band is walked.
 *
 * A candidate comes back with the scan just past it. When the caller's create of the candidate
 * loses (upstream: any create error in v1.33.0, AlreadyExists in later releases),
 * nextIPAddressCandidate with that scan is upstream's `continue`. Calling allocateNextIPAddress
 * again with the lost IP added to the view and the same generator would give the same IP only
 * while nothing else in the view changed: an IP freed behind the scan's position would be
 * found again, which upstream's iterator never goes back for; and it would redraw the start.
 */
export interface IPAddressScan {
  readonly band: 'dynamic' | 'static';
  readonly start: bigint;
  readonly next: bigint | undefined;
  /** The generator after the draws so far. */
  readonly rng: Rng;
}

/** An IP to try, its IPAddress, and the scan to continue if the create loses. */
export interface IPAddressCandidate extends IPAddressToCreate {
  readonly scan: IPAddressScan;
}

/** Automatic allocation found nothing free; the advanced generator rides on the error. */
export type IPAddressNextResult = Result<IPAddressCandidate, WithRng<ErrFull>>;

function bandBounds(allocator: IPAddressAllocator, band: IPAddressScan['band']): readonly [bigint, bigint] {
  return band === 'dynamic' ? [allocator.offsetAddress, allocator.last] : [allocator.first, allocator.offsetAddress - 1n];
}

/**
 * A scan of one band from `offset` (upstream ipIterator's start: the band's first address +
 * offset, or its first address when that is past its last). startIPAddressScan draws the
 * offset; this is the same scan for a given one.
 */
export function startBand(allocator: IPAddressAllocator, band: IPAddressScan['band'], offset: bigint, rng: Rng): IPAddressScan {
  const [lo, hi] = bandBounds(allocator, band);
  const start = lo + offset > hi ? lo : lo + offset;
  return { band, start, next: start, rng };
}

/**
 * The draw of the dynamic band's start: upstream rand.Int63n(size), or rand.Uint64() when the
 * size reaches MaxInt64 (only an IPv6 /64). v1.33.0 then adds that uint64 to the band's first
 * address through a signed cast, so about half of a /64's draws start the scan below the band,
 * most of them outside the range; later releases read it unsigned. Here every draw is in
 * [0, size), the intended scan (docs/deviations.md).
 */
function drawDynamicStart(rng: Rng, size: bigint): readonly [bigint, Rng] {
  return nextBigInt(rng, size);
}

/**
 * Starts a scan (upstream allocateNextService up to its first iterator): ErrFull at once, with
 * no draw, when the dynamic band is empty; otherwise one draw for its start.
 */
export function startIPAddressScan(allocator: IPAddressAllocator, rng: Rng): Result<IPAddressScan, WithRng<ErrFull>> {
  const dynamicSize = allocator.size - BigInt(allocator.rangeOffset);
  if (dynamicSize <= 0n) return err({ ...errFull, rng });
  const [offset, advanced] = drawDynamicStart(rng, dynamicSize);
  return ok(startBand(allocator, 'dynamic', offset, advanced));
}

/**
 * The next address of the scan that the view does not hold (upstream allocateFromRange's
 * loop), with the scan past it. When the dynamic band is walked, one draw starts the static
 * band; when that is walked too (or there is none), ErrFull.
 */
export function nextIPAddressCandidate(
  allocator: IPAddressAllocator,
  view: IPAddressView,
  scan: IPAddressScan,
  parent: ServiceRef,
): IPAddressNextResult {
  const family = allocator.cidr.network.family;
  let s = scan;
  for (;;) {
    if (s.next === undefined) {
      if (s.band === 'static' || allocator.rangeOffset === 0) return err({ ...errFull, rng: s.rng });
      const [offset, advanced] = nextInt(s.rng, allocator.rangeOffset);
      s = startBand(allocator, 'static', BigInt(offset), advanced);
      continue;
    }
    const value = s.next;
    const [lo, hi] = bandBounds(allocator, s.band);
    const after = value >= hi ? lo : value + 1n;
    s = { band: s.band, start: s.start, next: after === s.start ? undefined : after, rng: s.rng };
    const ip: IP = { family, value };
    if (view.has(ipAddressName(ip))) continue;
    return ok({ ip, ipAddress: ipAddressObject(allocator, ip, parent), scan: s });
  }
}

/**
 * Automatic allocation (upstream AllocateNextService): the first IP of a fresh scan that the
 * view does not hold, with its IPAddress and the scan for continuing. The dynamic band is
 * preferred while the view leaves room in it.
 */
export function allocateNextIPAddress(
  allocator: IPAddressAllocator,
  view: IPAddressView,
  rng: Rng,
  parent: ServiceRef,
): IPAddressNextResult {
  const scan = startIPAddressScan(allocator, rng);
  if (!scan.ok) return scan;
  return nextIPAddressCandidate(allocator, view, scan.value, parent);
}

/**
 * upstream Release: the IPAddress to delete, named by the IP. Upstream deletes it whatever the
 * cache says and whether or not the IP is in the range, and ignores the answer (a missing
 * object is no error).
 */
export function releaseIPAddress(ip: IP): string {
  return ipAddressName(ip);
}

/** upstream Has: whether the view holds the IP's IPAddress. */
export function hasIPAddress(view: IPAddressView, ip: IP): boolean {
  return view.has(ipAddressName(ip));
}

/**
 * The names of a list of IPAddresses, as a view. Items without a string name (outside data),
 * and anything that is not a list, give nothing.
 */
export function ipAddressNames(ipAddresses: readonly IPAddress[]): ReadonlySet<string> {
  const names = new Set<string>();
  const given: unknown = ipAddresses;
  if (!Array.isArray(given)) return names;
  for (const item of given as unknown[]) {
    const name = isRecord(item) && isRecord(item['metadata']) ? item['metadata']['name'] : undefined;
    if (typeof name === 'string') names.add(name);
  }
  return names;
}

/**
 * The names of the IPAddresses upstream's label selector picks for `family`: labelled with the
 * family and managed by ipallocator.k8s.io (the selector of ForEach and Used), in list order.
 * Like ipAddressNames, it reads outside data: what is not an IPAddress is not picked.
 */
export function managedIPAddressNames(family: IPFamily, ipAddresses: readonly IPAddress[]): string[] {
  const names: string[] = [];
  const given: unknown = ipAddresses;
  if (!Array.isArray(given)) return names;
  for (const item of given as unknown[]) {
    if (!isRecord(item) || !isRecord(item['metadata'])) continue;
    const { name, labels } = item['metadata'];
    if (typeof name !== 'string' || !isRecord(labels)) continue;
    if (labels[IP_ADDRESS_LABEL_FAMILY] === family && labels[IP_ADDRESS_LABEL_MANAGED_BY] === IP_ALLOCATOR_CONTROLLER_NAME) {
      names.push(name);
    }
  }
  return names;
}

/**
 * upstream ForEach: the IPs of the family's managed IPAddresses, read as ParseIPSloppy reads
 * their names. A name that is no IP is left out (upstream passes a nil IP to the callback).
 */
export function allocatedIPAddresses(family: IPFamily, ipAddresses: readonly IPAddress[]): IP[] {
  const ips: IP[] = [];
  for (const name of managedIPAddressNames(family, ipAddresses)) {
    const parsed = parseIPSloppy(name);
    if (parsed.ok) ips.push(parsed.value);
  }
  return ips;
}

/**
 * upstream Used (v1.33): how many of the family's IPAddresses are managed by the allocator,
 * wherever their IP is; the count assumes one range per family, as upstream's comment says.
 */
export function ipAddressesUsed(allocator: IPAddressAllocator, ipAddresses: readonly IPAddress[]): number {
  return managedIPAddressNames(allocator.family, ipAddresses).length;
}

/**
 * upstream Free: size - Used, as a bigint. Upstream converts the size to a Go int, which for a
 * /64 (size MaxUint64) is -1 (docs/deviations.md).
 */
export function ipAddressesFree(allocator: IPAddressAllocator, ipAddresses: readonly IPAddress[]): bigint {
  return allocator.size - BigInt(ipAddressesUsed(allocator, ipAddresses));
}
