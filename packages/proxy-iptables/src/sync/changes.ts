// Change detection: which Services may have changed since the last sync (by position when the
// caller passes the same arrays again, by key otherwise), and whether what they derive to (service
// ports and endpoints) changed in content. upstream: pkg/proxy/servicechangetracker.go and
// pkg/proxy/endpointschangetracker.go (a change whose result equals the previous state is dropped).

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { LABEL_SERVICE_NAME, familyName } from '@kubesvc/api-types';
import type { ServiceChainBatch, ServiceChainNames } from '../chain-names.js';
import { endpointChainHashes, endpointsMap, joinChainHashes, sameHostPort, sepNameAt, servicePortKey, type EndpointInfo } from '../endpoints.js';
import { compareServices, objectKey } from '../generate/generate-rules.js';
import type { ProxierConfig } from '../proxier-config.js';
import type { L4Protocol } from '../ruleset.js';
import { servicePortInfos, type ServicePortInfo } from '../service-ports.js';
import type { Placed, PortEntry, ServiceEntry, StateData } from './state.js';

export const EMPTY_SLICES: readonly EndpointSlice[] = [];
const NO_PORTS: ReadonlyMap<string, PortEntry> = new Map();

/** The slice's identity for the change tracker: its key, the service it feeds, its family. */
function sliceId(slice: EndpointSlice): string {
  return `${objectKey(slice.metadata.namespace, slice.metadata.name)}\u0000${slice.metadata.labels?.[LABEL_SERVICE_NAME] ?? ''}\u0000${slice.addressType}`;
}

export function sameObjects<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** ServicePortInfo equality, as upstream's tracker compares its servicePortInfo values. */
function sameInfo(a: ServicePortInfo, b: ServicePortInfo): boolean {
  return (
    a.nameString === b.nameString &&
    a.protocol === b.protocol &&
    a.clusterIP === b.clusterIP &&
    a.port === b.port &&
    a.nodePort === b.nodePort &&
    a.healthCheckNodePort === b.healthCheckNodePort &&
    a.clientIPAffinity === b.clientIPAffinity &&
    a.stickyMaxAgeSeconds === b.stickyMaxAgeSeconds &&
    a.externalPolicyLocal === b.externalPolicyLocal &&
    a.internalPolicyLocal === b.internalPolicyLocal &&
    sameObjects(a.externalIPs, b.externalIPs) &&
    sameObjects(a.loadBalancerVIPs, b.loadBalancerVIPs) &&
    sameObjects(a.loadBalancerSourceRanges, b.loadBalancerSourceRanges)
  );
}

export function sameEndpoints(a: readonly EndpointInfo[], b: readonly EndpointInfo[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined) return false;
    if (
      !sameHostPort(x, y) ||
      x.isLocal !== y.isLocal ||
      x.ready !== y.ready ||
      x.serving !== y.serving ||
      x.terminating !== y.terminating
    ) {
      return false;
    }
  }
  return true;
}

export function samePorts(a: readonly PortEntry[], b: readonly PortEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined || !sameInfo(x.info, y.info) || !sameEndpoints(x.endpoints, y.endpoints)) return false;
  }
  return true;
}

