// kube-proxy userspace mode's round-robin balancer (LoadBalancerRR), as a persistent value.
// Every operation returns a new balancer and leaves the one it was given valid; time (`now`,
// ms) and the shuffle's generator are inputs.
// upstream: pkg/proxy/userspace/roundrobin.go (v1.25, the last release with the userspace proxier)
import { err, ok, servicePortNameString, splitHostPort, type Endpoints, type Result, type ServicePortName } from '@kubesvc/api-types';
import { DEFAULT_AFFINITY_TTL_SECONDS } from './constants.js';
import { buildPortsToEndpointsMap } from './endpoints-map.js';
import {
  errMalformedSourceAddress,
  errMissingEndpoints,
  errMissingServiceEntry,
  type ErrUserspaceInput,
  type NextEndpointError,
} from './errors.js';
import { endpointsError, pickError } from './input-shape.js';
import { PersistentMap } from './persistent-map.js';
import { seededShuffle, type Shuffle } from './shuffle.js';

/** A Service's sessionAffinity: 'None', 'ClientIP', or '' for "not said" (upstream's zero value). */
export type AffinityType = string;

export interface AffinityEntry {
  readonly clientIP: string;
  readonly endpoint: string;
  /** ms, the `now` of the last pick that used or refreshed this entry. */
  readonly lastUsed: number;
}

export interface AffinityPolicy {
  readonly type: AffinityType;
  readonly ttlSeconds: number;
  /** client IP → its endpoint. */
  readonly clients: PersistentMap<AffinityEntry>;
}

export interface BalancerState {
  /** "ip:port" strings, in the order they are handed out. */
  readonly endpoints: readonly string[];
  /** The next round-robin position in `endpoints`. */
  readonly index: number;
  readonly affinity: AffinityPolicy;
}

export interface LoadBalancer {
  /** Keyed by servicePortNameString. */
  readonly services: PersistentMap<BalancerState>;
  /** The shuffle generator's state. */
  readonly seed: number;
  readonly shuffle: Shuffle;
}

export interface LoadBalancerOptions {
  readonly seed?: number;
  /** Defaults to `seededShuffle`; `keepOrder` fixes the order for tests. */
  readonly shuffle?: Shuffle;
}

/** The endpoint picked and the balancer advanced past the pick. */
export interface NextEndpointPick {
  readonly endpoint: string;
  readonly balancer: LoadBalancer;
}

/** A failed pick leaves the balancer as it was: the caller keeps the one it passed in. */
export type NextEndpointResult = Result<NextEndpointPick, NextEndpointError>;

export function createLoadBalancer(options: LoadBalancerOptions = {}): LoadBalancer {
  return { services: PersistentMap.empty(), seed: options.seed ?? 0, shuffle: options.shuffle ?? seededShuffle };
}

/** Whether a policy sticks clients: anything but '' and 'None'. upstream: isSessionAffinity */
export function isSessionAffinity(policy: AffinityPolicy): boolean {
  return policy.type !== '' && policy.type !== 'None';
}

export function balancerState(lb: LoadBalancer, spn: ServicePortName): BalancerState | undefined {
  return lb.services.get(servicePortNameString(spn));
}

function withState(lb: LoadBalancer, key: string, state: BalancerState, seed = lb.seed): LoadBalancer {
  return { services: lb.services.set(key, state), seed, shuffle: lb.shuffle };
}

/**
 * upstream: newServiceInternal. A missing entry is created with the given affinity (ttl 0 means
 * 10800 s). An existing entry only takes a non-empty affinity type: its ttl and endpoints stay.
 */
function ensureService(lb: LoadBalancer, key: string, type: AffinityType, ttlSeconds: number): { lb: LoadBalancer; state: BalancerState } {
  const existing = lb.services.get(key);
  if (existing === undefined) {
    const state: BalancerState = {
      endpoints: [],
      index: 0,
      affinity: { type, ttlSeconds: ttlSeconds === 0 ? DEFAULT_AFFINITY_TTL_SECONDS : ttlSeconds, clients: PersistentMap.empty() },
    };
    return { lb: withState(lb, key, state), state };
  }
  if (type === '' || type === existing.affinity.type) return { lb, state: existing };
  const state = { ...existing, affinity: { ...existing.affinity, type } };
  return { lb: withState(lb, key, state), state };
}

