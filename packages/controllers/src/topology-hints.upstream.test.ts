// upstream (v1.33): staging/src/k8s.io/endpointslice/topologycache/ topologycache_test.go,
// utils_test.go and sliceinfo_test.go, as data (topology-hints.upstream.fixtures.ts).
import type { DiscoveryEndpoint, EndpointSlice, Node } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import {
  addTopologyHints,
  givingAndReceivingZones,
  hintsByZone,
  quantityMilliValue,
  redistributeHints,
  totalReadyEndpoints,
  zoneCPU,
  type ZoneAllocation,
} from './topology-hints.js';
import { addHintsCases, givingCases, hintsByZoneCases, redistributeCases, setNodesCases, totalReadyCases } from './topology-hints.upstream.fixtures.js';

type LooseEndpoint = Omit<DiscoveryEndpoint, 'addresses'> & { readonly addresses?: readonly string[] };

/** Upstream's cases leave addresses out where they do not matter; the type wants them. */
const endpoint = (ep: LooseEndpoint): DiscoveryEndpoint => ({ ...ep, addresses: [...(ep.addresses ?? [])] });

const slice = (endpoints: readonly LooseEndpoint[]): EndpointSlice => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: {},
  addressType: 'IPv4',
  endpoints: endpoints.map(endpoint),
});

const endpointsOf = (slices: readonly EndpointSlice[]): DiscoveryEndpoint[][] => slices.map((s) => [...(s.endpoints ?? [])]);

const counts = (m: ReadonlyMap<string, number> | undefined): Record<string, number> | null => (m === undefined ? null : Object.fromEntries(m));

const allocationsOf = (o: Readonly<Record<string, Partial<ZoneAllocation>>>): Map<string, ZoneAllocation> =>
  new Map(Object.entries(o).map(([zone, a]) => [zone, { minimum: a.minimum ?? 0, maximum: a.maximum ?? 0, desired: a.desired ?? 0 }]));

describe('topologycache TestAddHints', () => {
  it.each(addHintsCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const ratios = c.cpuRatiosByZone === null ? undefined : new Map(Object.entries(c.cpuRatiosByZone));
    const got = addTopologyHints({ toCreate: c.toCreate.map(slice), toUpdate: c.toUpdate.map(slice), unchanged: c.unchanged.map(slice) }, c.addressType, ratios, false);
    expect(endpointsOf(got.toCreate)).toEqual(c.expectedSlicesToCreate.map((s) => s.map(endpoint)));
    expect(endpointsOf(got.toUpdate)).toEqual(c.expectedSlicesToUpdate.map((s) => s.map(endpoint)));
    // Upstream compares the type and reason, and the message by its prefix.
    expect(got.events.map((e) => [e.type, e.reason])).toEqual(c.expectedEvents.map((e) => [e.type, e.reason]));
    got.events.forEach((e, i) => expect(e.message.startsWith(c.expectedEvents[i]?.message ?? '\0')).toBe(true));
    const expected = c.expectedEndpointsByAddrType as Readonly<Record<string, Readonly<Record<string, number>>>> | null;
    expect(counts(got.allocated)).toEqual(expected === null ? null : (expected[c.addressType] ?? null));
  });
});

describe('topologycache TestSetNodes', () => {
  it.each(setNodesCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const nodes: Node[] = c.nodes.map((n, i) => ({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: `node-${i}`, labels: { ...('labels' in n ? n.labels : {}), ...(n.zone === '' ? {} : { 'topology.kubernetes.io/zone': n.zone }) } },
      status: { allocatable: { cpu: n.cpu }, conditions: [{ type: 'Ready', status: n.ready }] },
    }));
    const got = zoneCPU(nodes);
    expect(got !== undefined).toBe(c.expectSufficientNodeInfo);
    expect(counts(got?.ratios)).toEqual(c.expectedRatios);
    const cpu = c.expectedCPUByZone as Readonly<Record<string, string>> | null;
    expect(got === undefined ? null : Object.fromEntries(got.cpuByZone)).toEqual(cpu === null ? null : Object.fromEntries(Object.entries(cpu).map(([z, q]) => [z, quantityMilliValue(q)])));
  });
});

describe('topologycache Test_redistributeHints', () => {
  it.each(redistributeCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const got = redistributeHints(c.slices.map(slice), new Map(Object.entries(c.givingZones)), new Map(Object.entries(c.receivingZones)));
    expect(counts(got)).toEqual(c.expectedRedistributions);
  });
});

describe('topologycache Test_getGivingAndReceivingZones', () => {
  it.each(givingCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const got = givingAndReceivingZones(allocationsOf(c.allocations), new Map(Object.entries(c.allocatedHintsByZone)));
    expect(counts(got.giving)).toEqual(c.expectedGivingZones);
    expect(counts(got.receiving)).toEqual(c.expectedReceivingZones);
  });
});

describe('topologycache Test_getHintsByZone', () => {
  it.each(hintsByZoneCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const got = hintsByZone(slice(c.slice), new Map(Object.entries(c.allocatedHintsByZone)), allocationsOf(c.allocations));
    expect(counts(got)).toEqual(c.expectedHintsByZone);
  });
});

/** upstream's sliceWithNEndpoints(ready, unready). */
const sliceWithN = ([ready, unready]: readonly number[]): EndpointSlice => {
  const r = ready ?? 0;
  const u = unready ?? 0;
  return slice([
    ...Array.from({ length: r }, (_, i) => ({ addresses: [`10.1.2.${i}`], conditions: { ready: true } })),
    ...Array.from({ length: u }, (_, i) => ({ addresses: [`10.1.2.${r + i}`], conditions: { ready: false } })),
  ]);
};

describe('topologycache Test_getTotalReadyEndpoints', () => {
  it.each(totalReadyCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const slices = { toCreate: c.toCreate.map(sliceWithN), toUpdate: c.toUpdate.map(sliceWithN), unchanged: c.unchanged.map(sliceWithN) };
    const all = [...slices.toCreate, ...slices.toUpdate, ...slices.unchanged];
    expect(all.reduce((n, s) => n + (s.endpoints ?? []).length, 0)).toBe(c.expectedTotal);
    expect(totalReadyEndpoints(slices)).toBe(c.expectedTotalReady);
  });
});