/** The service ports and endpoints of a Service, reusing the chain names `previous` knows. */
export function deriveService(
  service: Service,
  slices: readonly EndpointSlice[],
  config: ProxierConfig,
  previous: ServiceEntry | undefined,
  batch: ServiceChainBatch,
  placed: Map<readonly EndpointInfo[], Placed> | undefined,
): { ports: PortEntry[]; endpointCount: number } {
  // A first sync has nothing to reuse: no map per Service then.
  let oldPorts: ReadonlyMap<string, PortEntry> = NO_PORTS;
  if (previous !== undefined && previous.ports.length > 0) {
    const byName = new Map<string, PortEntry>();
    for (const port of previous.ports) byName.set(port.info.nameString + port.info.protocol, port);
    oldPorts = byName;
  }
  const chainNames =
    oldPorts.size === 0
      ? batch.defer
      : (spn: string, protocol: L4Protocol): ServiceChainNames => oldPorts.get(spn + protocol)?.info.chains ?? batch.defer(spn, protocol);
  const infos = servicePortInfos(service, config.family, chainNames);
  const epMap = slices.length === 0 ? undefined : endpointsMap(slices, config.family, config.nodeName);
  let endpointCount = 0;
  const ports = infos.map((info): PortEntry => {
    const endpoints = epMap?.get(servicePortKey(info.namespace, info.name, info.portName, info.protocol)) ?? [];
    endpointCount += endpoints.length;
    const old = oldPorts.size === 0 ? undefined : oldPorts.get(info.nameString + info.protocol);
    let sepHashes: string;
    if (old === undefined) {
      let at = -1;
      sepHashes = endpointChainHashes(config.kernel, info, endpoints, placed === undefined ? undefined : (where) => (at = where));
      if (placed !== undefined && at >= 0) placed.set(endpoints, at);
    } else if (sameEndpoints(old.endpoints, endpoints)) {
      sepHashes = old.sepHashes;
    } else {
      const known = new Map<string, string>();
      old.endpoints.forEach((ep, i) => known.set(ep.hostPort, sepNameAt(old.sepHashes, i)));
      const unknown = endpoints.filter((ep) => !known.has(ep.hostPort));
      const hashed = endpointChainHashes(config.kernel, info, unknown);
      unknown.forEach((ep, i) => known.set(ep.hostPort, sepNameAt(hashed, i)));
      sepHashes = joinChainHashes(endpoints.map((ep) => known.get(ep.hostPort) as string));
    }
    return { info, endpoints, sepHashes };
  });
  return { ports, endpointCount };
}

/** The most endpoints the slices of one Service hold: a bound on any of its service ports' endpoints. */
export function mostEndpoints(candidates: Iterable<Candidate>): number {
  let most = 0;
  for (const { slices } of candidates) {
    let count = 0;
    for (const slice of slices) count += (slice.endpoints ?? EMPTY_LIST).length * Math.max(1, (slice.ports ?? EMPTY_LIST).length);
    if (count > most) most = count;
  }
  return most;
}

const EMPTY_LIST: readonly never[] = [];

/** What the sync found per Service before rendering. */
export interface Candidate {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly service: Service;
  readonly slices: readonly EndpointSlice[];
  /** The entry of the previous sync under the same key, if any. */
  readonly previous: ServiceEntry | undefined;
}

export interface Matched {
  /** The previous entries that keep their positions (the cheap path), or undefined. */
  readonly base: readonly ServiceEntry[] | undefined;
  /** Position → what may have changed there: every position on the general path. */
  readonly work: ReadonlyMap<number, Candidate>;
  readonly count: number;
  readonly servicePos: Int32Array;
  readonly slicePos: Int32Array;
  /** Previous entries whose Service is gone. */
  readonly removed: readonly ServiceEntry[];
}

/**
 * The cheap path: both arrays have the lengths and, element by element, the keys of the last
 * call, so every entry keeps its position and only the elements that are other objects need a
 * look. Undefined when that does not hold.
 */
export function matchByPosition(prev: StateData, services: readonly Service[], slices: readonly EndpointSlice[]): Matched | undefined {
  if (services.length !== prev.servicesIn.length || slices.length !== prev.slicesIn.length) return undefined;
  const dirtyService = new Map<number, Service>();
  const dirtySlices = new Map<number, Map<EndpointSlice, EndpointSlice>>();
  for (let i = 0; i < services.length; i++) {
    const service = services[i];
    const old = prev.servicesIn[i];
    if (service === old) continue;
    if (service === undefined || old === undefined) return undefined;
    if (objectKey(service.metadata.namespace, service.metadata.name) !== objectKey(old.metadata.namespace, old.metadata.name)) return undefined;
    const pos = prev.servicePos[i] ?? -1;
    if (pos >= 0) dirtyService.set(pos, service);
  }
  for (let i = 0; i < slices.length; i++) {
    const slice = slices[i];
    const old = prev.slicesIn[i];
    if (slice === old) continue;
    if (slice === undefined || old === undefined) return undefined;
    if (sliceId(slice) !== sliceId(old)) return undefined;
    const pos = prev.slicePos[i] ?? -1;
    if (pos < 0) continue;
    let replaced = dirtySlices.get(pos);
    if (replaced === undefined) {
      replaced = new Map();
      dirtySlices.set(pos, replaced);
    }
    replaced.set(old, slice);
  }
  const work = new Map<number, Candidate>();
  for (const pos of [...dirtyService.keys(), ...dirtySlices.keys()]) {
    const entry = prev.entries[pos];
    if (entry === undefined || work.has(pos)) continue;
    const replaced = dirtySlices.get(pos);
    work.set(pos, {
      key: entry.key,
      namespace: entry.namespace,
      name: entry.name,
      service: dirtyService.get(pos) ?? entry.service,
      slices: replaced === undefined ? entry.slices : entry.slices.map((s) => replaced.get(s) ?? s),
      previous: entry,
    });
  }
  return {
    base: prev.entries,
    work,
    count: prev.entries.length,
    servicePos: prev.servicePos,
    slicePos: prev.slicePos,
    removed: [],
  };
}

