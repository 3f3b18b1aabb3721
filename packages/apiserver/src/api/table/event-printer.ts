// `kubectl get events`: LAST SEEN TYPE REASON OBJECT MESSAGE [SUBOBJECT SOURCE FIRST SEEN COUNT
// NAME]. Note the column order: the wide columns sit between the default ones, and kubectl
// shows them in this order under `-o wide`.
// upstream: pkg/printers/internalversion/printers.go (eventColumnDefinitions, printEvent,
//           formatEventSource, translateMicroTimestampSince)
import type { Event } from '@kubesvc/api-types';
import { humanDuration, parseTimestamp, translateTimestampSince } from './human-duration.js';
import { asNumber, asRecord, asString, column, NAME_COLUMN, type ResourcePrinter } from './printer.js';

function firstNonEmpty(...values: readonly (string | undefined)[]): string {
  return values.find((v) => v !== undefined && v !== '') ?? '';
}

/** `component, host`, taking reportingController and reportingInstance where source is empty. */
export function formatEventSource(event: Event): string {
  const component = firstNonEmpty(event.source?.component, event.reportingComponent);
  const instance = firstNonEmpty(event.source?.host, event.reportingInstance);
  return instance === '' ? component : `${component}, ${instance}`;
}

function since(timestamp: string | null | undefined, now: number): string | undefined {
  const t = parseTimestamp(timestamp);
  return t === undefined ? undefined : humanDuration(now - t);
}

export const eventPrinter: ResourcePrinter<Event> = {
  columns: [
    column('Last Seen', 'string', 'How long ago the event last happened.'),
    column('Type', 'string', 'The type of the event: Normal or Warning.'),
    column('Reason', 'string', 'Why the event happened, in one word.'),
    column('Object', 'string', 'The object the event is about.'),
    column('Subobject', 'string', 'The part of the object the event is about.', { priority: 1 }),
    column('Source', 'string', 'The component, and host, that reported the event.', { priority: 1 }),
    column('Message', 'string', 'What happened, for a human.'),
    column('First Seen', 'string', 'How long ago the event first happened.', { priority: 1 }),
    column('Count', 'string', 'How many times the event happened.', { priority: 1 }),
    { ...NAME_COLUMN, priority: 1 },
  ],
  cells: (event, now) => {
    const firstSeen = since(event.firstTimestamp, now) ?? translateTimestampSince(event.eventTime, now);
    let lastSeen = since(event.lastTimestamp, now) ?? firstSeen;
    // events.k8s.io's series, when an event came through that API.
    const series = event['series'] === undefined || event['series'] === null ? undefined : asRecord(event['series']);
    let count = event.count ?? 0;
    if (series !== undefined) {
      lastSeen = translateTimestampSince(asString(series['lastObservedTime']), now);
      count = asNumber(series['count']);
    } else if (count === 0) {
      // Singleton events of the new API carry no count.
      count = 1;
    }
    const kind = (event.involvedObject.kind ?? '').toLowerCase();
    const name = event.involvedObject.name ?? '';
    return [
      lastSeen,
      event.type ?? '',
      event.reason ?? '',
      name === '' ? kind : `${kind}/${name}`,
      event.involvedObject.fieldPath ?? '',
      formatEventSource(event),
      (event.message ?? '').trim(),
      firstSeen,
      // upstream declares Count a string column and fills it with an int64
      count,
      event.metadata.name ?? '',
    ];
  },
};
