// upstream (v1.33): pkg/controller/util/endpoint/trigger_time_tracker_test.go, every case, as
// steps of one tracker: each step syncs the Service (created at `service`) with its pods (name →
// the Ready condition's lastTransitionTime) and expects the time to stamp (null: Go's zero time,
// no annotation); `deleteService` is DeleteService before the step.
import type { Pod, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { computeTriggerTime, formatRFC3339Nano, type TriggerTimeState } from './trigger-time.js';

// t0 = 2019-01-01T00:00:00Z, each next one a second later.
const t = (i: number): string => `2019-01-01T00:00:0${i}Z`;

interface Step {
  readonly service: number;
  readonly pods: Readonly<Record<string, number>>;
  readonly deleteService?: boolean;
  readonly expect: number | null;
}

const CASES: ReadonlyArray<{ readonly name: string; readonly steps: readonly Step[] }> = [
  { name: 'TestNewServiceNoPods', steps: [{ service: 2, pods: {}, expect: 2 }] },
  // Pods were created before the Service: the trigger time is the Service's creation.
  { name: 'TestNewServiceExistingPods', steps: [{ service: 3, pods: { pod1: 0, pod2: 1, pod3: 5 }, expect: 3 }] },
  {
    name: 'TestPodsAdded',
    steps: [
      { service: 0, pods: {}, expect: 0 },
      { service: 0, pods: { pod1: 2, pod2: 1 }, expect: 1 },
    ],
  },
  {
    name: 'TestPodsUpdated',
    steps: [
      { service: 0, pods: { pod1: 1, pod2: 2, pod3: 3 }, expect: 0 },
      { service: 0, pods: { pod1: 5, pod2: 4, pod3: 3 }, expect: 4 },
    ],
  },
  {
    name: 'TestPodsUpdatedNoOp',
    steps: [
      { service: 0, pods: { pod1: 1, pod2: 2, pod3: 3 }, expect: 0 },
      { service: 0, pods: { pod1: 1, pod2: 2, pod3: 3 }, expect: null },
    ],
  },
  {
    name: 'TestPodDeletedThenAdded',
    steps: [
      { service: 0, pods: { pod1: 1, pod2: 2 }, expect: 0 },
      { service: 0, pods: { pod1: 1 }, expect: null },
      { service: 0, pods: { pod1: 1, pod2: 4 }, expect: 4 },
    ],
  },
  {
    name: 'TestServiceDeletedThenAdded',
    steps: [
      { service: 0, pods: { pod1: 1, pod2: 2 }, expect: 0 },
      { service: 3, pods: { pod1: 1, pod2: 2 }, deleteService: true, expect: 3 },
    ],
  },
  // A change of the Service's spec is not a trigger time the tracker can tell.
  {
    name: 'TestServiceUpdatedNoPodChange',
    steps: [
      { service: 0, pods: { pod1: 1, pod2: 2 }, expect: 0 },
      { service: 0, pods: { pod1: 1, pod2: 2 }, expect: null },
    ],
  },
];

function serviceCreatedAt(i: number): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'ttNamespace1', name: 'my-service', creationTimestamp: t(i) } };
}

function podReadyAt(name: string, i: number): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'ttNamespace1', name }, status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: t(i) }] } };
}

describe('computeTriggerTime: upstream trigger_time_tracker_test.go', () => {
  for (const c of CASES) {
    it(c.name, () => {
      let state: TriggerTimeState | undefined;
      for (const step of c.steps) {
        if (step.deleteService === true) state = undefined;
        const pods = Object.entries(step.pods).map(([name, i]) => podReadyAt(name, i));
        const result = computeTriggerTime(serviceCreatedAt(step.service), pods, state);
        expect(result.time === 0 ? null : formatRFC3339Nano(result.time)).toBe(step.expect === null ? null : t(step.expect));
        state = result.state;
      }
    });
  }
});

describe('formatRFC3339Nano', () => {
  it('prints UTC with Go\'s RFC3339Nano: no fraction for whole seconds, trailing zeros trimmed', () => {
    expect(formatRFC3339Nano(Date.UTC(2026, 11, 2, 23, 57, 58))).toBe('2026-12-02T23:57:58Z');
    expect(formatRFC3339Nano(Date.UTC(2026, 11, 2, 23, 57, 58, 120))).toBe('2026-12-02T23:57:58.12Z');
    expect(formatRFC3339Nano(Date.UTC(2026, 11, 2, 23, 57, 58, 7))).toBe('2026-12-02T23:57:58.007Z');
  });
});
