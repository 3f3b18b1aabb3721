// `kubesvc ips` on a dump of a Kubernetes v1.33+ cluster: the ranges are ServiceCIDR objects and
// every allocated ClusterIP is an IPAddress object whose parentRef names its Service. This draws
// each ServiceCIDR's allocation from the IPAddresses, says who holds an IP, and runs one pass of
// the IPAddress repair loop (RepairIPAddress) over the dump. Pure.
// upstream (v1.33): pkg/registry/core/service/ipallocator/cidrallocator.go (one allocator per
//           CIDR, ready when a ServiceCIDR naming it is Ready and not being deleted),
//           .../ipallocator/ipallocator.go (the bands), .../ipallocator/controller/repairip.go
//           (the pass, through @kubesvc/ipallocator's repairIPAddresses).
import {
  DEFAULT_SERVICE_CIDR_NAME,
  compareIP,
  familyName,
  formatIP,
  ipAddressOfName,
  isRecord,
  parseIP,
  parseIPSloppy,
  parseServiceNetworking,
  prefixContainsIP,
  type IP,
  type IPAddress,
  type KubeObject,
  type ParentReference,
  type Service,
} from '@kubesvc/api-types';
import {
  IP_ADDRESS_REPAIR_GRACE_PERIOD_MS,
  hasDefaultServiceCIDR,
  isManagedByIPAllocator,
  newMetaAllocator,
  repairIPAddresses,
  serviceClusterIPs,
  type IPAddressAllocator,
  type IPAddressRepairEvent,
  type IPAddressWrite,
} from '@kubesvc/ipallocator';
import type { Dump } from '../dump/load-dump.js';
import { formatTable } from '../output/output-format.js';

/** Whether the dump is of the ServiceCIDR/IPAddress world (a v1.33+ cluster). */
export function hasServiceCIDRView(dump: Pick<Dump, 'serviceCIDRs' | 'ipAddresses'>): boolean {
  return dump.serviceCIDRs.length > 0 || dump.ipAddresses.length > 0;
}

/**
 * The --service-cluster-ip-range the cluster runs with, as the dump records it: the default
 * ServiceCIDR controller makes the ServiceCIDR `kubernetes` with the flag's CIDRs, primary
 * first (upstream v1.33:
 * pkg/controlplane/controller/defaultservicecidr/default_servicecidr_controller.go).
 * Undefined when the dump has no such ServiceCIDR or its CIDRs are no valid flag.
 */
export function serviceClusterIPRangeOf(dump: Pick<Dump, 'serviceCIDRs'>): string | undefined {
  const cidrs = dump.serviceCIDRs.find((c) => c.metadata.name === DEFAULT_SERVICE_CIDR_NAME)?.spec?.cidrs ?? [];
  if (cidrs.length === 0) return undefined;
  const flag = cidrs.join(',');
  return parseServiceNetworking({ serviceClusterIPRange: flag }).ok ? flag : undefined;
}

/** The clock of the offline pass, and where it came from. */
export interface RepairClock {
  /** ms since the epoch. */
  readonly now: number;
  /** `--now`, `the input` (its latest timestamp), or `none` (the input records no time). */
  readonly from: '--now' | 'the input' | 'none';
}

/** The timestamps an object records as past: its creation, its managedFields writes, its conditions' transitions. */
function timestampsOf(object: KubeObject): string[] {
  const out: string[] = [];
  const metadata: unknown = object.metadata;
  if (!isRecord(metadata)) return out;
  if (typeof metadata['creationTimestamp'] === 'string') out.push(metadata['creationTimestamp']);
  const managed = metadata['managedFields'];
  if (Array.isArray(managed)) {
    for (const entry of managed as unknown[]) if (isRecord(entry) && typeof entry['time'] === 'string') out.push(entry['time']);
  }
  const status: unknown = (object as { status?: unknown }).status;
  const conditions = isRecord(status) ? status['conditions'] : undefined;
  if (Array.isArray(conditions)) {
    for (const c of conditions as unknown[]) if (isRecord(c) && typeof c['lastTransitionTime'] === 'string') out.push(c['lastTransitionTime']);
  }
  return out;
}

