// `kubesvc ips`: the ClusterIP allocation picture of a dump, who holds an IP, and what one run
// of the apiserver's ClusterIP repair loop would report. Pure.
import { formatCIDR, formatIP, parseCIDR, parseIP, parseIPSloppy, type CIDR, type RangeAllocation, type Service } from '@kubesvc/api-types';
import {
  allocatedIPs,
  ipAllocatorFree,
  ipAllocatorFromSnapshot,
  ipAllocatorUsed,
  ipOffset,
  ipRangeOf,
  newIPAllocator,
  repairClusterIPs,
  type ClusterIPLeaks,
  type ClusterIPRepairEvent,
  type IPAllocator,
} from '@kubesvc/ipallocator';
import type { Dump } from '../dump/load-dump.js';
import { formatTable } from '../output/output-format.js';

export interface RangePicture {
  readonly range: string;
  readonly family: 'IPv4' | 'IPv6';
  /** The API server's own service IP: network + 1, the kubernetes Service's. */
  readonly firstIP: string;
  readonly size: number;
  readonly used: number;
  readonly free: number;
  /** The static band (offsets below bandOffset): for IPs asked for by hand, used by automatic allocation only when the dynamic band is full. */
  readonly staticBand: { readonly first: string; readonly last: string; readonly size: number; readonly used: number };
  readonly dynamicBand: { readonly first: string; readonly last: string; readonly size: number; readonly used: number };
}

export interface LeakedIP {
  readonly ip: string;
  /**
   * The consecutive repair run that frees it. This report is the first run that sees the leak
   * (its counter starts at NUM_REPAIRS_BEFORE_LEAK_CLEANUP - 1 and is freed at 0): the 3rd.
   */
  readonly freedOnRun: number;
}

export interface IpsReport {
  readonly ranges: readonly RangePicture[];
  /** Whether the dump carried the stored RangeAllocation (without it, leaks cannot be seen). */
  readonly fromStoredSnapshot: boolean;
  readonly events: readonly ClusterIPRepairEvent[];
  readonly leaks: readonly LeakedIP[];
  /** A run that upstream's loop would end with an error. */
  readonly repairError?: string;
}

function storedSnapshot(networks: readonly CIDR[], allocations: readonly RangeAllocation[]): (RangeAllocation | undefined)[] {
  return networks.map((network) =>
    allocations.find((a) => {
      const parsed = parseCIDR(a.range ?? '');
      return parsed.ok && formatCIDR(parsed.value.cidr) === formatCIDR(network);
    }),
  );
}

function picture(allocator: IPAllocator): RangePicture {
  const { range } = allocator;
  const band = range.bandOffset;
  const at = (offset: number) => formatIP({ family: range.cidr.network.family, value: range.base + BigInt(offset) });
  let staticUsed = 0;
  for (const ip of allocatedIPs(allocator)) if (ipOffset(range, ip) < band) staticUsed++;
  const used = ipAllocatorUsed(allocator);
  return {
    range: range.rangeSpec,
    family: allocator.family,
    firstIP: at(0),
    size: range.max,
    used,
    free: ipAllocatorFree(allocator),
    staticBand: { first: band > 0 ? at(0) : '', last: band > 0 ? at(band - 1) : '', size: band, used: staticUsed },
    dynamicBand: { first: at(band), last: at(range.max - 1), size: range.max - band, used: used - staticUsed },
  };
}

function leaksOf(leaks: ClusterIPLeaks): LeakedIP[] {
  return Object.values(leaks)
    .flatMap((counters) => Object.entries(counters ?? {}))
    .map(([ip, counter]) => ({ ip, freedOnRun: counter + 2 }))
    .sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
}

/**
 * The picture after one repair run. With the stored RangeAllocation in the dump, the run starts
 * from it, as the apiserver's does (so leaks show). Without one, it starts from a snapshot that
 * holds every Service's IP, which is what a consistent store holds: duplicates, IPs out of range
 * and invalid IPs are then what it reports.
 */
export function ipsReport(dump: Dump, networks: readonly CIDR[]): IpsReport {
  const stored = storedSnapshot(networks, dump.rangeAllocations);
  const fromStoredSnapshot = stored.some((s) => s !== undefined);
  let snapshots: readonly (RangeAllocation | undefined)[] = stored;
  if (!fromStoredSnapshot) {
    const rebuilt = repairClusterIPs({ networks, services: dump.services });
    if (rebuilt.ok) snapshots = rebuilt.value.snapshots;
  }
  const run = repairClusterIPs({ networks, snapshots, services: dump.services });
  const written = run.ok ? run.value.snapshots : snapshots;
  const ranges = networks.map((network, i) => {
    const snapshot = written[i];
    const restored = snapshot === undefined ? undefined : ipAllocatorFromSnapshot(snapshot);
    return restored?.ok === true ? picture(restored.value) : picture(newIPAllocator(network));
  });
  return {
    ranges,
    fromStoredSnapshot,
    events: run.ok ? run.value.events : [],
    leaks: run.ok ? leaksOf(run.value.leaks) : [],
    ...(run.ok ? {} : { repairError: run.error.message }),
  };
}

