// The last-change trigger time the endpoints and EndpointSlice controllers stamp on what they
// write (`endpoints.kubernetes.io/last-change-trigger-time`): the earliest of the pod and
// Service changes seen since the controller's last sync of the Service, or the Service's
// creation time the first time the controller syncs it. kube-proxy's network programming
// latency is measured from it.
// upstream (v1.33): pkg/controller/util/endpoint/trigger_time_tracker.go
//   (ComputeEndpointLastChangeTriggerTime, getPodTriggerTime, getServiceTriggerTime); the
//   controllers keep the tracker's state in memory, here the host keeps it (`remember`).
import type { Pod, Service } from '@kubesvc/api-types';

/** What the tracker knows of a Service after a sync: the trigger times it observed (ms; 0 = none). */
export interface TriggerTimeState {
  readonly service: number;
  /** Pod name → the pod's trigger time, for the pods that had one. */
  readonly pods: Readonly<Record<string, number>>;
}

export interface TriggerTime {
  /** The time to stamp, in ms; 0 (Go's zero time): none, and the annotation is removed. */
  readonly time: number;
  /** The state to keep for the next sync of the Service. */
  readonly state: TriggerTimeState;
}

/** An RFC 3339 timestamp in ms, or 0 (the zero time) when absent or unreadable. */
function timeOf(text: string | null | undefined): number {
  if (text === undefined || text === null || text === '') return 0;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? 0 : ms;
}

/** getPodTriggerTime: when the pod's Ready condition last changed. */
function podTriggerTime(pod: Pod): number {
  return timeOf(pod.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime);
}

/** min, where 0 is "not set yet". */
function earliest(current: number, value: number): number {
  return current === 0 || value < current ? value : current;
}

/**
 * ComputeEndpointLastChangeTriggerTime for one sync of a Service with the pods it selects,
 * given the state the last sync left (`known`, undefined for a Service not synced before).
 */
export function computeTriggerTime(service: Service, pods: readonly Pod[], known: TriggerTimeState | undefined): TriggerTime {
  const lastPods = known?.pods ?? {};
  let changed = 0;
  const podTimes: Record<string, number> = {};
  for (const pod of pods) {
    const time = podTriggerTime(pod);
    if (time === 0) continue;
    const name = pod.metadata.name ?? '';
    podTimes[name] = time;
    if (time > (lastPods[name] ?? 0)) changed = earliest(changed, time);
  }
  // getServiceTriggerTime: the Service's creation time (a change of its spec is not one).
  const serviceTime = timeOf(service.metadata.creationTimestamp);
  if (serviceTime > (known?.service ?? 0)) changed = earliest(changed, serviceTime);
  const state: TriggerTimeState = { service: serviceTime, pods: podTimes };
  // A Service the tracker did not know: its creation time.
  return { time: known === undefined ? serviceTime : changed, state };
}

/** A time as Go's time.RFC3339Nano prints it in UTC: fractional seconds without trailing zeros, none when whole. */
export function formatRFC3339Nano(ms: number): string {
  const iso = new Date(ms).toISOString();
  const [whole = '', fraction = ''] = iso.slice(0, -1).split('.');
  const trimmed = fraction.replace(/0+$/, '');
  return `${whole}${trimmed === '' ? '' : `.${trimmed}`}Z`;
}

/** The remembered value as a tracker state, or undefined when it is not one (nothing remembered). */
export function triggerTimeStateOf(remembered: unknown): TriggerTimeState | undefined {
  if (typeof remembered !== 'object' || remembered === null) return undefined;
  const candidate = remembered as Partial<TriggerTimeState>;
  return typeof candidate.service === 'number' && typeof candidate.pods === 'object' && candidate.pods !== null ? (candidate as TriggerTimeState) : undefined;
}
