// INV-IPT-PARTIAL: kube-proxy's partial syncs leave the same tables as a full sync would.
// A run is a generated cluster (up to 50 services with 0–6 endpoints each) and a sequence of
// changes — Services added, updated (type, ports, policies, affinity, external IPs), deleted
// or re-created unchanged; EndpointSlices added, updated, deleted; the input arrays reordered —
// with syncs (partial, or forced full) between them. Every sync's restore text is applied
// with `iptables-restore --noflush` semantics (the table model, restore-model/) to the tables
// the previous ones left, starting from empty tables; after every sync those tables must equal
// what one full sync of the same cluster writes into empty tables, and no text may be refused.
// The change list is an array of tagged operations, so a failure shrinks to few changes.
// upstream: pkg/proxy/iptables/proxier.go (syncProxyRules with MinimizeIPTablesRestore: a
// partial sync writes the chains of changed services only and deletes stale chains with -X),
// proxier_test.go (TestSyncProxyRulesRepeated checks the same on hand-written steps).
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { emptyTables, printTables, tablesEqual } from '../restore-model/table-state.js';
import { createRuleCache } from '../save/rule-cache.js';
import { sync, type SyncState } from './index.js';
import { apply, configArb, GenWorld, initialArb, opArb } from './sync-gen.fixtures.js';

test.prop([configArb, initialArb, fc.array(opArb, { maxLength: 30, size: 'medium' })])(
  'INV-IPT-PARTIAL, INV-IPT-COUNTS: any sequence of partial and full syncs leaves the tables one full sync of the final state leaves, and counts its text and rules as they are',
  (config, initial, ops) => {
    const world = new GenWorld(initial);
    let reversed = false;
    let state: SyncState | undefined;
    let tables = emptyTables(4);
    let syncs = 0;
    // Each distinct rule line is parsed once per run; the results are the same without it.
    const cache = createRuleCache();
    const syncAndCheck = (full: boolean) => {
      const { services: svcs, slices: sls } = world.arrays(reversed);
      const result = sync(state, svcs, sls, config, full ? { full: true } : {});
      state = result.state;
      syncs++;
      tables = apply(tables, result.restoreText, `sync ${syncs}`, cache);
      const fresh = sync(undefined, svcs, sls, config);
      // INV-IPT-COUNTS: a partial sync updates the counts of the last state for what it changed;
      // they must be what the text it wrote and a first sync of the same objects count.
      expect(result.stats.lines, `lines of sync ${syncs}`).toBe(result.restoreText.split('\n').length - 1);
      expect(result.stats.bytes, `bytes of sync ${syncs}`).toBe(Buffer.byteLength(result.restoreText));
      expect(result.stats.rules, `rule counts of sync ${syncs}`).toEqual(fresh.stats.rules);
      const reference = apply(emptyTables(4), fresh.restoreText, 'the full sync', cache);
      if (!tablesEqual(tables, reference)) {
        // The diff, then the failure even if the printed forms should agree.
        expect(printTables(tables), `tables after sync ${syncs} (${result.stats.full ? 'full' : 'partial'})`).toBe(printTables(reference));
        expect.fail(`tablesEqual is false after sync ${syncs} though the printed tables agree`);
      }
    };
    syncAndCheck(false);
    for (const op of ops) {
      const mine = world.apply(op);
      if (mine?.kind === 'reverse') reversed = !reversed;
      else if (mine?.kind === 'sync') syncAndCheck(mine.full);
    }
    syncAndCheck(false);
  },
);
