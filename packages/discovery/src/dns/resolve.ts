// Answers one question from a Zone, the way CoreDNS's kubernetes plugin does, within the
// Kubernetes DNS specification (schema 1.1.0).
// upstream: coredns plugin/kubernetes/{handler.go,kubernetes.go,parse.go,reverse.go,ns.go},
// plugin/backend_lookup.go (A, SRV, CNAME, PTR, SOA), plugin/kubernetes/xfr.go;
// kubernetes/dns docs/specification.md.
import { parseIP } from '@kubesvc/api-types';
import type { DnsRecord, Question, Rcode, Resolution, SoaRecord } from './records.js';
import { addressFromReverse } from './reverse-name.js';
import { ipKey, zoneAddress, type Zone, type ZoneAddress, type ZoneService } from './zone.js';

/** The schema version the `dns-version.<zone>` TXT record carries. upstream: coredns plugin/kubernetes/kubernetes.go DNSSchemaVersion */
export const DNS_SCHEMA_VERSION = '1.1.0';
/** TTL of the dns-version record. upstream: coredns plugin/kubernetes/kubernetes.go Services (TypeTXT) */
export const DNS_VERSION_TTL = 28800;
/** A CNAME chain longer than this is not followed. upstream: coredns plugin/backend_lookup.go A (len(previousRecords) > 7) */
const MAX_CNAME_CHAIN = 8;

export interface ResolveOptions {
  /**
   * Called for a name outside the served zones, an unknown reverse name, and the target of
   * an ExternalName service outside the cluster zone. Without it those are REFUSED,
   * NXDOMAIN, and a CNAME alone.
   */
  readonly forward?: (question: Question) => Resolution | undefined;
}

interface Ask {
  /** The name as asked, without the final dot. */
  readonly asked: string;
  readonly lower: string;
  readonly type: string;
}

/** One (address, port) a name stands for, or the CNAME target of an ExternalName service. */
interface AddressEntry {
  readonly kind: 'address';
  readonly address: ZoneAddress;
  readonly port: number;
  readonly portName: string;
  readonly target: string;
}
type Entry = AddressEntry | { readonly kind: 'cname'; readonly target: string };

interface Lookup {
  /** False: the name does not exist (NXDOMAIN). */
  readonly found: boolean;
  readonly entries: readonly Entry[];
}

const NOT_FOUND: Lookup = { found: false, entries: [] };
const EMPTY: Lookup = { found: true, entries: [] };

function reply(rcode: Rcode, answer: readonly DnsRecord[], authority: readonly DnsRecord[] = [], additional: readonly DnsRecord[] = []): Resolution {
  return { rcode, authoritative: true, answer, authority, additional };
}

const REFUSED: Resolution = { rcode: 'REFUSED', authoritative: false, answer: [], authority: [], additional: [] };
const FORMERR: Resolution = { rcode: 'FORMERR', authoritative: false, answer: [], authority: [], additional: [] };

/**
 * The SOA of a zone, spelled as the question spelled the zone. TTL min(ttl, 300), minimum ttl.
 * upstream: coredns plugin/backend_lookup.go SOA
 */
export function soaRecord(zone: Zone, zoneAsAsked: string): SoaRecord {
  return {
    name: zoneAsAsked,
    type: 'SOA',
    ttl: Math.min(zone.ttl, 300),
    class: 'IN',
    data: {
      mname: `ns.dns.${zoneAsAsked}`,
      rname: `hostmaster.${zoneAsAsked}`,
      serial: zone.serial,
      refresh: 7200,
      retry: 1800,
      expire: 86400,
      minimum: zone.ttl,
    },
  };
}

function empty(zone: Zone, zoneAsAsked: string, found: boolean): Resolution {
  return reply(found ? 'NOERROR' : 'NXDOMAIN', [], [soaRecord(zone, zoneAsAsked)]);
}