/** upstream: NewService. */
export function newService(lb: LoadBalancer, spn: ServicePortName, type: AffinityType, ttlSeconds: number): LoadBalancer {
  return ensureService(lb, servicePortNameString(spn), type, ttlSeconds).lb;
}

/** upstream: DeleteService — the entry and everything in it goes. */
export function deleteService(lb: LoadBalancer, spn: ServicePortName): LoadBalancer {
  const key = servicePortNameString(spn);
  if (!lb.services.has(key)) return lb;
  return { services: lb.services.delete(key), seed: lb.seed, shuffle: lb.shuffle };
}

/** upstream: ServiceHasEndpoints. */
export function serviceHasEndpoints(lb: LoadBalancer, spn: ServicePortName): boolean {
  return (balancerState(lb, spn)?.endpoints.length ?? 0) > 0;
}

/** Whole seconds since `since`, truncated toward zero as Go's int(d.Seconds()) does. */
function elapsedSeconds(now: number, since: number): number {
  return Math.trunc((now - since) / 1000);
}

/**
 * upstream: NextEndpoint. With ClientIP affinity and no reset, a client seen less than ttl
 * whole seconds ago gets its endpoint again (and its entry is refreshed); otherwise the
 * round-robin endpoint is returned, the index advances, and the client (with affinity) is
 * recorded against it. `clientAddr` is "host:port"; it is read only when affinity is on.
 */
export function nextEndpoint(
  lb: LoadBalancer,
  spn: ServicePortName,
  clientAddr: string,
  resetAffinity: boolean,
  now: number,
): NextEndpointResult {
  const wrong = pickError(spn, clientAddr, resetAffinity, now);
  if (wrong !== undefined) return err(wrong);
  const key = servicePortNameString(spn);
  const state = lb.services.get(key);
  if (state === undefined) return err(errMissingServiceEntry);
  if (state.endpoints.length === 0) return err(errMissingEndpoints);

  const sticky = isSessionAffinity(state.affinity);
  let clientIP = '';
  if (sticky) {
    const split = splitHostPort(clientAddr);
    if (!split.ok) return err(errMalformedSourceAddress(clientAddr, split.error.message));
    clientIP = split.value.host;
    if (!resetAffinity) {
      const entry = state.affinity.clients.get(clientIP);
      if (entry !== undefined && elapsedSeconds(now, entry.lastUsed) < state.affinity.ttlSeconds) {
        const clients = state.affinity.clients.set(clientIP, { ...entry, lastUsed: now });
        const next = { ...state, affinity: { ...state.affinity, clients } };
        return ok({ endpoint: entry.endpoint, balancer: withState(lb, key, next) });
      }
    }
  }

  const endpoint = state.endpoints[state.index] as string;
  const index = (state.index + 1) % state.endpoints.length;
  let affinity = state.affinity;
  if (sticky) {
    const clients = state.affinity.clients.set(clientIP, { clientIP, endpoint, lastUsed: now });
    affinity = { ...state.affinity, clients };
  }
  return ok({ endpoint, balancer: withState(lb, key, { endpoints: state.endpoints, index, affinity }) });
}

/** upstream: removeStaleAffinity — forget clients whose endpoint is not in `next`. */
function removeStaleAffinity(state: BalancerState, next: readonly string[]): BalancerState {
  const keep = new Set(next);
  const gone = new Set(state.endpoints.filter((e) => !keep.has(e)));
  if (gone.size === 0) return state;
  const clients = PersistentMap.from([...state.affinity.clients].filter(([, entry]) => !gone.has(entry.endpoint)));
  return { ...state, affinity: { ...state.affinity, clients } };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const x = [...a].sort();
  const y = [...b].sort();
  return x.every((v, i) => v === y[i]);
}

/** Sorted by Go's byte order, as sort.Strings does (every endpoint string is ASCII). */
function goSorted(items: readonly string[]): string[] {
  return [...items].sort();
}

function install(lb: LoadBalancer, key: string, state: BalancerState, endpoints: readonly string[]): LoadBalancer {
  const shuffled = lb.shuffle(endpoints, lb.seed);
  return withState(lb, key, { ...state, endpoints: shuffled.items, index: 0 }, shuffled.seed);
}

/**
 * The per-port body of upstream's OnEndpointsUpdate: when the set of endpoints changed (or the
 * entry is new), forget clients of removed endpoints, shuffle the new list and restart the
 * round robin at 0; an unchanged set keeps order, index and clients. An empty list is the port
 * dropping out of the Endpoints object: see `resetService`.
 */
