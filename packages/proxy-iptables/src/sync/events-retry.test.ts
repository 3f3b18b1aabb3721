// INV-IPT-EVENTS-RETRY: a sync may start again from a state a later sync already started from
// (the node agent retries from its last applied state after a failed restore). The later sync
// took that state's key index over in place (events.ts, indexOwners), so the retry must give
// what it gives from a state that no sync touched: same text, same stats, and a state that the
// next sync continues from alike.
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { syncChanges, type ProxyChange, type SyncState } from './index.js';
import { buildService, buildSlice, configArb, keyArb, serviceArb, sliceArb, type ServiceGen, type SliceGen } from './sync-gen.fixtures.js';

const GONE_SERVICE: ServiceGen = { type: 'ClusterIP', ports: [{ name: '', protocol: 'TCP', port: 80 }], etpLocal: false, itpLocal: false, affinity: false, externalIP: false };
const GONE_SLICE: SliceGen = { endpoints: [], protocol: 'TCP', targetPort: 8080 };

const changeArb: fc.Arbitrary<ProxyChange> = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(keyArb, serviceArb).map(([k, s]): ProxyChange => ({ kind: 'ServiceAdd', service: buildService(k, s) })) },
  { weight: 2, arbitrary: keyArb.map((k): ProxyChange => ({ kind: 'ServiceDelete', service: buildService(k, GONE_SERVICE) })) },
  { weight: 3, arbitrary: fc.tuple(keyArb, sliceArb).map(([k, s]): ProxyChange => ({ kind: 'EndpointSliceAdd', endpointSlice: buildSlice(k, s) })) },
  { weight: 2, arbitrary: keyArb.map((k): ProxyChange => ({ kind: 'EndpointSliceDelete', endpointSlice: buildSlice(k, GONE_SLICE) })) },
);
const batchArb = fc.array(changeArb, { minLength: 1, maxLength: 8 });

test.prop([configArb, fc.array(changeArb, { maxLength: 30 }), batchArb, batchArb, batchArb])(
  'INV-IPT-EVENTS-RETRY: a sync from a state a later sync started from gives what it gives from an untouched copy of that state',
  (config, initial, taken, retried, next) => {
    const start = (): SyncState => syncChanges(undefined, initial, config).state;
    const shared = start();
    // A later sync starts from `shared` (and may take its index over), then is thrown away.
    syncChanges(shared, taken, config);
    const retry = syncChanges(shared, retried, config);
    const untouched = syncChanges(start(), retried, config);
    expect(retry.restoreText).toBe(untouched.restoreText);
    expect(retry.stats).toEqual(untouched.stats);
    const after = syncChanges(retry.state, next, config);
    const afterUntouched = syncChanges(untouched.state, next, config);
    expect(after.restoreText).toBe(afterUntouched.restoreText);
    expect(after.stats).toEqual(afterUntouched.stats);
  },
);

/** What the retried state's key index must say: every object at its position. */
test.prop([configArb, fc.array(changeArb, { maxLength: 30 }), batchArb, batchArb])(
  'INV-IPT-EVENTS-RETRY: after a retry, the state indexes exactly its own objects',
  (config, initial, taken, retried) => {
    const shared = syncChanges(undefined, initial, config).state;
    syncChanges(shared, taken, config);
    const state = syncChanges(shared, retried, config).state as SyncState & {
      servicesIn: readonly Service[];
      slicesIn: readonly EndpointSlice[];
      serviceIndex: ReadonlyMap<string, number>;
      sliceIndex: ReadonlyMap<string, number>;
    };
    const key = (o: Service | EndpointSlice): string => `${o.metadata.namespace ?? 'default'}/${o.metadata.name ?? ''}`;
    expect([...state.serviceIndex].sort()).toEqual(state.servicesIn.map((s, i) => [key(s), i] as [string, number]).sort());
    expect([...state.sliceIndex].sort()).toEqual(state.slicesIn.map((s, i) => [key(s), i] as [string, number]).sort());
  },
);