/**
 * `now` for the offline pass: `--now` when given; else the latest time the input records
 * (every `metadata.creationTimestamp`, `metadata.managedFields[].time` and
 * `status.conditions[].lastTransitionTime`), since a dump is taken at or after all of them;
 * else the epoch. With no timestamp in the input the IPAddresses carry no creationTimestamp
 * either, and upstream reads a missing one as Go's zero time, so every IPAddress is past the
 * grace period whatever the clock says.
 */
export function repairClock(dump: Pick<Dump, 'objects'>, given?: number): RepairClock {
  if (given !== undefined) return { now: given, from: '--now' };
  let latest = Number.NEGATIVE_INFINITY;
  for (const object of dump.objects) {
    for (const stamp of timestampsOf(object)) {
      const ms = Date.parse(stamp);
      if (!Number.isNaN(ms) && ms > latest) latest = ms;
    }
  }
  return Number.isFinite(latest) ? { now: latest, from: 'the input' } : { now: 0, from: 'none' };
}

/** `--now`: an RFC 3339 time, as the timestamps of the objects are written. */
export function parseNow(text: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

export interface BandPicture {
  readonly first: string;
  readonly last: string;
  readonly size: string;
  readonly used: number;
}

/** One CIDR of the ServiceCIDRs: upstream has one allocator per CIDR text of a family. */
export interface ServiceCIDRPicture {
  readonly cidr: string;
  /** The ServiceCIDRs that name this CIDR. */
  readonly serviceCIDRs: readonly string[];
  readonly family: 'IPv4' | 'IPv6';
  /** Whether new ClusterIPs may come from it: a ServiceCIDR naming it is Ready (or has no Ready condition) and is not being deleted. */
  readonly ready: boolean;
  /** Addresses it hands out (hostsPerNetwork), as a decimal string: an IPv6 /64 holds 2^64 - 1. */
  readonly size: string;
  /** IPAddress objects named by an address of this range (any of them blocks allocation of that address). */
  readonly used: number;
  readonly free: string;
  readonly staticBand: BandPicture;
  readonly dynamicBand: BandPicture;
}

/** A CIDR that gets no allocator (upstream logs it and goes on). */
export interface UnusableCIDR {
  readonly serviceCIDR: string;
  readonly cidr: string;
  readonly message: string;
}

/** One IPAddress object and what it says. */
export interface IPAddressHolding {
  readonly ip: string;
  /** The CIDRs whose range holds it; empty when none does. */
  readonly cidrs: readonly string[];
  /** `Service namespace/name` from spec.parentRef, or the reference as written when it names something else. */
  readonly heldBy: string;
  /**
   * What the input says of the parent: `holds it` (the Service lists the IP in spec.clusterIPs),
   * `does not list it`, `not in the input`, or `not a Service`.
   */
  readonly parent: 'holds it' | 'does not list it' | 'not in the input' | 'not a Service';
  readonly managed: boolean;
}

/** An IPAddress whose Service is not in the input: the repair loop deletes it once past the grace period. */
export interface OrphanedIPAddress {
  readonly ip: string;
  readonly parent: string;
  readonly created?: string;
  /** Deleted by this pass (older than the grace period), or by the sync requeued after `afterMs`. */
  readonly deletedThisPass: boolean;
  readonly afterMs: number;
}

export interface IPAddressRepairReport {
  readonly clock: RepairClock;
  /** upstream RunUntil waits for the ServiceCIDR `kubernetes` before its first pass. */
  readonly hasDefaultServiceCIDR: boolean;
  readonly events: readonly IPAddressRepairEvent[];
  readonly writes: readonly IPAddressWrite[];
  readonly orphans: readonly OrphanedIPAddress[];
  readonly error?: string;
}

export interface ServiceCIDRReport {
  readonly cidrs: readonly ServiceCIDRPicture[];
  readonly unusable: readonly UnusableCIDR[];
  readonly ipAddresses: readonly IPAddressHolding[];
  readonly repair: IPAddressRepairReport;
}

function ipText(family: IP['family'], value: bigint): string {
  return formatIP({ family, value });
}

function band(allocator: IPAddressAllocator, from: bigint, to: bigint, ips: readonly IP[]): BandPicture {
  const family = allocator.cidr.network.family;
  const empty = to < from;
  return {
    first: empty ? '' : ipText(family, from),
    last: empty ? '' : ipText(family, to),
    size: String(empty ? 0n : to - from + 1n),
    used: ips.filter((ip) => ip.value >= from && ip.value <= to).length,
  };
}

function picture(cidr: string, serviceCIDRs: readonly string[], ready: boolean, allocator: IPAddressAllocator, names: readonly IP[]): ServiceCIDRPicture {
  const inside = names.filter((ip) => prefixContainsIP(allocator.cidr, ip));
  return {
    cidr,
    serviceCIDRs,
    family: allocator.family,
    ready,
    size: String(allocator.size),
    used: inside.length,
    free: String(allocator.size - BigInt(inside.length)),
    staticBand: band(allocator, allocator.first, allocator.offsetAddress - 1n, inside),
    dynamicBand: band(allocator, allocator.offsetAddress, allocator.last, inside),
  };
}

function refText(ref: ParentReference | null | undefined): string {
  if (ref === undefined || ref === null) return '(no parentRef)';
  const where = `${ref.namespace ?? ''}/${ref.name ?? ''}`;
  if ((ref.group ?? '') === '' && ref.resource === 'services') return `Service ${where}`;
  return `${ref.group ?? ''}/${ref.resource ?? ''} ${where}`;
}

function serviceOf(dump: Pick<Dump, 'services'>, ref: ParentReference | null | undefined): Service | undefined {
  if (ref === undefined || ref === null || (ref.group ?? '') !== '' || ref.resource !== 'services') return undefined;
  return dump.services.find((s) => (s.metadata.namespace ?? '') === (ref.namespace ?? '') && (s.metadata.name ?? '') === (ref.name ?? ''));
}

function holding(dump: Pick<Dump, 'services'>, ipAddress: IPAddress, allocators: readonly { cidr: string; allocator: IPAddressAllocator }[]): IPAddressHolding {
  const name = ipAddress.metadata.name ?? '';
  const ip = ipAddressOfName(name);
  const ref = ipAddress.spec?.parentRef;
  const service = serviceOf(dump, ref);
  const isService = ref !== undefined && ref !== null && (ref.group ?? '') === '' && ref.resource === 'services';
  return {
    ip: name,
    cidrs: ip === undefined ? [] : allocators.filter((a) => prefixContainsIP(a.allocator.cidr, ip)).map((a) => a.cidr),
    heldBy: refText(ref),
    parent: !isService ? 'not a Service' : service === undefined ? 'not in the input' : serviceClusterIPs(service).includes(name) ? 'holds it' : 'does not list it',
    managed: isManagedByIPAllocator(ipAddress),
  };
}

function byIP(a: { ip: string }, b: { ip: string }): number {
  const x = ipAddressOfName(a.ip);
  const y = ipAddressOfName(b.ip);
  if (x !== undefined && y !== undefined) return compareIP(x, y);
  if (x !== undefined) return -1;
  if (y !== undefined) return 1;
  return a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0;
}

function repairReport(dump: Dump, clock: RepairClock): IPAddressRepairReport {
  const base = { clock, hasDefaultServiceCIDR: hasDefaultServiceCIDR(dump.serviceCIDRs) };
  const pass = repairIPAddresses({ services: dump.services, ipAddresses: dump.ipAddresses, serviceCIDRs: dump.serviceCIDRs }, clock.now);
  if (!pass.ok) return { ...base, events: [], writes: [], orphans: [], error: pass.error.message };
  const { events, writes, requeues } = pass.value;
  const byName = new Map(dump.ipAddresses.map((a) => [a.metadata.name ?? '', a]));
  // syncIPAddress requeues exactly the IPAddresses whose Service does not exist.
  const orphans = requeues.map((requeue): OrphanedIPAddress => {
    const object = byName.get(requeue.name);
    const created = object?.metadata.creationTimestamp;
    return {
      ip: requeue.name,
      parent: refText(object?.spec?.parentRef),
      ...(typeof created === 'string' ? { created } : {}),
      deletedThisPass: requeue.afterMs <= 0,
      afterMs: requeue.afterMs,
    };
  });
  return { ...base, events, writes, orphans };
}

/** The ServiceCIDR picture of the dump and one pass of RepairIPAddress at `clock.now`. */
export function serviceCIDRReport(dump: Dump, clock: RepairClock): ServiceCIDRReport {
  const names = dump.ipAddresses.flatMap((a) => {
    const ip = ipAddressOfName(a.metadata.name ?? '');
    return ip === undefined ? [] : [ip];
  });
  const cidrs: ServiceCIDRPicture[] = [];
  const unusable: UnusableCIDR[] = [];
  const allocators: { cidr: string; allocator: IPAddressAllocator }[] = [];
  for (const family of ['IPv4', 'IPv6'] as const) {
    const meta = newMetaAllocator(family, dump.serviceCIDRs);
    if (!meta.ok) continue;
    for (const entry of meta.value.allocators) {
      allocators.push(entry);
      cidrs.push(picture(entry.cidr, entry.serviceCIDRs, entry.ready, entry.allocator, names));
    }
    for (const u of meta.value.unusable) if (!unusable.some((x) => x.serviceCIDR === u.serviceCIDR && x.cidr === u.cidr)) unusable.push(u);
  }
  const ipAddresses = dump.ipAddresses.map((a) => holding(dump, a, allocators)).sort(byIP);
  return { cidrs, unusable, ipAddresses, repair: repairReport(dump, clock) };
}

/** Who holds an IP in the ServiceCIDR world: the IPAddress named by it, and any Service that lists it. */
export interface IPAddressLookup {
  readonly ip: string;
  /** The CIDRs whose range holds it (first one decides the band). */
  readonly cidrs: readonly string[];
  readonly band: 'first' | 'static' | 'dynamic' | 'out of range';
  /** The IPAddress object, when there is one: the allocator's record of who holds the IP. */
  readonly ipAddress?: IPAddressHolding;
  /** Services that list the IP in spec.clusterIPs (or clusterIP), with the field. */
  readonly services: readonly { readonly namespace: string; readonly name: string; readonly field: string }[];
}

export function lookupIPAddress(dump: Dump, text: string): IPAddressLookup | undefined {
  const parsed = parseIP(text);
  if (!parsed.ok) return undefined;
  const ip = parsed.value;
  const object = dump.ipAddresses.find((a) => {
    const named = ipAddressOfName(a.metadata.name ?? '');
    return named !== undefined && named.family === ip.family && named.value === ip.value;
  });
  const services: { namespace: string; name: string; field: string }[] = [];
  for (const service of dump.services) {
    const listed = service.spec?.clusterIPs !== undefined && service.spec.clusterIPs.length > 0;
    serviceClusterIPs(service).forEach((candidate, index) => {
      const other = parseIPSloppy(candidate);
      if (other.ok && other.value.family === ip.family && other.value.value === ip.value) {
        services.push({ namespace: service.metadata.namespace ?? 'default', name: service.metadata.name ?? '', field: listed ? `spec.clusterIPs[${index}]` : 'spec.clusterIP' });
      }
    });
  }
  const meta = newMetaAllocator(familyName(ip.family), dump.serviceCIDRs);
  const holdingIt = meta.ok ? meta.value.allocators.filter((entry) => prefixContainsIP(entry.allocator.cidr, ip)) : [];
  const cidrs = holdingIt.map((entry) => entry.cidr);
  const first = holdingIt[0]?.allocator;
  const bandOf = first === undefined ? 'out of range' : ip.value === first.first ? 'first' : ip.value < first.offsetAddress ? 'static' : 'dynamic';
  return {
    ip: formatIP(ip),
    cidrs,
    band: bandOf,
    ...(object === undefined
      ? {}
      : { ipAddress: holding(dump, object, holdingIt) }),
    services,
  };
}

function cidrLabel(cidr: string, pictures: readonly ServiceCIDRPicture[]): string {
  const names = pictures.find((p) => p.cidr === cidr)?.serviceCIDRs ?? [];
  return names.length === 0 ? cidr : `${cidr} (${names.join(', ')})`;
}

function bandRange(b: BandPicture): string {
  return b.first === '' ? '(none)' : `${b.first}-${b.last}`;
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? `${s}s` : `${s.toFixed(3)}s`;
}

/** RFC 3339 in UTC (whole seconds without a fraction), or the ms for a time a Date cannot hold. */
function isoTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? `${ms} ms since the epoch` : date.toISOString().replace('.000Z', 'Z');
}

