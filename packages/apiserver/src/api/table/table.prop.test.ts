// INV-TABLE-SHAPE and INV-TABLE-AGE in docs/invariants.md.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { humanDuration } from './human-duration.js';
import { printTable, type PrintableObject, type TableResource } from './print-table.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const YEAR = 365 * 24 * 3600 * 1000;

const timestampArb = fc.oneof(
  fc.date({ min: new Date(NOW - 10 * YEAR), max: new Date(NOW + 60_000), noInvalidDate: true }).map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')),
  fc.constantFrom(null, '', '0001-01-01T00:00:00Z'),
);
const opt = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined });
const wordArb = fc.string({ maxLength: 8 });
const ipArb = fc.oneof(fc.ipV4(), fc.ipV6());
const labelsArb = fc.dictionary(fc.oneof(wordArb, wordArb.map((w) => `node-role.kubernetes.io/${w}`), fc.constant('kubernetes.io/role')), wordArb, { maxKeys: 4 });
const metaArb = fc.record(
  { name: wordArb, namespace: wordArb, resourceVersion: fc.nat().map(String), creationTimestamp: timestampArb, deletionTimestamp: timestampArb, labels: labelsArb },
  { requiredKeys: ['name'] },
);
const strip = <T extends object>(o: T): T => JSON.parse(JSON.stringify(o)) as T;

const serviceArb = fc.record({
  metadata: metaArb,
  spec: fc.record(
    {
      type: fc.constantFrom('ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName', 'Foo'),
      clusterIP: fc.oneof(ipArb, fc.constant('None')),
      clusterIPs: fc.array(ipArb, { maxLength: 2 }),
      externalIPs: fc.array(ipArb, { maxLength: 3 }),
      externalName: wordArb,
      selector: fc.dictionary(wordArb, wordArb, { maxKeys: 3 }),
      ports: fc.array(fc.record({ port: fc.integer({ min: 1, max: 65535 }), nodePort: opt(fc.integer({ min: 0, max: 32767 })), protocol: fc.constantFrom('TCP', 'UDP', 'SCTP') }), { maxLength: 4 }),
    },
    { requiredKeys: [] },
  ),
  status: fc.record({ loadBalancer: fc.record({ ingress: fc.array(fc.record({ ip: opt(ipArb), hostname: opt(wordArb) }), { maxLength: 3 }) }) }),
});

const addressArb = fc.record({ ip: ipArb });
const endpointsArb = fc.record({
  metadata: metaArb,
  subsets: opt(fc.array(fc.record({ addresses: opt(fc.array(addressArb, { maxLength: 4 })), notReadyAddresses: opt(fc.array(addressArb, { maxLength: 2 })), ports: opt(fc.array(fc.record({ port: fc.integer({ min: 1, max: 65535 }) }), { maxLength: 3 })) }), { maxLength: 3 })),
});

const sliceArb = fc.record({
  metadata: metaArb,
  addressType: fc.constantFrom('IPv4', 'IPv6', 'FQDN'),
  endpoints: fc.option(fc.array(fc.record({ addresses: fc.array(ipArb, { maxLength: 3 }) }), { maxLength: 5 }), { nil: null }),
  ports: fc.option(fc.array(fc.record({ port: opt(fc.integer({ min: 1, max: 65535 })), name: opt(wordArb) }), { maxLength: 5 }), { nil: null }),
});

const stateArb = fc.oneof(
  fc.constant({ running: {} }),
  fc.record({ waiting: fc.record({ reason: opt(fc.constantFrom('CrashLoopBackOff', 'PodInitializing', '')) }) }),
  fc.record({ terminated: fc.record({ reason: opt(fc.constantFrom('Completed', 'Error', '')), exitCode: fc.integer({ min: 0, max: 255 }), signal: opt(fc.integer({ min: 0, max: 15 })) }) }),
  fc.constant({}),
);
const statusArb = fc.record(
  { name: fc.constantFrom('a', 'b', 'i1', 'side'), ready: fc.boolean(), started: fc.boolean(), restartCount: fc.nat({ max: 20 }), state: stateArb, lastState: fc.oneof(fc.constant({}), fc.record({ terminated: fc.record({ finishedAt: timestampArb }) })) },
  { requiredKeys: ['name', 'ready', 'restartCount', 'state'] },
);
const conditionArb = fc.record({ type: fc.constantFrom('Ready', 'Initialized', 'PodScheduled', 'gate1'), status: fc.constantFrom('True', 'False', 'Unknown'), reason: opt(fc.constantFrom('SchedulingGated', 'x')) });
const podArb = fc.record({
  metadata: metaArb,
  spec: fc.record({
    containers: fc.array(fc.record({ name: fc.constantFrom('a', 'b') }), { maxLength: 3 }),
    initContainers: fc.array(fc.record({ name: fc.constantFrom('i1', 'side'), restartPolicy: opt(fc.constant('Always')) }), { maxLength: 2 }),
    nodeName: opt(wordArb),
    readinessGates: fc.array(fc.record({ conditionType: fc.constantFrom('gate1', 'gate2') }), { maxLength: 2 }),
  }),
  status: fc.record(
    {
      phase: fc.constantFrom('Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'),
      reason: fc.constantFrom('', 'NodeLost', 'Evicted'),
      podIPs: fc.array(fc.record({ ip: ipArb }), { maxLength: 2 }),
      nominatedNodeName: wordArb,
      conditions: fc.array(conditionArb, { maxLength: 4 }),
      initContainerStatuses: fc.array(statusArb, { maxLength: 2 }),
      containerStatuses: fc.array(statusArb, { maxLength: 3 }),
    },
    { requiredKeys: [] },
  ),
});

