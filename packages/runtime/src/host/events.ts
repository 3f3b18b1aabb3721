// How the control plane's controllers record their Warnings: as the events/v1 recorder writes
// them (the repair loops) and as the core/v1 recorder writes them (the default ServiceCIDR
// controller), through the registry, each read back by a core/v1 client.
// upstream: staging/src/k8s.io/client-go/tools/events/recorder.go (makeEvent),
//           pkg/apis/events/v1/conversion.go (how an events/v1 Event reads as a core/v1 Event),
//           staging/src/k8s.io/client-go/tools/record/event.go (makeEvent)
import type { Event, KubeObject } from '@kubesvc/api-types';
import type { Clock } from '@kubesvc/store';
import type { Registry, ResourceName, Logger, RegistryResult } from '@kubesvc/apiserver';
import type { CacheView } from '@kubesvc/controllers';
import { ok } from '@kubesvc/api-types';
import { EventCorrelator } from './event-correlator.js';

/** The object an event is about, as an ObjectReference names it. */
export interface EventRegarding {
  readonly apiVersion: string;
  readonly kind: string;
  /** '' for a cluster-scoped object: the event then goes to `default`, as both recorders put it. */
  readonly namespace: string;
  readonly name: string;
  /** Where the object's uid and resourceVersion are looked up (the informer's cache). */
  readonly resource: ResourceName;
}

export interface EventsV1 {
  readonly type: 'Warning' | 'Normal';
  readonly reason: string;
  readonly note: string;
  readonly action: string;
  readonly reportingController: string;
  readonly regarding: EventRegarding;
}

export interface CoreEvent {
  readonly type: 'Warning' | 'Normal';
  readonly reason: string;
  readonly message: string;
  readonly component: string;
  readonly regarding: EventRegarding;
}

/** metav1.MicroTime's RFC 3339 form with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** metav1.Time: RFC 3339 in whole seconds. */
function seconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * Writes events named `<object>.<UnixNano in hex>`, the nanoseconds made from the millisecond
 * clock and kept increasing so that two events never share a name.
 */
export class EventRecorder {
  private lastNano = 0n;
  private readonly correlator: EventCorrelator;

  constructor(
    private readonly registry: Registry,
    private readonly cache: CacheView,
    private readonly clock: Clock,
    private readonly hostname: string,
    private readonly logger: Logger,
  ) {
    this.correlator = new EventCorrelator(() => this.clock.now());
  }

  private nextNano(now: number): bigint {
    let nano = BigInt(now) * 1_000_000n;
    if (nano <= this.lastNano) nano = this.lastNano + 1n;
    this.lastNano = nano;
    return nano;
  }

  private involved(regarding: EventRegarding): Event['involvedObject'] {
    const { namespace, name } = regarding;
    const object = this.cache.get<KubeObject>(regarding.resource, namespace, name);
    const meta = (object as { metadata?: { uid?: string; resourceVersion?: string } } | undefined)?.metadata;
    return {
      kind: regarding.kind,
      ...(namespace === '' ? {} : { namespace }),
      name,
      apiVersion: regarding.apiVersion,
      ...(meta?.uid === undefined ? {} : { uid: meta.uid }),
      ...(meta?.resourceVersion === undefined ? {} : { resourceVersion: meta.resourceVersion }),
    };
  }

  /** What both recorders write the same way: the name, the namespace and the involved object. */
  private base(regarding: EventRegarding, now: number): { readonly namespace: string; readonly head: Pick<Event, 'apiVersion' | 'kind' | 'metadata' | 'involvedObject'> } {
    const namespace = regarding.namespace === '' ? 'default' : regarding.namespace;
    return {
      namespace,
      head: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${regarding.name}.${this.nextNano(now).toString(16)}`, namespace },
        involvedObject: this.involved(regarding),
      },
    };
  }

  /**
   * The events/v1 recorder's Event as a core/v1 client reads it: the note as the message, the
   * time in eventTime, reportingInstance `<controller>-<hostname>`; no source, count or
   * first/last timestamps (the deprecated fields of the old recorder).
   */
  async recordV1(event: EventsV1): Promise<RegistryResult<Event>> {
    const now = this.clock.now();
    const { namespace, head } = this.base(event.regarding, now);
    return this.write(namespace, {
      ...head,
      reason: event.reason,
      message: event.note,
      source: {},
      type: event.type,
      eventTime: microTime(now),
      action: event.action,
      reportingComponent: event.reportingController,
      reportingInstance: `${event.reportingController}-${this.hostname}`,
    });
  }

  /**
   * The core/v1 recorder's Event: source component, first and last timestamp, count 1; then
   * the correlator's answer: dropped as spam, created, or counted on the record it repeats
   * (a PATCH of count, lastTimestamp and message; created anew if that record is gone). The
   * result is what the API holds, or the event as made when it was dropped.
   */
  async recordCore(event: CoreEvent): Promise<RegistryResult<Event>> {
    const now = this.clock.now();
    const { namespace, head } = this.base(event.regarding, now);
    const made: Event = {
      ...head,
      reason: event.reason,
      message: event.message,
      source: { component: event.component },
      firstTimestamp: seconds(now),
      lastTimestamp: seconds(now),
      count: 1,
      type: event.type,
      reportingComponent: event.component,
      reportingInstance: '',
    };
    const correlated = this.correlator.correlate(made);
    if (correlated.action === 'skip') return ok(made);
    let stored: RegistryResult<Event> | undefined;
    if (correlated.action === 'patch') {
      const name = correlated.event.metadata.name ?? '';
      stored = await this.registry.patch<Event>('events', namespace, name, 'application/merge-patch+json', JSON.stringify(correlated.patch));
      // The record may have gone (an event's TTL, a deletion): then it is created anew.
      if (!stored.ok && stored.error.code !== 404) {
        this.logger.log('error', `Server rejected event '${name}' (will not retry!): ${stored.error.message}`);
        return stored;
      }
    }
    if (stored === undefined || !stored.ok) {
      const { resourceVersion: _rv, ...meta } = correlated.event.metadata;
      stored = await this.write(namespace, { ...correlated.event, metadata: meta });
    }
    if (stored.ok) this.correlator.updateState(stored.value);
    return stored;
  }

  private async write(namespace: string, object: Event): Promise<RegistryResult<Event>> {
    const r = await this.registry.create('events', namespace, object);
    // upstream's broadcaster logs a failed event write and drops the event.
    if (!r.ok) this.logger.log('error', `Server rejected event (will not retry!): ${r.error.message}`);
    return r;
  }
}