function clockLine(clock: RepairClock): string {
  const at = isoTime(clock.now);
  if (clock.from === '--now') return `at ${at} (--now)`;
  if (clock.from === 'the input') return `at ${at} (the latest timestamp in the input)`;
  return 'with no timestamp in the input (every IPAddress reads as created at the zero time)';
}

function regardingText(e: IPAddressRepairEvent): string {
  return e.regarding.kind === 'Service' ? `Service ${e.regarding.namespace}/${e.regarding.name}` : `IPAddress ${e.regarding.name}`;
}

function writeText(w: IPAddressWrite): [string, string, string] {
  if (w.verb === 'delete') return ['delete', w.name, ''];
  return ['create', w.ipAddress.metadata.name ?? '', refText(w.ipAddress.spec?.parentRef)];
}

function orphanFate(o: OrphanedIPAddress, clock: RepairClock): string {
  if (o.deletedThisPass) return `this pass (past the ${seconds(IP_ADDRESS_REPAIR_GRACE_PERIOD_MS)} grace period)`;
  const at = isoTime(clock.now + o.afterMs);
  return `at ${at} (in ${seconds(o.afterMs)}) unless its Service appears`;
}

export function serviceCIDRTable(report: ServiceCIDRReport): string {
  let out = formatTable(
    ['CIDR', 'SERVICECIDR', 'FAMILY', 'READY', 'SIZE', 'USED', 'FREE', 'STATIC BAND', 'STATIC USED', 'DYNAMIC BAND', 'DYNAMIC USED'],
    report.cidrs.map((c) => [
      c.cidr,
      c.serviceCIDRs.join(','),
      c.family,
      c.ready ? 'yes' : 'no',
      c.size,
      String(c.used),
      c.free,
      bandRange(c.staticBand),
      `${c.staticBand.used}/${c.staticBand.size}`,
      bandRange(c.dynamicBand),
      `${c.dynamicBand.used}/${c.dynamicBand.size}`,
    ]),
  );
  for (const u of report.unusable) out += `ServiceCIDR ${u.serviceCIDR}: ${u.cidr} takes no IPs: ${u.message}\n`;
  if (report.ipAddresses.length > 0) {
    out += '\n';
    out += formatTable(
      ['IPADDRESS', 'CIDR', 'HELD BY (parentRef)'],
      report.ipAddresses.map((a) => [
        a.ip,
        a.cidrs.length === 0 ? '(none)' : a.cidrs.map((c) => cidrLabel(c, report.cidrs)).join(' '),
        `${a.heldBy}${a.parent === 'holds it' ? '' : ` (${a.parent})`}${a.managed ? '' : ', not managed by ipallocator.k8s.io'}`,
      ]),
    );
  }
  const repair = report.repair;
  const source = `one pass of the IPAddress repair loop (RepairIPAddress) ${clockLine(repair.clock)}`;
  out += '\n';
  if (!repair.hasDefaultServiceCIDR) out += 'no ServiceCIDR named kubernetes in the input: the repair loop waits for it before its first pass\n';
  if (repair.error !== undefined) return `${out}${source} fails: ${repair.error}\n`;
  if (repair.events.length === 0 && repair.writes.length === 0 && repair.orphans.length === 0) return `${out}${source}: nothing to repair\n`;
  out += `${source} reports:\n`;
  const parts: string[] = [];
  if (repair.events.length > 0) parts.push(formatTable(['REASON', 'OBJECT', 'MESSAGE'], repair.events.map((e) => [e.reason, regardingText(e), e.message])));
  if (repair.writes.length > 0) parts.push(formatTable(['WRITE', 'IPADDRESS', 'PARENTREF'], repair.writes.map(writeText)));
  if (repair.orphans.length > 0) {
    parts.push(
      formatTable(
        ['ORPHANED IPADDRESS', 'HELD BY', 'CREATED', 'DELETED'],
        repair.orphans.map((o) => [o.ip, `${o.parent} (not in the input)`, o.created ?? '(none)', orphanFate(o, repair.clock)]),
      ),
    );
  }
  return out + parts.join('\n');
}