const nodeArb = fc.record({
  metadata: metaArb,
  spec: fc.record({ unschedulable: opt(fc.boolean()) }),
  status: fc.record(
    {
      conditions: fc.array(fc.record({ type: fc.constantFrom('Ready', 'MemoryPressure'), status: fc.constantFrom('True', 'False', 'Unknown') }), { maxLength: 3 }),
      addresses: fc.array(fc.record({ type: fc.constantFrom('InternalIP', 'ExternalIP', 'Hostname'), address: wordArb }), { maxLength: 3 }),
      nodeInfo: fc.record({ kubeletVersion: opt(wordArb), osImage: opt(wordArb), kernelVersion: opt(wordArb), containerRuntimeVersion: opt(wordArb) }),
    },
    { requiredKeys: [] },
  ),
});

const namespaceArb = fc.record({ metadata: metaArb, status: opt(fc.record({ phase: fc.constantFrom('Active', 'Terminating') })) });

const eventArb = fc.record(
  {
    metadata: metaArb,
    involvedObject: fc.record({ kind: opt(fc.constantFrom('Service', 'Pod', 'Node')), name: opt(wordArb), fieldPath: opt(wordArb) }),
    type: opt(fc.constantFrom('Normal', 'Warning')),
    reason: opt(wordArb),
    message: opt(fc.string({ maxLength: 20 })),
    firstTimestamp: timestampArb,
    lastTimestamp: timestampArb,
    eventTime: timestampArb,
    count: opt(fc.nat({ max: 100 })),
    source: opt(fc.record({ component: opt(wordArb), host: opt(wordArb) })),
    reportingComponent: opt(wordArb),
    reportingInstance: opt(wordArb),
    series: opt(fc.record({ count: fc.nat({ max: 100 }), lastObservedTime: timestampArb })),
  },
  { requiredKeys: ['metadata', 'involvedObject'] },
);

const kinded = (resource: TableResource, apiVersion: string, kind: string, arb: fc.Arbitrary<object>): fc.Arbitrary<{ resource: TableResource; objects: PrintableObject[] }> =>
  fc.array(arb.map((o) => strip({ apiVersion, kind, ...o }) as PrintableObject), { maxLength: 5 }).map((objects) => ({ resource, objects }));

const listArb = fc.oneof(
  kinded('services', 'v1', 'Service', serviceArb),
  kinded('endpoints', 'v1', 'Endpoints', endpointsArb),
  kinded('endpointslices', 'discovery.k8s.io/v1', 'EndpointSlice', sliceArb),
  kinded('pods', 'v1', 'Pod', podArb),
  kinded('nodes', 'v1', 'Node', nodeArb),
  kinded('namespaces', 'v1', 'Namespace', namespaceArb),
  kinded('events', 'v1', 'Event', eventArb),
);

test.prop([listArb, fc.constantFrom('None', 'Metadata', 'Object' as const)])(
  'INV-TABLE-SHAPE: every row has one cell per column definition, each of its column\'s type, and one row per object carrying the object as includeObject asks',
  ({ resource, objects }, includeObject) => {
    const table = printTable(resource, objects, { now: NOW, includeObject });
    expect(table).toBeDefined();
    if (table === undefined) return;
    expect(table.rows).toHaveLength(objects.length);
    for (const [i, row] of table.rows.entries()) {
      expect(row.cells).toHaveLength(table.columnDefinitions.length);
      for (const [c, cell] of row.cells.entries()) {
        const col = table.columnDefinitions[c];
        // upstream's one mismatch, kept: Event's Count column is declared string, filled with an int64
        const type = resource === 'events' && col?.name === 'Count' ? 'integer' : col?.type;
        if (type === 'string') expect(typeof cell).toBe('string');
        else expect(Number.isSafeInteger(cell)).toBe(true);
      }
      const object = objects[i];
      if (includeObject === 'None') expect(row.object).toBeNull();
      else if (includeObject === 'Object') expect(row.object).toBe(object);
      else expect(row.object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object?.metadata });
      // kubectl -A reads the NAMESPACE column from here
      if (includeObject !== 'None') expect((row.object as { metadata: { namespace?: string } }).metadata.namespace).toBe(object?.metadata.namespace);
    }
  },
);

/** Reads a HumanDuration back as milliseconds: the lower bound of what it stands for. */
function readBack(text: string): number {
  const unit: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, y: YEAR };
  let total = 0;
  for (const [, n, u] of text.matchAll(/(\d+)([smhdy])/g)) total += Number(n) * (unit[u ?? ''] ?? Number.NaN);
  return total;
}

const durationArb = fc.integer({ min: -1999, max: 12 * YEAR });

test.prop([durationArb, durationArb])(
  'INV-TABLE-AGE: HumanDuration never overstates a duration and never decreases as the duration grows',
  (a, b) => {
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    const [textLo, textHi] = [humanDuration(lo), humanDuration(hi)];
    expect(textLo).toMatch(/^(\d+[smhdy])+$/);
    expect(readBack(textLo)).toBeLessThanOrEqual(Math.max(lo, 0));
    expect(readBack(textLo)).toBeLessThanOrEqual(readBack(textHi));
  },
);
