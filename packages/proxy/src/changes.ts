// Change tracking: which Services may have changed since the last sync (by position when the
// caller passes the same arrays again, by key otherwise), and whether what they derive to
// (service ports and endpoints) changed in content. What a backend keeps per Service beside
// (proxy-iptables: its rendered text and chain hashes) rides in its entries, which this reads
// only through TrackedEntry. upstream: pkg/proxy/servicechangetracker.go and
// pkg/proxy/endpointschangetracker.go (a change whose result equals the previous state is dropped).

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { LABEL_SERVICE_NAME, familyName } from '@kubesvc/api-types';
import { compareStrings, sameHints, sameHostPort, type EndpointInfo } from './endpoints.js';
import type { ServicePortInfo } from './service-ports.js';

export const EMPTY_SLICES: readonly EndpointSlice[] = [];

/** Key of a Service or EndpointSlice in an informer's store. */
export function objectKey(namespace: string | undefined, name: string | undefined): string {
  return `${namespace ?? 'default'}/${name ?? ''}`;
}

/** Our deterministic service order: by namespace, then name (byte order). */
export function compareServices(a: Service, b: Service): number {
  return (
    compareStrings(a.metadata.namespace ?? 'default', b.metadata.namespace ?? 'default') ||
    compareStrings(a.metadata.name ?? '', b.metadata.name ?? '')
  );
}

/** The slice's identity for the change tracker: its key, the service it feeds, its family. */
export function sliceId(slice: EndpointSlice): string {
  return `${objectKey(slice.metadata.namespace, slice.metadata.name)}\u0000${slice.metadata.labels?.[LABEL_SERVICE_NAME] ?? ''}\u0000${slice.addressType}`;
}

export function sameObjects<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** ServicePortInfo equality, as upstream's tracker compares its servicePortInfo values (what a backend attached is not compared). */
export function sameServicePortInfo(a: ServicePortInfo, b: ServicePortInfo): boolean {
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
      x.terminating !== y.terminating ||
      !sameHints(x.hints, y.hints)
    ) {
      return false;
    }
  }
  return true;
}

/** The most endpoints the slices of one Service hold: a bound on any of its service ports' endpoints. */
export function mostEndpoints(candidates: Iterable<Candidate<unknown>>): number {
  let most = 0;
  for (const { slices } of candidates) {
    let count = 0;
    for (const slice of slices) count += (slice.endpoints ?? EMPTY_LIST).length * Math.max(1, (slice.ports ?? EMPTY_LIST).length);
    if (count > most) most = count;
  }
  return most;
}

const EMPTY_LIST: readonly never[] = [];

/** What the tracker reads of a backend's entry for one Service. */
export interface TrackedEntry {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly service: Service;
  /** Its EndpointSlices of the proxier's family (the last listing of each name), in input order. */
  readonly slices: readonly EndpointSlice[];
}

/** What the tracker reads of the last sync's state (proxy-iptables' StateData has these fields). */
export interface TrackedState<E extends TrackedEntry> {
  /** The arrays of the last call, with per element the index of its entry (-1: ignored). */
  readonly servicesIn: readonly Service[];
  readonly servicePos: Int32Array;
  readonly slicesIn: readonly EndpointSlice[];
  readonly slicePos: Int32Array;
  /** In namespace, then name order. */
  readonly entries: readonly E[];
}

/** What the sync found per Service before rendering. */
export interface Candidate<E> {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly service: Service;
  readonly slices: readonly EndpointSlice[];
  /** The entry of the previous sync under the same key, if any. */
  readonly previous: E | undefined;
}

export interface Matched<E> {
  /** The previous entries that keep their positions (the cheap path), or undefined. */
  readonly base: readonly E[] | undefined;
  /** Position → what may have changed there: every position on the general path. */
  readonly work: ReadonlyMap<number, Candidate<E>>;
  readonly count: number;
  readonly servicePos: Int32Array;
  readonly slicePos: Int32Array;
  /** Previous entries whose Service is gone. */
  readonly removed: readonly E[];
}

/**
 * The cheap path: both arrays have the lengths and, element by element, the keys of the last
 * call, so every entry keeps its position and only the elements that are other objects need a
 * look. Undefined when that does not hold.
 */