export function serviceCIDRData(report: ServiceCIDRReport): Record<string, unknown> {
  const repair = report.repair;
  return {
    serviceCIDRs: report.cidrs,
    ...(report.unusable.length > 0 ? { unusableCIDRs: report.unusable } : {}),
    ipAddresses: report.ipAddresses,
    ipAddressRepair: {
      now: isoTime(repair.clock.now),
      nowFrom: repair.clock.from,
      hasDefaultServiceCIDR: repair.hasDefaultServiceCIDR,
      events: repair.events.map((e) => ({ reason: e.reason, action: e.action, regarding: regardingText(e), message: e.message })),
      writes: repair.writes.map((w) => {
        const [verb, name, parentRef] = writeText(w);
        return verb === 'create' ? { verb, name, parentRef } : { verb, name };
      }),
      orphans: repair.orphans,
      ...(repair.error !== undefined ? { error: repair.error } : {}),
    },
  };
}

export function lookupIPAddressTable(lookup: IPAddressLookup): string {
  const holders: string[] = [];
  if (lookup.ipAddress !== undefined) {
    const a = lookup.ipAddress;
    holders.push(`IPAddress ${a.ip} parentRef ${a.heldBy}${a.parent === 'holds it' ? '' : ` (${a.parent})`}${a.managed ? '' : ', not managed by ipallocator.k8s.io'}`);
  }
  for (const s of lookup.services) {
    const named = lookup.ipAddress?.heldBy === `Service ${s.namespace}/${s.name}`;
    if (!named) holders.push(`Service ${s.namespace}/${s.name} ${s.field}, without an IPAddress naming it`);
  }
  if (holders.length === 0) holders.push('(none)');
  const cidr = lookup.cidrs.length === 0 ? '-' : lookup.cidrs.join(' ');
  return formatTable(
    ['IP', 'CIDR', 'BAND', 'HELD BY'],
    holders.map((h, i) => (i === 0 ? [lookup.ip, cidr, lookup.band, h] : ['', '', '', h])),
  );
}

export function lookupIPAddressData(lookup: IPAddressLookup): Record<string, unknown> {
  return { ...lookup, cidrs: [...lookup.cidrs], services: [...lookup.services] };
}
