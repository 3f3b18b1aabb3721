// INV-IPT-PARTIAL across config changes: syncs that switch between two configs of one node (the
// same family and node name, so a sync after a switch reuses the last state's service ports,
// endpoints and chain names while it renders every Service again) leave the tables one full
// sync of the final state under the last config leaves, and every text is one iptables-restore
// takes (no chain deleted twice, none missing). The run is partial.prop.test.ts's, with each
// sync under the config its flag picks.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { emptyTables, printTables, tablesEqual } from '../restore-model/table-state.js';
import { createRuleCache } from '../save/rule-cache.js';
import { generateRules } from '../backend.js';
import { withoutKernel } from '../proxier-config.fixtures.js';
import { sync, type SyncState } from './index.js';
import { configKeyOf } from './state.js';
import { apply, configArb, GenWorld, initialArb, opArb } from './sync-gen.fixtures.js';

test.prop([configArb, configArb, fc.boolean(), initialArb, fc.array(fc.tuple(opArb, fc.boolean()), { maxLength: 30, size: 'medium' })])(
  'INV-IPT-PARTIAL: syncs switching between two configs of one node leave the tables one full sync of the final state under the last config leaves',
  (configA, configB, kernel, initial, steps) => {
    const configs = kernel ? [configA, configB] : [withoutKernel(configA), withoutKernel(configB)];
    const world = new GenWorld(initial);
    let state: SyncState | undefined;
    let last: (typeof configs)[number] | undefined;
    let tables = emptyTables(4);
    let syncs = 0;
    const cache = createRuleCache();
    const syncAndCheck = (useB: boolean, full: boolean) => {
      const config = configs[useB ? 1 : 0] as (typeof configs)[number];
      const svcs = [...world.services.values()];
      const sls = [...world.slices.values()];
      const switched = last !== undefined && configKeyOf(last) !== configKeyOf(config);
      last = config;
      const result = sync(state, svcs, sls, config, full ? { full: true } : {});
      state = result.state;
      syncs++;
      const label = `sync ${syncs} (${switched ? 'config switched' : 'same config'}, ${result.stats.full ? 'full' : 'partial'})`;
      if (switched) {
        expect(result.stats.full, label).toBe(true);
        expect(result.stats.servicesChanged, label).toBe(new Set(svcs.map((s) => `${s.metadata.namespace}/${s.metadata.name}`)).size);
      }
      tables = apply(tables, result.restoreText, label, cache);
      const reference = apply(emptyTables(4), generateRules(svcs, sls, config).restoreText, 'the full sync', cache);
      if (!tablesEqual(tables, reference)) {
        expect(printTables(tables), `tables after ${label}`).toBe(printTables(reference));
        expect.fail(`tablesEqual is false after ${label} though the printed tables agree`);
      }
    };
    syncAndCheck(false, false);
    for (const [op, useB] of steps) {
      const mine = world.apply(op);
      if (mine?.kind === 'sync') syncAndCheck(useB, mine.full);
    }
    syncAndCheck(true, false);
  },
);
