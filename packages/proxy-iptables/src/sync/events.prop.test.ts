// INV-IPT-EVENTS: a sync fed change events gives what a sync of the final lists gives. A run is
// a generated cluster and a sequence of changes (partial.prop.test.ts's generators) turned into
// the events an informer would deliver — ServiceAdd for a new key, ServiceUpdate for a known
// one (an equal object for a re-creation), ServiceDelete (of unknown keys too), and the same for
// EndpointSlices (a slice may arrive before its Service) — with syncs between them that consume
// the events gathered since the last one. Two proxiers run side by side from the same start:
// one takes the events (syncChanges), the other the final lists in the order a Map keyed by
// namespace/name holds them (sync). After every sync their restore texts, stats and synced
// rulesets must be identical, the event proxier's texts applied one after another (the
// iptables-restore --noflush model) must leave the tables one full sync of the final lists
// leaves in empty tables, and no text may be refused. The generators' reorder step is a relist
// here: both proxiers take a list sync of the current objects in reverse order, so events also
// follow a list sync.
// upstream: pkg/proxy/servicechangetracker.go, pkg/proxy/endpointschangetracker.go (the
// handlers' changes, folded by namespace/name, consumed by the next syncProxyRules).
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { emptyTables, printTables, tablesEqual } from '../restore-model/table-state.js';
import { createRuleCache } from '../save/rule-cache.js';
import { sync, syncChanges, syncedRuleset, type ProxyChange, type SyncOptions, type SyncState } from './index.js';
import { apply, buildService, buildSlice, configArb, initialArb, opArb, type ServiceGen, type SliceGen } from './sync-gen.fixtures.js';

/** What a delete of a key that was never added carries. */
const NEVER_ADDED_SERVICE: ServiceGen = { type: 'ClusterIP', ports: [{ name: '', protocol: 'TCP', port: 80 }], etpLocal: false, itpLocal: false, affinity: false, externalIP: false };
const NEVER_ADDED_SLICE: SliceGen = { endpoints: [], protocol: 'TCP', targetPort: 8080 };

const keyOf = (object: Service | EndpointSlice): string => `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;

test.prop([configArb, initialArb, fc.array(opArb, { maxLength: 30, size: 'medium' })])(
  'INV-IPT-EVENTS: change events folded then synced give the restore text, stats and tables of a sync of the final lists',
  (config, initial, ops) => {
    // The model: the objects by namespace/name, in a Map's order (a re-added key goes last).
    const services = new Map<string, Service>();
    const slices = new Map<string, EndpointSlice>();
    const specs = new Map<number, ServiceGen>();
    let pending: ProxyChange[] = [];
    const putService = (key: number, spec: ServiceGen): void => {
      const service = buildService(key, spec);
      pending.push({ kind: services.has(keyOf(service)) ? 'ServiceUpdate' : 'ServiceAdd', service });
      services.set(keyOf(service), service);
      specs.set(key, spec);
    };
    for (const entry of initial) {
      putService(entry.key, entry.service);
      if (entry.slice !== undefined) {
        const endpointSlice = buildSlice(entry.key, entry.slice);
        pending.push({ kind: 'EndpointSliceAdd', endpointSlice });
        slices.set(keyOf(endpointSlice), endpointSlice);
      }
    }
    let byEvents: SyncState | undefined;
    let byLists: SyncState | undefined;
    let tables = emptyTables(4);
    let syncs = 0;
    const cache = createRuleCache();
    const check = (events: ReturnType<typeof sync>, lists: ReturnType<typeof sync>): void => {
      syncs++;
      expect(events.restoreText, `restore text of sync ${syncs}`).toBe(lists.restoreText);
      expect(events.stats, `stats of sync ${syncs}`).toEqual(lists.stats);
      expect(syncedRuleset(events.state), `ruleset after sync ${syncs}`).toEqual(syncedRuleset(lists.state));
      byEvents = events.state;
      byLists = lists.state;
      tables = apply(tables, events.restoreText, `sync ${syncs}`, cache);
      const reference = apply(emptyTables(4), sync(undefined, [...services.values()], [...slices.values()], config).restoreText, 'the full sync', cache);
      if (!tablesEqual(tables, reference)) {
        expect(printTables(tables), `tables after sync ${syncs} (${events.stats.full ? 'full' : 'partial'})`).toBe(printTables(reference));
        expect.fail(`tablesEqual is false after sync ${syncs} though the printed tables agree`);
      }
    };
    const syncBoth = (options: SyncOptions): void => {
      const events = syncChanges(byEvents, pending, config, options);
      pending = [];
      check(events, sync(byLists, [...services.values()], [...slices.values()], config, options));
    };
    syncBoth({});
    for (const op of ops) {
      switch (op.kind) {
        case 'put-service':
          putService(op.key, op.service);
          break;
        case 'recreate-service': {
          const spec = specs.get(op.key);
          if (spec !== undefined) putService(op.key, spec);
          break;
        }
        case 'delete-service': {
          const service = buildService(op.key, specs.get(op.key) ?? NEVER_ADDED_SERVICE);
          pending.push({ kind: 'ServiceDelete', service });
          services.delete(keyOf(service));
          specs.delete(op.key);
          break;
        }
        case 'put-slice': {
          const endpointSlice = buildSlice(op.key, op.slice);
          pending.push({ kind: slices.has(keyOf(endpointSlice)) ? 'EndpointSliceUpdate' : 'EndpointSliceAdd', endpointSlice });
          slices.set(keyOf(endpointSlice), endpointSlice);
          break;
        }
        case 'delete-slice': {
          const endpointSlice = slices.get(keyOf(buildSlice(op.key, NEVER_ADDED_SLICE))) ?? buildSlice(op.key, NEVER_ADDED_SLICE);
          pending.push({ kind: 'EndpointSliceDelete', endpointSlice });
          slices.delete(keyOf(endpointSlice));
          break;
        }
        case 'reverse': {
          // A relist: the events gathered so far are in the lists, so they are dropped.
          pending = [];
          const svcs = [...services.values()].reverse();
          const sls = [...slices.values()].reverse();
          check(sync(byEvents, svcs, sls, config), sync(byLists, svcs, sls, config));
          break;
        }
        case 'sync':
          syncBoth(op.full ? { full: true } : {});
          break;
      }
    }
    syncBoth({});
  },
);
