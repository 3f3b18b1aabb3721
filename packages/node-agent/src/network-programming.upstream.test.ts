// Upstream's trigger-time vectors, transcribed as a table: which last-change-trigger-times the
// change tracker hands the next sync, per Service, after each scenario of slice events.
// upstream (v1.33): pkg/proxy/endpointschangetracker_test.go (TestLastChangeTriggerTime)
import type { EndpointSlice } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { NetworkProgrammingTracker } from './network-programming.js';

const startTime = Date.UTC(2018, 0, 1);
const t_1 = startTime - 1_000;
const t0 = startTime + 1_000;
const t1 = t0 + 1_000;
const t2 = t1 + 1_000;
const t3 = t2 + 1_000;

function createEndpoints(namespace: string, name: string, triggerTime: number): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace, annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': new Date(triggerTime).toISOString() }, labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['1.1.1.1'] }],
    ports: [{ name: 'p11', port: 11, protocol: 'TCP' }],
  };
}

function modifyEndpoints(slice: EndpointSlice, triggerTime: number): EndpointSlice {
  const port = slice.ports?.[0];
  return {
    ...slice,
    metadata: { ...slice.metadata, annotations: { ...slice.metadata.annotations, 'endpoints.kubernetes.io/last-change-trigger-time': new Date(triggerTime).toISOString() } },
    ports: [{ ...port, port: (port?.port ?? 0) + 1 }],
  };
}

function withoutAnnotation(slice: EndpointSlice): EndpointSlice {
  return { ...slice, metadata: { ...slice.metadata, annotations: {} } };
}

describe('NetworkProgrammingTracker (upstream TestLastChangeTriggerTime)', () => {
  const cases: readonly { name: string; scenario: (fp: NetworkProgrammingTracker) => void; expected: Record<string, number[]> }[] = [
    { name: 'Single addEndpoints', scenario: (fp) => fp.sliceUpdated(createEndpoints('ns', 'ep1', t0)), expected: { 'ns/ep1': [t0] } },
    {
      name: 'addEndpoints then updatedEndpoints',
      scenario: (fp) => {
        const e = createEndpoints('ns', 'ep1', t0);
        fp.sliceUpdated(e);
        fp.sliceUpdated(modifyEndpoints(e, t1));
      },
      expected: { 'ns/ep1': [t0, t1] },
    },
    {
      name: 'Add two endpoints then modify one',
      scenario: (fp) => {
        const e1 = createEndpoints('ns', 'ep1', t1);
        fp.sliceUpdated(e1);
        fp.sliceUpdated(createEndpoints('ns', 'ep2', t2));
        fp.sliceUpdated(modifyEndpoints(e1, t3));
      },
      expected: { 'ns/ep1': [t1, t3], 'ns/ep2': [t2] },
    },
    { name: 'Endpoints without annotation set', scenario: (fp) => fp.sliceUpdated(withoutAnnotation(createEndpoints('ns', 'ep1', t1))), expected: {} },
    { name: 'Endpoints create before tracker started', scenario: (fp) => fp.sliceUpdated(createEndpoints('ns', 'ep1', t_1)), expected: {} },
    {
      name: 'addEndpoints then deleteEndpoints',
      scenario: (fp) => {
        const e = createEndpoints('ns', 'ep1', t1);
        fp.sliceUpdated(e);
        fp.sliceRemoved(e);
      },
      expected: {},
    },
    {
      name: 'add then delete then add again',
      scenario: (fp) => {
        const e = createEndpoints('ns', 'ep1', t1);
        fp.sliceUpdated(e);
        fp.sliceRemoved(e);
        fp.sliceUpdated(modifyEndpoints(e, t2));
      },
      expected: { 'ns/ep1': [t2] },
    },
    { name: 'delete', scenario: (fp) => fp.sliceRemoved(createEndpoints('ns', 'ep1', t1)), expected: {} },
  ];
  it.each(cases)('$name', ({ scenario, expected }) => {
    const fp = new NetworkProgrammingTracker(startTime);
    scenario(fp);
    expect(Object.fromEntries(fp.checkout())).toEqual(expected);
    // A checkout leaves nothing for the next sync.
    expect(fp.checkout().size).toBe(0);
  });
});