export function setServicePortEndpoints(lb: LoadBalancer, spn: ServicePortName, endpoints: readonly string[]): LoadBalancer {
  if (endpoints.length === 0) return resetService(lb, spn);
  const key = servicePortNameString(spn);
  const existing = lb.services.get(key);
  if (existing !== undefined && sameSet(existing.endpoints, endpoints)) return lb;
  // Upstream compares with slicesEquiv, which sorts the new list in place whenever the lengths
  // match, so the shuffle then starts from the sorted list; otherwise from the given order.
  const input = existing !== undefined && existing.endpoints.length === endpoints.length ? goSorted(endpoints) : endpoints;
  const pruned = existing === undefined ? lb : withState(lb, key, removeStaleAffinity(existing, endpoints));
  const ensured = ensureService(pruned, key, '', 0);
  return install(ensured.lb, key, ensured.state, input);
}

/**
 * upstream: resetService — the port lost its endpoints: the entry stays (with its affinity
 * type and ttl) but its endpoints, index and clients are cleared. A missing entry stays missing.
 */
export function resetService(lb: LoadBalancer, spn: ServicePortName): LoadBalancer {
  const key = servicePortNameString(spn);
  const state = lb.services.get(key);
  if (state === undefined) return lb;
  return withState(lb, key, { endpoints: [], index: 0, affinity: { ...state.affinity, clients: PersistentMap.empty() } });
}

function portName(endpoints: Endpoints, port: string): ServicePortName {
  return { namespace: endpoints.metadata.namespace ?? '', name: endpoints.metadata.name ?? '', port };
}

/**
 * upstream: OnEndpointsAdd — every port with endpoints gets them, shuffled, index 0, even when
 * the set is unchanged; unlike an update it does not forget any client.
 */
export function onEndpointsAdd(lb: LoadBalancer, endpoints: Endpoints): Result<LoadBalancer, ErrUserspaceInput> {
  const wrong = endpointsError(endpoints);
  if (wrong !== undefined) return err(wrong);
  let out = lb;
  for (const [port, list] of buildPortsToEndpointsMap(endpoints)) {
    const key = servicePortNameString(portName(endpoints, port));
    const ensured = ensureService(out, key, '', 0);
    out = install(ensured.lb, key, ensured.state, list);
  }
  return ok(out);
}

/** upstream: OnEndpointsUpdate — ports of `next` are set; ports only in `prev` are reset. */
export function onEndpointsUpdate(lb: LoadBalancer, prev: Endpoints, next: Endpoints): Result<LoadBalancer, ErrUserspaceInput> {
  const wrong = endpointsError(prev, 'prev') ?? endpointsError(next, 'next');
  if (wrong !== undefined) return err(wrong);
  let out = lb;
  const seen = new Set<string>();
  for (const [port, list] of buildPortsToEndpointsMap(next)) {
    const spn = portName(next, port);
    out = setServicePortEndpoints(out, spn, list);
    seen.add(servicePortNameString(spn));
  }
  for (const port of buildPortsToEndpointsMap(prev).keys()) {
    const spn = portName(prev, port);
    if (!seen.has(servicePortNameString(spn))) out = resetService(out, spn);
  }
  return ok(out);
}

/** upstream: OnEndpointsDelete — every port of the object is reset, not deleted. */
export function onEndpointsDelete(lb: LoadBalancer, endpoints: Endpoints): Result<LoadBalancer, ErrUserspaceInput> {
  const wrong = endpointsError(endpoints);
  if (wrong !== undefined) return err(wrong);
  let out = lb;
  for (const port of buildPortsToEndpointsMap(endpoints).keys()) out = resetService(out, portName(endpoints, port));
  return ok(out);
}

/** upstream: CleanupStaleStickySessions — drop clients idle for ttl whole seconds or more. */
export function cleanupStaleStickySessions(lb: LoadBalancer, spn: ServicePortName, now: number): LoadBalancer {
  const key = servicePortNameString(spn);
  const state = lb.services.get(key);
  if (state === undefined) return lb;
  const ttl = state.affinity.ttlSeconds;
  const kept = [...state.affinity.clients].filter(([, e]) => elapsedSeconds(now, e.lastUsed) < ttl);
  if (kept.length === state.affinity.clients.size) return lb;
  return withState(lb, key, { ...state, affinity: { ...state.affinity, clients: PersistentMap.from(kept) } });
}
