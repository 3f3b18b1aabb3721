// What client-go's core/v1 event recorder does with an event before it reaches the API: the
// EventCorrelator. Similar events (the same source, object, type and reason) with more than 10
// different messages within 10 minutes are combined into one ("(combined from similar events):
// ..."); the same event seen again is counted on the first one's record (count, lastTimestamp,
// a PATCH) rather than written anew, which is what `kubectl describe` shows as "x3 over 2m"; and
// a source may burst 25 events about one object, then one every 5 minutes.
// upstream (v1.33): staging/src/k8s.io/client-go/tools/record/events_cache.go (getEventKey,
//   getSpamKey, EventSourceObjectSpamFilter, EventAggregator, eventLogger, EventCorrelator),
//   staging/src/k8s.io/client-go/tools/record/event.go (recordToSink, recordEvent),
//   staging/src/k8s.io/client-go/util/flowcontrol/throttle.go (the token bucket)
import type { Event } from '@kubesvc/api-types';

/** The recorder's defaults (events_cache.go). */
export const CORRELATOR_DEFAULTS = {
  lruCacheEntries: 4096,
  aggregateMaxEvents: 10,
  aggregateIntervalSeconds: 600,
  spamBurst: 25,
  spamQps: 1 / 300,
} as const;

/** A least-recently-used map of at most `size` entries (golang/groupcache's lru.Cache). */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly size: number) {}

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  add(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.size) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
  }
}

const involved = (e: Event): string[] => [e.involvedObject.kind ?? '', e.involvedObject.namespace ?? '', e.involvedObject.name ?? ''];
const source = (e: Event): string[] => [e.source?.component ?? '', e.source?.host ?? ''];

/** getEventKey: source, object (with its field path, uid and apiVersion), type, reason, message. */
export function eventKey(e: Event): string {
  return [...source(e), ...involved(e), e.involvedObject.fieldPath ?? '', e.involvedObject.uid ?? '', e.involvedObject.apiVersion ?? '', e.type ?? '', e.reason ?? '', e.message ?? ''].join('');
}

/** getSpamKey: source and object. */
function spamKey(e: Event): string {
  return [...source(e), ...involved(e), e.involvedObject.uid ?? '', e.involvedObject.apiVersion ?? ''].join('');
}

/** EventAggregatorByReasonFunc: the aggregate key (no message) and the local key (the message). */
function aggregateKeys(e: Event): { readonly aggregate: string; readonly local: string } {
  const aggregate = [...source(e), ...involved(e), e.involvedObject.uid ?? '', e.involvedObject.apiVersion ?? '', e.type ?? '', e.reason ?? '', e.reportingComponent ?? '', e.reportingInstance ?? ''].join('');
  return { aggregate, local: e.message ?? '' };
}

/** metav1.Time: RFC 3339 in whole seconds. */
function seconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

interface EventLog {
  readonly count: number;
  readonly firstTimestamp: string;
  readonly name: string;
  readonly resourceVersion: string;
}

/** What to do with one event: nothing (filtered), create it, or patch the record it repeats. */
export type Correlated =
  | { readonly action: 'skip' }
  | { readonly action: 'create'; readonly event: Event }
  | { readonly action: 'patch'; readonly event: Event; readonly patch: { readonly count: number; readonly lastTimestamp: string; readonly message: string } };

export class EventCorrelator {
  private readonly aggregates: Lru<{ keys: Set<string>; last: number }>;
  private readonly logs: Lru<EventLog>;
  private readonly buckets: Lru<{ tokens: number; at: number }>;

  constructor(private readonly now: () => number) {
    const size = CORRELATOR_DEFAULTS.lruCacheEntries;
    this.aggregates = new Lru(size);
    this.logs = new Lru(size);
    this.buckets = new Lru(size);
  }

  /** EventAggregate: the event, or a combined one once more than 10 messages were seen in 10 minutes; and its cache key. */
  private aggregate(event: Event, now: number): { readonly event: Event; readonly key: string } {
    const { aggregate, local } = aggregateKeys(event);
    let record = this.aggregates.get(aggregate);
    if (record === undefined || now - record.last > CORRELATOR_DEFAULTS.aggregateIntervalSeconds * 1000) record = { keys: new Set(), last: 0 };
    record.keys.add(local);
    record.last = now;
    this.aggregates.add(aggregate, record);
    if (record.keys.size < CORRELATOR_DEFAULTS.aggregateMaxEvents) return { event, key: eventKey(event) };
    // Do not let the set grow past the maximum (PopAny).
    const any = record.keys.values().next().value;
    if (any !== undefined) record.keys.delete(any);
    const t = seconds(now);
    const combined: Event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${event.involvedObject.name ?? ''}.${(BigInt(now) * 1_000_000n).toString(16)}`, namespace: event.metadata.namespace ?? '' },
      involvedObject: event.involvedObject,
      reason: event.reason ?? '',
      message: `(combined from similar events): ${event.message ?? ''}`,
      source: event.source ?? {},
      firstTimestamp: t,
      lastTimestamp: t,
      count: 1,
      type: event.type ?? '',
    } as Event;
    return { event: combined, key: aggregate };
  }

  /** The spam filter's token bucket for the event's source and object: whether to drop it. */
  private filtered(event: Event, now: number): boolean {
    const key = spamKey(event);
    const { spamBurst, spamQps } = CORRELATOR_DEFAULTS;
    const bucket = this.buckets.get(key) ?? { tokens: spamBurst, at: now };
    bucket.tokens = Math.min(spamBurst, bucket.tokens + ((now - bucket.at) / 1000) * spamQps);
    bucket.at = now;
    const accept = bucket.tokens >= 1;
    if (accept) bucket.tokens -= 1;
    this.buckets.add(key, bucket);
    return !accept;
  }

  /** EventCorrelate: aggregate, count against the first occurrence, then filter. */
  correlate(incoming: Event): Correlated {
    const now = this.now();
    const { event: aggregated, key } = this.aggregate(incoming, now);
    const last = this.logs.get(key);
    let observed = aggregated;
    if (last !== undefined && last.count > 0) {
      observed = {
        ...aggregated,
        metadata: { ...aggregated.metadata, name: last.name, resourceVersion: last.resourceVersion },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
    }
    this.logs.add(key, { count: observed.count ?? 1, firstTimestamp: observed.firstTimestamp ?? '', name: observed.metadata.name ?? '', resourceVersion: observed.metadata.resourceVersion ?? '' });
    if (this.filtered(observed, now)) return { action: 'skip' };
    if ((observed.count ?? 1) > 1) {
      return { action: 'patch', event: observed, patch: { count: observed.count ?? 1, lastTimestamp: observed.lastTimestamp ?? '', message: observed.message ?? '' } };
    }
    return { action: 'create', event: observed };
  }

  /** UpdateState: what the server holds now (its name and resourceVersion) for the event's key. */
  updateState(stored: Event): void {
    this.logs.add(eventKey(stored), {
      count: stored.count ?? 1,
      firstTimestamp: stored.firstTimestamp ?? '',
      name: stored.metadata.name ?? '',
      resourceVersion: stored.metadata.resourceVersion ?? '',
    });
  }
}