export function matchByPosition<E extends TrackedEntry>(
  prev: TrackedState<E>,
  services: readonly Service[],
  slices: readonly EndpointSlice[],
): Matched<E> | undefined {
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
  const work = new Map<number, Candidate<E>>();
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
export function matchByKey<E extends TrackedEntry>(
  prev: TrackedState<E> | undefined,
  services: readonly Service[],
  slices: readonly EndpointSlice[],
  family: 4 | 6,
): Matched<E> {
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

  const previousByKey = new Map<string, E>();
  for (const entry of prev?.entries ?? []) previousByKey.set(entry.key, entry);
  const work = new Map<number, Candidate<E>>();
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

/** Where each key sits in a store's arrays (syncChanges' indexes: key → position). */
export interface StoreIndexes {
  readonly services: ReadonlyMap<string, number>;
  readonly slices: ReadonlyMap<string, number>;
}

/** One array against the last call's: which elements are the old ones, replaced in place, gone or new. */
interface Walk {
  /** New index → old index, for the elements of the last call (-1 for those appended). */
  readonly fromOld: Int32Array;
  /** New indices whose object replaced the old one's in place (same key). */
  readonly replaced: number[];
  /** Old indices whose key is gone. */
  readonly gone: number[];
  /** The new indices from here on were appended. */
  readonly kept: number;
}

/**
 * Pairs `now` with `old` as an event store changes an array: objects replaced in place, some
 * taken out (the rest closing up, in order), new keys appended. Undefined when `now` is not so
 * made from `old` (an element taken out whose key is still in `index`, or a replacement that
 * `sameIdentity` refuses).
 */
function walkEdits<T extends { readonly metadata: { readonly namespace?: string | undefined; readonly name?: string | undefined } }>(
  old: readonly T[],
  now: readonly T[],
  index: ReadonlyMap<string, number>,
  sameIdentity: (a: T, b: T) => boolean,
): Walk | undefined {
  const fromOld = new Int32Array(now.length).fill(-1);
  const replaced: number[] = [];
  const gone: number[] = [];
  let i = 0;
  for (let j = 0; j < old.length; j++) {
    const was = old[j] as T;
    const is = now[i];
    if (is === was) {
      fromOld[i++] = j;
      continue;
    }
    const key = objectKey(was.metadata.namespace, was.metadata.name);
    if (is !== undefined && objectKey(is.metadata.namespace, is.metadata.name) === key) {
      if (!sameIdentity(was, is)) return undefined;
      fromOld[i] = j;
      replaced.push(i++);
      continue;
    }
    // Taken out: then its key is nowhere in the new array.
    if (index.has(key)) return undefined;
    gone.push(j);
  }
  // What follows the old elements is new keys (the index holds each key once).
  if (index.size !== now.length) return undefined;
  return { fromOld, replaced, gone, kept: i };
}

/** An entry the edits touch, as it is gathered. */
interface Touch<E> {
  readonly previous: E | undefined;
  service: Service;
  /** Its previous slices replaced (by the new object) or gone (undefined). */
  replaced: Map<EndpointSlice, EndpointSlice | undefined> | undefined;
  /** Slices it gains, in input order (after its previous ones, which come earlier in the input). */
  readonly appended: EndpointSlice[];
}

/**
 * The path between the cheap one and the general one, for an event store's arrays (see
 * walkEdits): each element is paired with the last call's by position, so only the objects that
 * changed, came or went are keyed; a Service that came is placed by binary search among the
 * sorted entries, and the positions after a Service that came or went shift by one. The result
 * is what matchByKey gives for the same arrays, but `work` holds only the positions that may
 * have changed and `base` the previous entries at their new positions (undefined where a
 * Service came). Undefined when the arrays are not so related to the last call's.
 */
export function matchByEdits<E extends TrackedEntry>(
  prev: TrackedState<E>,
  services: readonly Service[],
  slices: readonly EndpointSlice[],
  indexes: StoreIndexes,
  family: 4 | 6,
): Matched<E> | undefined {
  const sw = walkEdits(prev.servicesIn, services, indexes.services, () => true);
  if (sw === undefined) return undefined;
  const lw = walkEdits(prev.slicesIn, slices, indexes.slices, (a, b) => sliceId(a) === sliceId(b));
  if (lw === undefined) return undefined;
  const entries = prev.entries;
  const n = entries.length;

  // The entries whose Service went, and the Services that came, in entry order.
  const goneEntry = new Uint8Array(n);
  for (const j of sw.gone) {
    const pos = prev.servicePos[j] ?? -1;
    if (pos < 0) return undefined;
    goneEntry[pos] = 1;
  }
  const came: { readonly i: number; readonly service: Service; readonly key: string; at: number; pos: number }[] = [];
  for (let i = sw.kept; i < services.length; i++) {
    const service = services[i] as Service;
    came.push({ i, service, key: objectKey(service.metadata.namespace, service.metadata.name), at: 0, pos: 0 });
  }
  came.sort((a, b) => compareServices(a.service, b.service));
  for (const c of came) {
    // The first entry that sorts after it (no entry has its key: a key that came was not in the last call).
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareServices((entries[mid] as E).service, c.service) < 0) lo = mid + 1;
      else hi = mid;
    }
    c.at = lo;
  }

  // Old position → new position (-1: gone), and the previous entries where they now stand.
  const count = n - sw.gone.length + came.length;
  const base = new Array<E>(count);
  const shift = new Int32Array(n);
  let out = 0;
  let k = 0;
  for (let p = 0; p <= n; p++) {
    for (; k < came.length && (came[k] as (typeof came)[number]).at === p; k++) (came[k] as (typeof came)[number]).pos = out++;
    if (p === n) break;
    if (goneEntry[p] === 1) {
      shift[p] = -1;
      continue;
    }
    shift[p] = out;
    base[out++] = entries[p] as E;
  }

  const touched = new Map<number, Touch<E>>();
  const touch = (pos: number): Touch<E> => {
    let t = touched.get(pos);
    if (t === undefined) {
      const previous = base[pos] as E;
      t = { previous, service: previous.service, replaced: undefined, appended: [] };
      touched.set(pos, t);
    }
    return t;
  };
  const servicePos = new Int32Array(services.length);
  for (let i = 0; i < sw.kept; i++) {
    const p = prev.servicePos[sw.fromOld[i] as number] ?? -1;
    if (p < 0) return undefined;
    servicePos[i] = shift[p] as number;
  }
  for (const c of came) {
    servicePos[c.i] = c.pos;
    touched.set(c.pos, { previous: undefined, service: c.service, replaced: undefined, appended: [] });
  }
  for (const i of sw.replaced) touch(servicePos[i] as number).service = services[i] as Service;

  // Slices: those of the last call follow their entry; those that came, and those that fed no
  // entry when a Service came, are placed by their Service's key.
  const replace = (pos: number, was: EndpointSlice, is: EndpointSlice | undefined): void => {
    const t = touch(pos);
    (t.replaced ??= new Map()).set(was, is);
  };
  for (const j of lw.gone) {
    const p = prev.slicePos[j] ?? -1;
    if (p >= 0 && shift[p] !== -1) replace(shift[p] as number, prev.slicesIn[j] as EndpointSlice, undefined);
  }
  const cameByKey = came.length > 0 ? new Map(came.map((c) => [c.key, c.pos])) : undefined;
  const addressType = familyName(family);
  const slicePos = new Int32Array(slices.length).fill(-1);
  for (let i = 0; i < slices.length; i++) {
    const slice = slices[i] as EndpointSlice;
    const j = i < lw.kept ? (lw.fromOld[i] as number) : -1;
    if (j >= 0) {
      const p = prev.slicePos[j] ?? -1;
      if (p >= 0) {
        const pos = shift[p] as number;
        slicePos[i] = pos;
        if (pos >= 0 && slice !== prev.slicesIn[j]) replace(pos, prev.slicesIn[j] as EndpointSlice, slice);
        continue;
      }
      // It fed no entry (its Service missing, or another family): only a Service that came can take it.
      if (cameByKey === undefined) continue;
    }
    const label = slice.metadata.labels?.[LABEL_SERVICE_NAME];
    if (slice.addressType !== addressType || label === undefined || label === '') continue;
    const key = objectKey(slice.metadata.namespace, label);
    let pos: number | undefined;
    if (j >= 0) pos = cameByKey?.get(key);
    else {
      const at = indexes.services.get(key);
      pos = at === undefined ? undefined : servicePos[at];
    }
    if (pos === undefined) continue;
    slicePos[i] = pos;
    touch(pos).appended.push(slice);
  }

  const work = new Map<number, Candidate<E>>();
  for (const [pos, t] of touched) {
    const previous = t.previous;
    let list: readonly EndpointSlice[];
    if (previous === undefined) list = t.appended.length > 0 ? t.appended : EMPTY_SLICES;
    else {
      const replaced = t.replaced;
      let next: EndpointSlice[] = [];
      for (const s of previous.slices) {
        if (replaced === undefined || !replaced.has(s)) next.push(s);
        else {
          const r = replaced.get(s);
          if (r !== undefined) next.push(r);
        }
      }
      if (t.appended.length > 0) next = next.concat(t.appended);
      list = sameSlices(previous.slices, next.length > 0 ? next : EMPTY_SLICES);
    }
    const service = t.service;
    work.set(pos, {
      key: previous?.key ?? objectKey(service.metadata.namespace, service.metadata.name),
      namespace: previous?.namespace ?? service.metadata.namespace ?? 'default',
      name: previous?.name ?? service.metadata.name ?? '',
      service,
      slices: list,
      previous,
    });
  }
  const removed: E[] = [];
  for (let p = 0; p < n; p++) if (goneEntry[p] === 1) removed.push(entries[p] as E);
  return { base, work, count, servicePos, slicePos, removed };
}
