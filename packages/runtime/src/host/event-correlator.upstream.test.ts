// upstream (v1.33): staging/src/k8s.io/client-go/tools/record/events_cache_test.go,
// TestEventCorrelator's scenarios. The clock advances by the scenario's interval at every
// reading, as client-go's IntervalClock does; each previous event is correlated and its result
// fed back as the server's state (UpdateState), then the new event is correlated.
import type { Event } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { CORRELATOR_DEFAULTS, EventCorrelator } from './event-correlator.js';

function makeEvent(reason: string, message: string, fieldPath = ''): Event {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `my-pod.${reason}`, namespace: 'my-ns' },
    involvedObject: { kind: 'Pod', name: 'my-pod', namespace: 'my-ns', uid: 'my-pod', apiVersion: 'v1', ...(fieldPath === '' ? {} : { fieldPath }) },
    reason,
    message,
    source: { component: 'eventTest' },
    count: 1,
    type: 'Normal',
  } as Event;
}

const duplicate = makeEvent('duplicate', 'me again');
const similar = makeEvent('similar', 'similar message', 'spec.containers{container1}');
const similarOtherContainer = makeEvent('similar', 'similar message', 'spec.containers{container2}');
const repeat = (n: number, e: Event): Event[] => Array.from({ length: n }, () => e);
// makeSimilarEvents: the template with messages prefix0, prefix1, ...
const similarMessages = (n: number): Event[] => Array.from({ length: n }, (_, i) => ({ ...similar, message: `${similar.message}${i}` }));
// makeUniqueEvents: reason and message both numbered.
const unique = (n: number): Event[] => Array.from({ length: n }, (_, i) => makeEvent(`reason:${i}`, `message:${i}`));

const { aggregateMaxEvents, spamBurst, aggregateIntervalSeconds } = CORRELATOR_DEFAULTS;
const COMBINED = `(combined from similar events): ${similar.message}`;

const SCENARIOS: ReadonlyArray<{ name: string; previous: Event[]; event: Event; interval: number; expect: { skip: true } | { count: number; message: string } }> = [
  { name: 'create-a-single-event', previous: [], event: makeEvent('first', 'i am first'), interval: 5, expect: { count: 1, message: 'i am first' } },
  { name: 'the-same-event-should-just-count', previous: repeat(1, duplicate), event: duplicate, interval: 5, expect: { count: 2, message: 'me again' } },
  {
    name: 'the-same-event-should-just-count-even-if-more-than-aggregate',
    previous: repeat(aggregateMaxEvents, duplicate),
    event: duplicate,
    interval: 30,
    expect: { count: aggregateMaxEvents + 1, message: 'me again' },
  },
  { name: 'the-same-event-is-spam-if-happens-too-frequently', previous: repeat(spamBurst + 1, duplicate), event: duplicate, interval: 1, expect: { skip: true } },
  { name: 'create-many-unique-events', previous: unique(30), event: makeEvent('unique', 'snowflake'), interval: 5, expect: { count: 1, message: 'snowflake' } },
  { name: 'similar-events-should-aggregate-event', previous: similarMessages(aggregateMaxEvents - 1), event: similar, interval: 5, expect: { count: 1, message: COMBINED } },
  { name: 'similar-events-many-times-should-count-the-aggregate', previous: similarMessages(aggregateMaxEvents), event: similar, interval: 5, expect: { count: 2, message: COMBINED } },
  { name: 'events-from-different-containers-do-not-aggregate', previous: repeat(1, similarOtherContainer), event: similar, interval: 5, expect: { count: 1, message: similar.message ?? '' } },
  {
    name: 'similar-events-whose-interval-is-greater-than-aggregate-interval-do-not-aggregate',
    previous: similarMessages(aggregateMaxEvents - 1),
    event: similar,
    interval: aggregateIntervalSeconds,
    expect: { count: 1, message: similar.message ?? '' },
  },
];

describe('EventCorrelator: upstream TestEventCorrelator', () => {
  for (const s of SCENARIOS) {
    it(s.name, () => {
      let t = Date.UTC(2026, 0, 1);
      const clock = (): number => (t += s.interval * 1000);
      const correlator = new EventCorrelator(clock);
      const stamp = (e: Event): Event => {
        const now = new Date(clock()).toISOString();
        return { ...e, firstTimestamp: now, lastTimestamp: now };
      };
      for (const previous of s.previous) {
        const r = correlator.correlate(stamp(previous));
        if (r.action !== 'skip') correlator.updateState(r.event);
      }
      const r = correlator.correlate(stamp(s.event));
      if ('skip' in s.expect) {
        expect(r.action).toBe('skip');
        return;
      }
      expect(r.action).toBe(s.expect.count > 1 ? 'patch' : 'create');
      if (r.action === 'skip') return;
      expect({ count: r.event.count, message: r.event.message }).toEqual(s.expect);
    });
  }

  it('a repeat is a patch of count, lastTimestamp and message on the first record, keeping its name and firstTimestamp', () => {
    let t = Date.UTC(2026, 0, 1, 0, 0, 0);
    const correlator = new EventCorrelator(() => t);
    const first = { ...duplicate, firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:00:00Z' };
    const created = correlator.correlate(first);
    expect(created.action).toBe('create');
    if (created.action !== 'create') return;
    correlator.updateState({ ...created.event, metadata: { ...created.event.metadata, resourceVersion: '41' } });
    t += 120_000;
    const again = correlator.correlate({ ...duplicate, metadata: { ...duplicate.metadata, name: 'my-pod.other' }, firstTimestamp: '2026-01-01T00:02:00Z', lastTimestamp: '2026-01-01T00:02:00Z' });
    expect(again).toEqual({
      action: 'patch',
      event: expect.objectContaining({ metadata: { name: 'my-pod.duplicate', namespace: 'my-ns', resourceVersion: '41' }, firstTimestamp: '2026-01-01T00:00:00Z', count: 2 }),
      patch: { count: 2, lastTimestamp: '2026-01-01T00:02:00Z', message: 'me again' },
    });
  });
});
