// The trigger times behind kubeproxy_network_programming_duration_seconds: for each Service
// whose EndpointSlices changed since the last sync, the `endpoints.kubernetes.io/last-change-trigger-time`
// of each changed slice (the time the EndpointSlice controller saw the change that made the
// slice), kept until a sync that applied observes now minus each of them.
// upstream (v1.33): pkg/proxy/endpointschangetracker.go (EndpointSliceUpdate: a trigger time is
//           kept only when the slice is not being removed and the time is after the tracker's
//           start, a removal forgets the Service's times; checkoutTriggerTimes;
//           getLastChangeTriggerTime: an annotation that does not parse is no time),
//           pkg/proxy/iptables/proxier.go and pkg/proxy/nftables/proxier.go (syncProxyRules: the
//           times are checked out as the sync begins and observed once it has applied)
import { LABEL_SERVICE_NAME, type EndpointSlice } from '@kubesvc/api-types';

/** The annotation the EndpointSlice controller writes: the time of the change that made the slice. */
export const ANNOTATION_LAST_CHANGE_TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * A time written as Go's time.RFC3339Nano, in milliseconds since the epoch (with the fraction
 * of a millisecond), or undefined when the text is not one.
 */
export function parseRFC3339Nano(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction, , sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const base = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC rolls an impossible day (Feb 30) over; Go refuses it.
  if (new Date(base).getUTCDate() !== day) return undefined;
  const offsetMinutes = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const fractionMs = fraction === undefined ? 0 : Number(`0${fraction}`) * 1000;
  return base - offsetMinutes * 60_000 + fractionMs;
}

/** The slice's trigger time, or undefined when it has none (or one that does not parse). */
export function lastChangeTriggerTime(slice: EndpointSlice): number | undefined {
  const text = slice.metadata.annotations?.[ANNOTATION_LAST_CHANGE_TRIGGER_TIME];
  return text === undefined ? undefined : parseRFC3339Nano(text);
}

function serviceKey(slice: EndpointSlice): string | undefined {
  const service = slice.metadata.labels?.[LABEL_SERVICE_NAME];
  if (service === undefined || service === '') return undefined;
  return `${slice.metadata.namespace ?? ''}/${service}`;
}

/** The trigger times of the changes not synced yet, per Service (`namespace/name`). */
export class NetworkProgrammingTracker {
  private times = new Map<string, number[]>();

  /** `startMs`: when the tracker (the proxier) started; older trigger times are never kept. */
  constructor(private readonly startMs: number) {}

  /** A slice was added or updated. */
  sliceUpdated(slice: EndpointSlice): void {
    const key = serviceKey(slice);
    if (key === undefined) return;
    const t = lastChangeTriggerTime(slice);
    // A time at or before the start is from before this proxier saw anything: after a restart,
    // every slice arrives with the time of its last change, maybe hours ago.
    if (t === undefined || !(t > this.startMs)) return;
    const list = this.times.get(key);
    if (list === undefined) this.times.set(key, [t]);
    else list.push(t);
  }

  /** A slice was deleted: its annotation is the time of its last update, not of the deletion, so the Service's times are dropped. */
  sliceRemoved(slice: EndpointSlice): void {
    const key = serviceKey(slice);
    if (key !== undefined) this.times.delete(key);
  }

  /** Takes the times kept so far, leaving none. */
  checkout(): ReadonlyMap<string, readonly number[]> {
    const out = this.times;
    this.times = new Map();
    return out;
  }
}