function equalFold(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function stripUnderscore(label: string): string {
  return label.startsWith('_') ? label.slice(1) : label;
}

function addressRecord(name: string, ttl: number, address: ZoneAddress): DnsRecord {
  return { name, type: address.ip.family === 4 ? 'A' : 'AAAA', ttl, class: 'IN', data: address.text };
}

interface ParsedName {
  readonly podOrSvc: 'svc' | 'pod';
  readonly namespace: string;
  readonly service: string;
  readonly endpoint: string;
  /** The `_port._proto` labels, underscores stripped; undefined when the name has none (every port matches). */
  readonly srv: { readonly port: string; readonly protocol: string } | undefined;
}

/** An entry that stands for an address alone: no port (CoreDNS's -1, which SRV skips) and no SRV target. */
function addressOnly(address: ZoneAddress): AddressEntry {
  return { kind: 'address', address, port: -1, portName: '', target: '' };
}

/**
 * Parses `[endpoint. | _port._proto.]service.namespace.(svc|pod)` (labels before the zone).
 * upstream: coredns plugin/kubernetes/parse.go parseRequest
 */
function lookupName(zone: Zone, labels: readonly string[], zoneAsAsked: string): Lookup {
  const n = labels.length;
  const last = labels[n - 1];
  if (last !== 'svc' && last !== 'pod') return NOT_FOUND;
  // `svc.<zone>` and `pod.<zone>` exist and hold nothing.
  if (n === 1) return EMPTY;
  const namespace = labels[n - 2] ?? '';
  if (!zone.namespaces.has(namespace)) return NOT_FOUND;
  // With pod records off nothing exists under pod.<zone> but the label itself.
  if (last === 'pod' && zone.podMode === 'disabled') return NOT_FOUND;
  if (n === 2) return EMPTY;
  if (n > 5) return NOT_FOUND;
  const rest = labels.slice(0, n - 3);
  const parsed: ParsedName = {
    podOrSvc: last,
    namespace,
    service: labels[n - 3] ?? '',
    endpoint: rest.length === 1 ? (rest[0] ?? '') : '',
    srv: rest.length === 2 ? { port: stripUnderscore(rest[0] ?? ''), protocol: stripUnderscore(rest[1] ?? '') } : undefined,
  };
  return parsed.podOrSvc === 'pod' ? findPod(zone, parsed) : findService(zone, parsed, zoneAsAsked);
}

/** upstream: coredns plugin/kubernetes/kubernetes.go findPods */
function findPod(zone: Zone, name: ParsedName): Lookup {
  // lookupName has already answered NXDOMAIN for every pod name when pod records are off.
  const label = name.service;
  const text = label.split('-').length === 4 && !label.includes('--') ? label.replaceAll('-', '.') : label.replaceAll('-', ':');
  const address = zoneAddress(text);
  if (address === undefined) return NOT_FOUND;
  if (zone.podMode === 'verified' && zone.podIPs.get(name.namespace)?.has(text) !== true) return NOT_FOUND;
  return { found: true, entries: [addressOnly(address)] };
}

function portMatches(name: ParsedName, port: { readonly name: string; readonly protocol: string }): boolean {
  if (name.srv === undefined) return true;
  // An empty `_` label would name an unnamed port; unnamed ports have no SRV name (spec §2.3.2).
  return name.srv.port !== '' && equalFold(name.srv.port, port.name) && equalFold(name.srv.protocol, port.protocol);
}

/** upstream: coredns plugin/kubernetes/kubernetes.go findServices */
function findService(zone: Zone, name: ParsedName, zoneAsAsked: string): Lookup {
  const service: ZoneService | undefined = zone.services.get(`${name.service}.${name.namespace}`);
  if (service === undefined) return NOT_FOUND;
  const fqdn = `${service.name}.${service.namespace}.svc.${zoneAsAsked}`;
  if (service.kind === 'externalName') {
    // An ExternalName has no endpoints, and an IP is not a CNAME target. Its ports are not
    // matched: `_<port>._<proto>.<name>` stands for the CNAME too, as in CoreDNS.
    if (name.endpoint !== '' || parseIP(service.externalName).ok) return NOT_FOUND;
    return { found: true, entries: [{ kind: 'cname', target: service.externalName }] };
  }
  const entries: Entry[] = [];
  if (service.kind === 'headless' || name.endpoint !== '') {
    for (const endpoint of service.endpoints) {
      if (name.endpoint !== '' && !equalFold(name.endpoint, endpoint.hostname)) continue;
      for (const port of endpoint.ports) {
        if (!portMatches(name, port)) continue;
        entries.push({ kind: 'address', address: endpoint, port: port.port, portName: port.name, target: `${endpoint.hostname}.${fqdn}` });
      }
    }
    return { found: entries.length > 0, entries };
  }
  let found = false;
  for (const port of service.ports) {
    if (!portMatches(name, port)) continue;
    found = true;
    for (const ip of service.clusterIPs) entries.push({ kind: 'address', address: ip, port: port.port, portName: port.name, target: fqdn });
  }
  return { found, entries };
}

function inZone(lower: string, origin: string): boolean {
  return lower === origin || lower.endsWith(`.${origin}`);
}

interface Context {
  readonly zone: Zone;
  readonly options: ResolveOptions;
}

/** The cluster-zone lookup of a name: its labels before the zone, then lookupName. */
function lookupClusterName(ctx: Context, lower: string, asked: string): Lookup {
  const origin = ctx.zone.origin;
  const zoneAsAsked = asked.slice(asked.length - origin.length);
  const base = lower.length === origin.length ? '' : lower.slice(0, lower.length - origin.length - 1);
  const labels = base === '' ? [] : base.split('.');
  if (labels.length === 0) return EMPTY;
  if (labels.length === 1 && labels[0] === 'dns-version') return EMPTY;
  if (labels.length === 2 && labels[0] === 'ns' && labels[1] === 'dns') {
    return { found: true, entries: ctx.zone.nameservers.map(addressOnly) };
  }
  return lookupName(ctx.zone, labels, zoneAsAsked);
}

/** A and AAAA, following CNAMEs. upstream: coredns plugin/backend_lookup.go A / AAAA */
function addressAnswers(ctx: Context, ask: Ask, lookup: Lookup, depth: number): DnsRecord[] {
  const family = ask.type === 'A' ? 4 : 6;
  const records: DnsRecord[] = [];
  const seen = new Set<string>();
  for (const entry of lookup.entries) {
    if (entry.kind === 'address') {
      if (entry.address.ip.family !== family) continue;
      const key = entry.address.text;
      if (seen.has(key)) continue;
      seen.add(key);
      records.push(addressRecord(ask.asked, ctx.zone.ttl, entry.address));
      continue;
    }
    const target = entry.target;
    const targetLower = target.toLowerCase();
    // x CNAME x is a loop; a chain past the limit is cut.
    if (targetLower === ask.lower || depth >= MAX_CNAME_CHAIN) continue;
    const cname: DnsRecord = { name: ask.asked, type: 'CNAME', ttl: ctx.zone.ttl, class: 'IN', data: target };
    if (inZone(targetLower, ctx.zone.origin)) {
      const next = addressAnswers(ctx, { asked: target, lower: targetLower, type: ask.type }, lookupClusterName(ctx, targetLower, target), depth + 1);
      // An in-cluster target that resolves to nothing drops the CNAME too.
      if (next.length > 0) records.push(cname, ...next);
      continue;
    }
    const forwarded = ctx.options.forward?.({ name: target, type: ask.type });
    records.push(cname, ...(forwarded?.answer ?? []));
  }
  return records;
}

/**
 * SRV answers and their address records, with CoreDNS's weights: 100 / n rounded down (at
 * least 1), where n counts every (target, port) the name stands for at priority 0.
 * upstream: coredns plugin/backend_lookup.go SRV
 */
function srvAnswers(ctx: Context, ask: Ask, lookup: Lookup): { answer: DnsRecord[]; additional: DnsRecord[] } {
  // Unnamed ports have no SRV record (spec §2.3.2); the -1 "no ports" sentinel is counted
  // in the weights and then skipped, as upstream does. An ExternalName's CNAME gets no SRV:
  // upstream's Services drops CNAME targets for SRV questions.
  const entries = lookup.entries.filter((e): e is AddressEntry => e.kind === 'address' && (e.portName !== '' || e.port === -1));
  const total = 100 * entries.length;
  const weight = Math.max(1, Math.floor((100 / total) * 100));
  const answer: DnsRecord[] = [];
  const additional: DnsRecord[] = [];
  // upstream's isDuplicate: one SRV per (target, port), one address record per (target,
  // address), targets compared as written.
  const seenSrv = new Set<string>();
  const seenAddress = new Set<string>();
  for (const entry of entries) {
    if (entry.port === -1) continue;
    const srvKey = `${entry.target} ${entry.port}`;
    if (!seenSrv.has(srvKey)) {
      seenSrv.add(srvKey);
      answer.push({ name: ask.asked, type: 'SRV', ttl: ctx.zone.ttl, class: 'IN', data: { priority: 0, weight, port: entry.port, target: entry.target } });
    }
    const addressKey = `${entry.target} ${entry.address.text}`;
    if (!seenAddress.has(addressKey)) {
      seenAddress.add(addressKey);
      additional.push(addressRecord(entry.target, ctx.zone.ttl, entry.address));
    }
  }
  return { answer, additional };
}

function resolveCluster(ctx: Context, ask: Ask): Resolution {
  const { zone } = ctx;
  const zoneAsAsked = ask.asked.slice(ask.asked.length - zone.origin.length);
  const apex = ask.lower === zone.origin;
  if (apex && ask.type === 'SOA') return reply('NOERROR', [soaRecord(zone, zoneAsAsked)]);
  if (apex && ask.type === 'NS') {
    const target = `ns.dns.${zoneAsAsked}`;
    const ns: DnsRecord = { name: ask.asked, type: 'NS', ttl: zone.ttl, class: 'IN', data: target };
    return reply('NOERROR', [ns], [], zone.nameservers.map((a) => addressRecord(target, zone.ttl, a)));
  }
  if (ask.type === 'TXT' && ask.lower === `dns-version.${zone.origin}`) {
    return reply('NOERROR', [{ name: ask.asked, type: 'TXT', ttl: DNS_VERSION_TTL, class: 'IN', data: [DNS_SCHEMA_VERSION] }]);
  }
  const lookup = lookupClusterName(ctx, ask.lower, ask.asked);
  let answer: DnsRecord[] = [];
  let additional: DnsRecord[] = [];
  switch (ask.type) {
    case 'A':
    case 'AAAA':
      answer = addressAnswers(ctx, ask, lookup, 0);
      break;
    case 'SRV':
      ({ answer, additional } = srvAnswers(ctx, ask, lookup));
      break;
    case 'CNAME': {
      // upstream: coredns plugin/backend_lookup.go CNAME (the first service, if it is a name)
      const first = lookup.entries[0];
      if (first?.kind === 'cname') answer = [{ name: ask.asked, type: 'CNAME', ttl: zone.ttl, class: 'IN', data: first.target }];
      break;
    }
  }
  if (answer.length > 0) return reply('NOERROR', answer, [], additional);
  return empty(zone, zoneAsAsked, lookup.found);
}

/**
 * The names an address points back to: a ClusterIP's one service, else every endpoint name of
 * the address. upstream: coredns plugin/kubernetes/reverse.go serviceRecordForIP
 */
function ptrTargets(zone: Zone, key: string): readonly string[] {
  const service = zone.clusterIPNames.get(key);
  return service !== undefined ? [service] : (zone.endpointNames.get(key) ?? []);
}

/** upstream: coredns plugin/kubernetes/reverse.go Reverse, plugin/backend_lookup.go PTR */
function resolveReverse(ctx: Context, ask: Ask, reverseZone: string, question: Question): Resolution {
  const { zone } = ctx;
  const zoneAsAsked = ask.asked.slice(ask.asked.length - reverseZone.length);
  if (ask.lower === reverseZone) {
    return ask.type === 'SOA' ? reply('NOERROR', [soaRecord(zone, zoneAsAsked)]) : empty(zone, zoneAsAsked, true);
  }
  const ip = addressFromReverse(ask.lower);
  const targets = ip === undefined ? [] : ptrTargets(zone, ipKey(ip));
  if (targets.length === 0) {
    // Unknown addresses fall through to the next resolver, as the default Corefile's
    // `fallthrough in-addr.arpa ip6.arpa` does.
    return ctx.options.forward?.(question) ?? empty(zone, zoneAsAsked, false);
  }
  if (ask.type !== 'PTR') return empty(zone, zoneAsAsked, true);
  return reply('NOERROR', targets.map((target) => ({ name: ask.asked, type: 'PTR', ttl: zone.ttl, class: 'IN', data: target })));
}

/**
 * Answers a question from the zone: the cluster zone, and its reverse zones (by default
 * in-addr.arpa and ip6.arpa) for PTRs. Names are compared without regard to letter case; answers carry the name as asked.
 * A missing name is NXDOMAIN, an existing one asked for a type it lacks is NOERROR with no
 * answer; both carry the zone's SOA in the authority section. Names outside go to the
 * forward hook, or are REFUSED.
 */
export function resolve(zone: Zone, question: Question, options: ResolveOptions = {}): Resolution {
  // A question that is not { name: string, type: string } (from JavaScript or unchecked JSON) is
  // a malformed query: FORMERR, as a DNS server answers a message it cannot read.
  const q: unknown = question;
  if (typeof q !== 'object' || q === null || typeof (q as { name?: unknown }).name !== 'string' || typeof (q as { type?: unknown }).type !== 'string') {
    return FORMERR;
  }
  const asked = question.name.endsWith('.') ? question.name.slice(0, -1) : question.name;
  const ask: Ask = { asked, lower: asked.toLowerCase(), type: question.type.toUpperCase() };
  const ctx: Context = { zone, options };
  const cluster = inZone(ask.lower, zone.origin);
  const reverseZone = cluster ? undefined : servingReverseZone(zone, ask.lower);
  if (!cluster && reverseZone === undefined) return options.forward?.(question) ?? REFUSED;
  // Zone transfers are refused in every served zone. upstream: coredns plugin/kubernetes/handler.go
  // ServeDNS returns RcodeRefused for them (the transfer plugin serves them when configured), and
  // core/dnsserver/server.go errorFunc writes a bare reply, without the AA bit.
  if (ask.type === 'AXFR' || ask.type === 'IXFR') return REFUSED;
  return reverseZone === undefined ? resolveCluster(ctx, ask) : resolveReverse(ctx, ask, reverseZone, question);
}

/** The longest reverse zone that holds the name. upstream: coredns plugin/normalize.go Zones.Matches */
function servingReverseZone(zone: Zone, lower: string): string | undefined {
  let best: string | undefined;
  for (const candidate of zone.reverseZones) {
    if (inZone(lower, candidate) && (best === undefined || candidate.length > best.length)) best = candidate;
  }
  return best;
}