export interface IpHolder {
  readonly kind: 'Service';
  readonly namespace: string;
  readonly name: string;
  /** `spec.clusterIPs[0]`. */
  readonly field: string;
}

export interface IpLookup {
  readonly ip: string;
  readonly range?: string;
  /** Where in the range: `first` (the kubernetes Service's), `static`, `dynamic`, or `out of range`. */
  readonly band: 'first' | 'static' | 'dynamic' | 'out of range';
  readonly holders: readonly IpHolder[];
}

function clusterIPsOf(service: Service): readonly string[] {
  const spec = service.spec;
  if (spec === undefined) return [];
  if (spec.clusterIPs !== undefined && spec.clusterIPs.length > 0) return spec.clusterIPs;
  return spec.clusterIP !== undefined ? [spec.clusterIP] : [];
}

/** Which Services hold `ip` (compared as addresses, so `10.096.0.010` is `10.96.0.10`), and where it lies in the ranges. */
export function lookupIP(dump: Dump, networks: readonly CIDR[], text: string): IpLookup | undefined {
  const parsed = parseIP(text);
  if (!parsed.ok) return undefined;
  const ip = parsed.value;
  const holders: IpHolder[] = [];
  for (const service of dump.services) {
    clusterIPsOf(service).forEach((candidate, index) => {
      const other = parseIPSloppy(candidate);
      if (other.ok && other.value.family === ip.family && other.value.value === ip.value) {
        holders.push({
          kind: 'Service',
          namespace: service.metadata.namespace ?? 'default',
          name: service.metadata.name ?? '',
          field: service.spec?.clusterIPs !== undefined && service.spec.clusterIPs.length > 0 ? `spec.clusterIPs[${index}]` : 'spec.clusterIP',
        });
      }
    });
  }
  for (const network of networks) {
    const range = ipRangeOf(network);
    const offset = ipOffset(range, ip);
    if (offset < 0) continue;
    const band = offset === 0 ? 'first' : offset < range.bandOffset ? 'static' : 'dynamic';
    return { ip: formatIP(ip), range: range.rangeSpec, band, holders };
  }
  return { ip: formatIP(ip), band: 'out of range', holders };
}

export function ipsTable(report: IpsReport): string {
  const ranges = formatTable(
    ['RANGE', 'FAMILY', 'SIZE', 'USED', 'FREE', 'STATIC BAND', 'STATIC USED', 'DYNAMIC BAND', 'DYNAMIC USED'],
    report.ranges.map((r) => [
      r.range,
      r.family,
      String(r.size),
      String(r.used),
      String(r.free),
      r.staticBand.size > 0 ? `${r.staticBand.first}-${r.staticBand.last}` : '(none)',
      `${r.staticBand.used}/${r.staticBand.size}`,
      `${r.dynamicBand.first}-${r.dynamicBand.last}`,
      `${r.dynamicBand.used}/${r.dynamicBand.size}`,
    ]),
  );
  const source = report.fromStoredSnapshot
    ? 'a repair run from the stored RangeAllocation'
    : 'a repair run (no RangeAllocation in the input: leaks cannot be seen)';
  let out = `${ranges}\n`;
  if (report.repairError !== undefined) return `${out}${source} fails: ${report.repairError}\n`;
  if (report.events.length === 0 && report.leaks.length === 0) return `${out}${source}: nothing to repair\n`;
  out += `${source} reports:\n`;
  if (report.events.length > 0) {
    out += formatTable(
      ['REASON', 'SERVICE', 'MESSAGE'],
      report.events.map((e) => [e.reason, `${e.service.namespace}/${e.service.name}`, e.message]),
    );
  }
  if (report.leaks.length > 0) {
    if (report.events.length > 0) out += '\n';
    out += formatTable(
      ['LEAKED IP', 'HELD BY', 'FREED BY'],
      report.leaks.map((l) => [l.ip, 'no Service', `the ${ordinal(l.freedOnRun)} repair run in a row that finds it leaked`]),
    );
  }
  return out;
}

function ordinal(n: number): string {
  return n === 1 ? '1st' : n === 2 ? '2nd' : n === 3 ? '3rd' : `${n}th`;
}

export function lookupTable(lookup: IpLookup): string {
  const holders = lookup.holders.length === 0 ? ['(none)'] : lookup.holders.map((h) => `${h.kind} ${h.namespace}/${h.name} ${h.field}`);
  return formatTable(
    ['IP', 'RANGE', 'BAND', 'HELD BY'],
    holders.map((h, i) => (i === 0 ? [lookup.ip, lookup.range ?? '-', lookup.band, h] : ['', '', '', h])),
  );
}

export function ipsData(report: IpsReport): Record<string, unknown> {
  return {
    ranges: report.ranges,
    fromStoredSnapshot: report.fromStoredSnapshot,
    repair: {
      events: report.events.map((e) => ({ reason: e.reason, service: `${e.service.namespace}/${e.service.name}`, message: e.message })),
      leaks: report.leaks,
      ...(report.repairError !== undefined ? { error: report.repairError } : {}),
    },
  };
}

export function lookupData(lookup: IpLookup): Record<string, unknown> {
  return { ...lookup, holders: [...lookup.holders] };
}
