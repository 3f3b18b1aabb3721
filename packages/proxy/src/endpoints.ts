// EndpointSlices as the proxier sees them: per service port, the endpoints of the proxier's
// family with their conditions and topology hints, de-duplicated and sorted (the choice of
// usable endpoints among them: topology.ts).
// upstream: pkg/proxy/endpointslicecache.go (endpointInfoByServicePort, addEndpoints,
// endpointsMapFromEndpointInfo), pkg/proxy/endpoint.go (BaseEndpointInfo)

import { familyName, formatIP, LABEL_SERVICE_NAME, parseIPSloppy, type EndpointSlice } from '@kubesvc/api-types';
import { flat } from './flat.js';
import { canonicalIPv4Value, isCanonicalIPv4, isPortNumber, lowerProtocol, type L4Protocol } from './service-ports.js';

/**
 * One endpoint of a service port (BaseEndpointInfo). A large sync keeps 110,000 of them, and
 * every one the scavenger copies costs: five fields, the conditions packed into one. Its
 * `ip:port` text is made when asked for, which a large sync never does (sorting compares the IP
 * and port as the text would compare, proxy-iptables' rule kernel writes the IP and the port):
 * making 110,000 of them was a third of reading the slices.
 */
export class EndpointInfo {
  constructor(
    /** The IP, as Go prints it. */
    readonly ip: string,
    /** Its value when it is IPv4 (proxy-iptables' rule kernel prints it from the number), else -1. */
    readonly ipv4: number,
    readonly port: number,
    /** `:port`, shared by the endpoints of one slice port. */
    readonly portSuffix: string,
    /** BRACKETED, LOCAL, READY, SERVING, TERMINATING. */
    private readonly flags: number,
    /**
     * Its topology hints (`hints.forZones` and `hints.forNodes` names); undefined when it has
     * none, as most endpoints: one field, shared by the endpoints of one slice endpoint.
     */
    readonly hints: EndpointHints | undefined = undefined,
  ) {}

  /** Whether `ip:port` brackets the IP (IPv6). */
  get bracketed(): boolean {
    return (this.flags & BRACKETED) !== 0;
  }
  get isLocal(): boolean {
    return (this.flags & LOCAL) !== 0;
  }
  get ready(): boolean {
    return (this.flags & READY) !== 0;
  }
  get serving(): boolean {
    return (this.flags & SERVING) !== 0;
  }
  get terminating(): boolean {
    return (this.flags & TERMINATING) !== 0;
  }

  /** `ip:port`, `[ip]:port` for IPv6 (BaseEndpointInfo.String()), made anew each time. */
  get hostPort(): string {
    // One flat string: it is hashed and printed, and a rope would be walked each time.
    return flat(this.bracketed ? '[' + this.ip + ']' + this.portSuffix : this.ip + this.portSuffix);
  }
}

/**
 * An endpoint's topology hints (BaseEndpointInfo's zoneHints and nodeHints), each list without
 * duplicates; an empty list is a set of length 0 (no hints of that kind).
 */
/** Zone and node hint names, each sorted and without duplicates (made once per hints object). */
export interface EndpointHints {
  readonly zones: readonly string[];
  readonly nodes: readonly string[];
}

const NO_NAMES: readonly string[] = [];
type ApiHints = NonNullable<NonNullable<EndpointSlice['endpoints']>[number]['hints']>;
// Read once per slice endpoint's hints object, for all its ports and all syncs that see it.
const hintsRead = new WeakMap<ApiHints, EndpointHints | undefined>();

function hintNames(list: readonly { readonly name: string }[] | undefined): readonly string[] {
  if (list === undefined || list.length === 0) return NO_NAMES;
  const names: string[] = [];
  for (const { name } of list) if (!names.includes(name)) names.push(name);
  return names.sort(compareStrings);
}

/**
 * The hints of an EndpointSlice endpoint, as the proxier reads them (undefined when there are
 * none). upstream (v1.33): pkg/proxy/endpointslicecache.go (addEndpoints) reads forNodes only
 * with the PreferSameTrafficDistribution gate on; they are read here either way, and only used
 * with it on (categorizeEndpoints), which gives the same rules.
 */