function sameSlices(previous: readonly EndpointSlice[] | undefined, current: readonly EndpointSlice[]): readonly EndpointSlice[] {
  return previous !== undefined && sameObjects(previous, current) ? previous : current;
}

/** The general path: group and sort everything, then pair with the previous entries by key. */
export function matchByKey(prev: StateData | undefined, services: readonly Service[], slices: readonly EndpointSlice[], family: 4 | 6): Matched {
  const serviceKeys = services.map((s) => objectKey(s.metadata.namespace, s.metadata.name));
  const lastIndex = new Map<string, number>();
  serviceKeys.forEach((key, i) => lastIndex.set(key, i));
  const winners = [...lastIndex.values()];
  winners.sort((a, b) => {
    const x = services[a];
    const y = services[b];
    return x === undefined || y === undefined ? 0 : compareServices(x, y);
  });
  const servicePos = new Int32Array(services.length).fill(-1);
  const posOfKey = new Map<string, number>();
  winners.forEach((inputIndex, pos) => {
    servicePos[inputIndex] = pos;
    posOfKey.set(serviceKeys[inputIndex] ?? '', pos);
  });

  // Slices: of the proxier's family, the last listing of each name wins (as endpointsMap does).
  const addressType = familyName(family);
  const slicePos = new Int32Array(slices.length).fill(-1);
  const lastSlice = new Map<string, number>();
  slices.forEach((slice, i) => {
    if (slice.addressType === addressType) lastSlice.set(objectKey(slice.metadata.namespace, slice.metadata.name), i);
  });
  const slicesOf = new Map<number, EndpointSlice[]>();
  const sortedLast = [...lastSlice.values()].sort((a, b) => a - b);
  for (const i of sortedLast) {
    const slice = slices[i];
    const label = slice?.metadata.labels?.[LABEL_SERVICE_NAME];
    if (slice === undefined || label === undefined || label === '') continue;
    const pos = posOfKey.get(objectKey(slice.metadata.namespace, label));
    if (pos === undefined) continue;
    slicePos[i] = pos;
    let list = slicesOf.get(pos);
    if (list === undefined) {
      list = [];
      slicesOf.set(pos, list);
    }
    list.push(slice);
  }

  const previousByKey = new Map<string, ServiceEntry>();
  for (const entry of prev?.entries ?? []) previousByKey.set(entry.key, entry);
  const work = new Map<number, Candidate>();
  winners.forEach((inputIndex, pos) => {
    const service = services[inputIndex];
    if (service === undefined) return;
    const key = serviceKeys[inputIndex] ?? '';
    const previous = previousByKey.get(key);
    previousByKey.delete(key);
    work.set(pos, {
      key,
      namespace: service.metadata.namespace ?? 'default',
      name: service.metadata.name ?? '',
      service,
      // The previous array when it holds the same objects, so that an unchanged entry is kept as it is.
      slices: sameSlices(previous?.slices, slicesOf.get(pos) ?? EMPTY_SLICES),
      previous,
    });
  });
  return {
    base: undefined,
    work,
    count: winners.length,
    servicePos,
    slicePos,
    removed: [...previousByKey.values()],
  };
}