export function readEndpointHints(hints: ApiHints | undefined): EndpointHints | undefined {
  if (hints === undefined) return undefined;
  if (hintsRead.has(hints)) return hintsRead.get(hints);
  const zones = hintNames(hints.forZones);
  const nodes = hintNames(hints.forNodes);
  const read = zones.length === 0 && nodes.length === 0 ? undefined : { zones, nodes };
  hintsRead.set(hints, read);
  return read;
}

/** Whether two endpoints' hints are the same sets. */
export function sameHints(a: EndpointHints | undefined, b: EndpointHints | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return sameNameSet(a.zones, b.zones) && sameNameSet(a.nodes, b.nodes);
}

/** Two sorted name lists without duplicates: the same set when they are equal. */
function sameNameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((name, i) => name === b[i]);
}

const BRACKETED = 1;
const LOCAL = 2;
const READY = 4;
const SERVING = 8;
const TERMINATING = 16;

function endpointFlags(bracketed: boolean, isLocal: boolean, ready: boolean, serving: boolean, terminating: boolean): number {
  return (bracketed ? BRACKETED : 0) | (isLocal ? LOCAL : 0) | (ready ? READY : 0) | (serving ? SERVING : 0) | (terminating ? TERMINATING : 0);
}

/** An endpoint's EndpointInfo: `ip` as Go prints it (IPv6 when it holds a colon). */
export function endpointInfo(
  ip: string,
  port: number,
  isLocal: boolean,
  ready: boolean,
  serving: boolean,
  terminating: boolean,
  hints?: EndpointHints,
): EndpointInfo {
  return new EndpointInfo(ip, canonicalIPv4Value(ip), port, ':' + String(port), endpointFlags(ip.includes(':'), isLocal, ready, serving, terminating), hints);
}

/** Whether two endpoints have the same `ip:port`. */
export function sameHostPort(a: EndpointInfo, b: EndpointInfo): boolean {
  return a.ip === b.ip && a.port === b.port;
}

/**
 * compareStrings(a.hostPort, b.hostPort) without the strings when both have the same port and
 * form: the IPs compared code unit by code unit, the end of an IP reading as the `:` (or `]`)
 * that follows it in the text.
 */
export function compareHostPorts(a: EndpointInfo, b: EndpointInfo): number {
  if (a.port !== b.port || a.bracketed !== b.bracketed) return compareStrings(a.hostPort, b.hostPort);
  const x = a.ip;
  const y = b.ip;
  if (x === y) return 0;
  // Where neither IP starts the other, they compare as their texts do (native comparisons).
  const end = a.bracketed ? 93 : 58; // `]` or `:`
  if (x.length < y.length && y.startsWith(x)) return end < y.charCodeAt(x.length) ? -1 : 1;
  if (y.length < x.length && x.startsWith(y)) return x.charCodeAt(y.length) < end ? -1 : 1;
  return x < y ? -1 : 1;
}

const NO_ENDPOINTS: readonly NonNullable<EndpointSlice['endpoints']>[number][] = [];

/** Key of a service port: namespace, service name, port name, protocol. */
export function servicePortKey(namespace: string, name: string, portName: string, protocol: L4Protocol): string {
  return `${namespace}\u0000${name}\u0000${portName}\u0000${protocol}`;
}

/** JavaScript's < on UTF-16 code units: the byte order of Go's string comparison for the ASCII names and addresses sorted here. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * All endpoints per service port, sorted by `ip:port` string as upstream sorts them. With
 * `anomalies`, sets `anomalies.found` when a slice holds anything endpointSliceDiagnostics
 * reports (and possibly when it does not): the caller then runs the diagnostics, which a large
 * cluster's well-formed slices spare a second pass over every endpoint. Slices of
 * another address family, or without the service-name label, are ignored. Upstream walks the
 * slices of a service in Go map order; here they are taken in slice-name order (this only
 * matters when one address appears twice with different conditions). A port without a name is
 * the unnamed port (the apiserver defaults it to ""), without a protocol TCP.
 */
export function endpointsMap(
  slices: readonly EndpointSlice[],
  family: 4 | 6,
  nodeName: string,
  anomalies?: { found: boolean },
): ReadonlyMap<string, readonly EndpointInfo[]> {
  const addressType = familyName(family);
  // A slice listed twice (same namespace and name) counts once, the last listing winning.
  let ordered: EndpointSlice[];
  const only = slices.length === 1 ? slices[0] : undefined;
  if (only !== undefined && only.addressType === addressType) {
    ordered = [only];
  } else {
    const byName = new Map<string, EndpointSlice>();
    let ofFamily = 0;
    for (const slice of slices) {
      if (slice.addressType !== addressType) continue;
      ofFamily++;
      byName.set(`${slice.metadata.namespace ?? 'default'}/${slice.metadata.name ?? ''}`, slice);
    }
    ordered = [...byName.values()];
    // The listing left out might hold what diagnostics report.
    if (anomalies !== undefined && ordered.length < ofFamily) anomalies.found = true;
  }
  if (ordered.length > 1) {
    ordered.sort(
      (a, b) =>
        compareStrings(a.metadata.namespace ?? '', b.metadata.namespace ?? '') ||
        compareStrings(a.metadata.name ?? '', b.metadata.name ?? ''),
    );
  }
  const bySP = new Map<string, EndpointInfo[]>();
  for (const slice of ordered) {
    const serviceName = slice.metadata.labels?.[LABEL_SERVICE_NAME];
    const namespace = slice.metadata.namespace ?? 'default';
    if (serviceName === undefined || serviceName === '') {
      if (anomalies !== undefined) anomalies.found = true;
      continue;
    }
    let examined = false;
    for (const port of slice.ports ?? []) {
      if (port.port === undefined || port.port === 0) {
        if (anomalies !== undefined) anomalies.found = true;
        continue;
      }
      if (anomalies !== undefined && !isPortNumber(port.port)) anomalies.found = true;
      const protocol = lowerProtocol(port.protocol);
      if (protocol === undefined) {
        if (anomalies !== undefined) anomalies.found = true;
        continue;
      }
      examined = true;
      const key = servicePortKey(namespace, serviceName, port.name ?? '', protocol);
      let list = bySP.get(key);
      if (list === undefined) {
        list = [];
        bySP.set(key, list);
      }
      appendEndpoints(list, slice, port.port, nodeName, anomalies);
    }
    // Endpoints no port made this look at: diagnostics look at them.
    if (anomalies !== undefined && !examined && (slice.endpoints ?? []).length > 0) anomalies.found = true;
  }
  // The lists are sorted and de-duplicated in place of the map that collected them: one map per call.
  const out = bySP as Map<string, readonly EndpointInfo[]>;
  for (const [key, list] of bySP) {
    if (list.length === 0) out.delete(key);
    else out.set(key, dedupeSorted(sortByHostPort(list)));
  }
  return out;
}

/**
 * Appends the endpoints of `slice` for its port numbered `portNumber` to `list`, as endpointsMap
 * reads them; sets `anomalies.found` for an endpoint it leaves out (no address, or one that does
 * not parse).
 */
function appendEndpoints(list: EndpointInfo[], slice: EndpointSlice, portNumber: number, nodeName: string, anomalies: { found: boolean } | undefined): void {
  const local = nodeName !== '';
  const portSuffix = ':' + String(portNumber);
  const endpoints = slice.endpoints ?? NO_ENDPOINTS;
  for (let e = 0; e < endpoints.length; e++) {
    const endpoint = endpoints[e] as (typeof endpoints)[number];
    const address = endpoint.addresses[0];
    let ip: string | undefined;
    let bracketed = false;
    const ipv4 = address === undefined ? -1 : canonicalIPv4Value(address);
    if (ipv4 >= 0) {
      // A dotted quad as Go prints it, most endpoints: the general parser is BigInt based.
      ip = address as string;
    } else {
      ip = address === undefined ? undefined : goIPString(address);
      // Go's ParseIPSloppy(...).String() prints "<nil>" for garbage; such an endpoint could
      // never be programmed, so it is left out.
      if (ip === undefined) {
        if (anomalies !== undefined) anomalies.found = true;
        continue;
      }
      bracketed = ip.includes(':');
    }
    const conditions = endpoint.conditions;
    list.push(
      new EndpointInfo(
        ip,
        ipv4,
        portNumber,
        portSuffix,
        endpointFlags(
          bracketed,
          local && endpoint.nodeName === nodeName,
          conditions?.ready ?? true,
          conditions?.serving ?? true,
          conditions?.terminating ?? false,
        ),
        endpoint.hints === undefined ? undefined : readEndpointHints(endpoint.hints),
      ),
    );
  }
}

/** The EndpointSlices of each Service, by namespace, then Service name. */
export type SlicesByService = ReadonlyMap<string, ReadonlyMap<string, readonly EndpointSlice[]>>;

/**
 * The slices of the proxier's family grouped by the Service they feed (their service-name
 * label), each group in slice-name order, a slice listed twice counted once (the last listing):
 * the slices endpointsMap reads, without reading their endpoints. servicePortEndpoints then reads
 * one service port's. Sets `anomalies.found` for a slice without the label or listed twice.
 */
export function slicesByService(slices: readonly EndpointSlice[], family: 4 | 6, anomalies?: { found: boolean }): SlicesByService {
  const addressType = familyName(family);
  // By namespace, then slice name: the last listing of a slice wins.
  const byName = new Map<string, Map<string, EndpointSlice>>();
  let ofFamily = 0;
  let kept = 0;
  for (const slice of slices) {
    if (slice.addressType !== addressType) continue;
    ofFamily++;
    const namespace = slice.metadata.namespace ?? 'default';
    let names = byName.get(namespace);
    if (names === undefined) {
      names = new Map();
      byName.set(namespace, names);
    }
    const name = slice.metadata.name ?? '';
    if (!names.has(name)) kept++;
    names.set(name, slice);
  }
  if (anomalies !== undefined && kept < ofFamily) anomalies.found = true;
  const groups = new Map<string, Map<string, EndpointSlice[]>>();
  for (const [namespace, names] of byName) {
    const services = new Map<string, EndpointSlice[]>();
    groups.set(namespace, services);
    for (const slice of names.values()) {
      const serviceName = slice.metadata.labels?.[LABEL_SERVICE_NAME];
      if (serviceName === undefined || serviceName === '') {
        if (anomalies !== undefined) anomalies.found = true;
        continue;
      }
      const group = services.get(serviceName);
      if (group === undefined) services.set(serviceName, [slice]);
      else group.push(slice);
    }
    for (const group of services.values()) {
      if (group.length > 1) group.sort((a, b) => compareStrings(a.metadata.name ?? '', b.metadata.name ?? ''));
    }
  }
  return groups;
}

/** The slices of one Service, in slice-name order. */
export function serviceSlices(groups: SlicesByService, namespace: string, name: string): readonly EndpointSlice[] {
  return groups.get(namespace)?.get(name) ?? NO_SLICES;
}

const NO_SLICES: readonly EndpointSlice[] = [];

/**
 * Calls `each` with every port of the slices that belongs to the service port `portName` /
 * `protocol`, as endpointsMap keys them (a port without a number or with an unsupported
 * protocol belongs to none; it sets `anomalies.found`).
 */
function forEachSlicePort(
  group: readonly EndpointSlice[],
  portName: string,
  protocol: L4Protocol,
  anomalies: { found: boolean } | undefined,
  each: (slice: EndpointSlice, portNumber: number) => void,
): void {
  for (const slice of group) {
    for (const port of slice.ports ?? NO_PORTS) {
      if (port.port === undefined || port.port === 0) {
        if (anomalies !== undefined) anomalies.found = true;
        continue;
      }
      if (anomalies !== undefined && !isPortNumber(port.port)) anomalies.found = true;
      const portProtocol = lowerProtocol(port.protocol);
      if (portProtocol === undefined) {
        if (anomalies !== undefined) anomalies.found = true;
        continue;
      }
      if (portProtocol === protocol && (port.name ?? '') === portName) each(slice, port.port);
    }
  }
}

const NO_PORTS: readonly NonNullable<EndpointSlice['ports']>[number][] = [];

/**
 * The endpoints of one service port from its Service's slices (serviceSlices): exactly the list
 * endpointsMap gives for its key, or an empty list. `examined` collects the slices whose
 * endpoints were read (checkUnexamined looks at the others).
 */
export function servicePortEndpoints(
  group: readonly EndpointSlice[],
  portName: string,
  protocol: L4Protocol,
  nodeName: string,
  examined?: Set<EndpointSlice>,
  anomalies?: { found: boolean },
): readonly EndpointInfo[] {
  if (group.length === 0) return NO_ENDPOINT_INFOS;
  const list: EndpointInfo[] = [];
  forEachSlicePort(group, portName, protocol, anomalies, (slice, portNumber) => {
    examined?.add(slice);
    appendEndpoints(list, slice, portNumber, nodeName, anomalies);
  });
  return list.length === 0 ? NO_ENDPOINT_INFOS : dedupeSorted(sortByHostPort(list));
}

const NO_ENDPOINT_INFOS: readonly EndpointInfo[] = [];

/** At least as many endpoints as servicePortEndpoints gives for the service port (it leaves out duplicates and addresses that do not parse). */
export function servicePortEndpointBound(group: readonly EndpointSlice[], portName: string, protocol: L4Protocol): number {
  let count = 0;
  forEachSlicePort(group, portName, protocol, undefined, (slice) => {
    count += (slice.endpoints ?? NO_ENDPOINTS).length;
  });
  return count;
}

/**
 * Sets `anomalies.found` when a slice of `groups` whose endpoints `examined` says were not read
 * has a port or an endpoint that endpointSliceDiagnostics reports (the slices of a headless
 * Service, or of a port no Service has).
 */
export function checkUnexamined(groups: SlicesByService, examined: ReadonlySet<EndpointSlice>, anomalies: { found: boolean }): void {
  for (const services of groups.values()) {
    for (const group of services.values()) {
      for (const slice of group) {
        if (examined.has(slice)) continue;
        for (const port of slice.ports ?? NO_PORTS) {
          if (port.port === undefined || port.port === 0 || !isPortNumber(port.port) || lowerProtocol(port.protocol) === undefined) {
            anomalies.found = true;
            return;
          }
        }
        for (const endpoint of slice.endpoints ?? NO_ENDPOINTS) {
          const address = endpoint.addresses[0];
          if (address === undefined || (canonicalIPv4Value(address) < 0 && goIPString(address) === undefined)) {
            anomalies.found = true;
            return;
          }
        }
      }
    }
  }
}

/**
 * One endpoint per `ip:port`, from a list sorted stably by it (so duplicates keep their input
 * order): a later duplicate replaces an earlier one unless it is terminating.
 */
function dedupeSorted(sorted: EndpointInfo[]): EndpointInfo[] {
  let duplicates = false;
  for (let i = 1; i < sorted.length; i++) {
    if (sameHostPort(sorted[i] as EndpointInfo, sorted[i - 1] as EndpointInfo)) {
      duplicates = true;
      break;
    }
  }
  if (!duplicates) return sorted;
  const out: EndpointInfo[] = [];
  for (const info of sorted) {
    const last = out[out.length - 1];
    if (last === undefined || !sameHostPort(last, info)) out.push(info);
    else if (!info.terminating) out[out.length - 1] = info;
  }
  return out;
}


/**
 * Sorts by `ip:port`, stably, in place. Short lists (a slice holds up to 100 endpoints, most
 * far fewer) are insertion-sorted inline: the built-in sort's calls into a comparator cost
 * more than the comparisons themselves, once per endpoint of a large sync.
 */
function sortByHostPort(list: EndpointInfo[]): EndpointInfo[] {
  if (list.length > 32) return list.sort(compareHostPorts);
  for (let i = 1; i < list.length; i++) {
    const item = list[i] as EndpointInfo;
    let j = i - 1;
    while (j >= 0 && compareHostPorts(list[j] as EndpointInfo, item) > 0) {
      list[j + 1] = list[j] as EndpointInfo;
      j--;
    }
    list[j + 1] = item;
  }
  return list;
}

/** net.ParseIPSloppy(address).String(), or undefined for an address that does not parse. */
function goIPString(address: string): string | undefined {
  // A canonical dotted quad is already what Go prints; the general parser is BigInt based.
  if (isCanonicalIPv4(address)) return address;
  const parsed = parseIPSloppy(address);
  return parsed.ok ? formatIP(parsed.value) : undefined;
}

/** The length of `ep.hostPort`, without making it. */
export function hostPortLength(ep: EndpointInfo): number {
  return ep.ip.length + ep.portSuffix.length + (ep.bracketed ? 2 : 0);
}
