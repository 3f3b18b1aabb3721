// INV-IPT-DETERMINISTIC for sync: over generated clusters and configs, a first sync writes
// byte for byte what generateRules writes (the Ruleset built by the same rule builder, then
// printed); a sync from another cluster's state, forced full, writes the same plus the
// deletion of exactly the chains that went away; a partial sync writes a subset of those lines
// with every always-written line; the result does not depend on object identity or input order;
// and the stats count what the text holds.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { generateRules } from '../backend.js';
import { clusterArb, configArb } from '../generated-clusters.fixtures.js';
import { sync, syncedRuleset } from './index.js';

const PER_SERVICE = /^(?::|-A |-X )KUBE-(?:SVC|SVL|EXT|FW|SEP)-/;
const lines = (text: string): string[] => text.split('\n').filter((l) => l !== '');
const decls = (text: string): Set<string> =>
  new Set(lines(text).filter((l) => /^:KUBE-(SVC|SVL|EXT|FW|SEP)-/.test(l)).map((l) => l.slice(1, l.indexOf(' '))));

describe('sync properties', () => {
  test.prop([clusterArb, configArb])(
    'INV-IPT-DETERMINISTIC: a first sync writes exactly what generateRules writes, with matching stats and ruleset',
    (cluster, config) => {
      const r = sync(undefined, cluster.services, cluster.slices, config);
      const g = generateRules(cluster.services, cluster.slices, config);
      expect(r.restoreText).toBe(g.restoreText);
      expect(r.stats.rules).toEqual(g.stats);
      expect(syncedRuleset(r.state)).toEqual(g.ruleset);
      expect(r.stats.lines).toBe(lines(r.restoreText).length);
      expect(r.stats.bytes).toBe(new TextEncoder().encode(r.restoreText).length);
      expect(r.stats.chainsWritten).toBe(lines(r.restoreText).filter((l) => l.startsWith(':')).length);
    },
  );

  test.prop([clusterArb, clusterArb, configArb, fc.boolean()])(
    'INV-IPT-DETERMINISTIC: after any earlier cluster, a full sync writes generateRules’ text plus the deletion of exactly the stale chains, and a partial sync a subset of it',
    (before, after, config, sameObjects) => {
      const s0 = sync(undefined, before.services, before.slices, config).state;
      // Either the caller's objects, or equal copies in reverse order: neither may matter.
      const services = sameObjects ? after.services : structuredClone(after.services).reverse();
      const slices = sameObjects ? after.slices : structuredClone(after.slices).reverse();
      const full = sync(s0, services, slices, config, { full: true });
      const g = generateRules(after.services, after.slices, config).restoreText;
      const stale = [...decls(generateRules(before.services, before.slices, config).restoreText)].filter((c) => !decls(g).has(c));
      const withoutDeletions = lines(full.restoreText).filter(
        (l) => !l.startsWith('-X ') && !stale.some((c) => l === `:${c} - [0:0]`),
      );
      expect(`${withoutDeletions.join('\n')}\n`).toBe(g);
      expect(new Set(lines(full.restoreText).filter((l) => l.startsWith('-X ')).map((l) => l.slice(3)))).toEqual(new Set(stale));
      expect(full.stats.chainsDeleted).toBe(stale.length);

      const partial = sync(s0, services, slices, config);
      const fullLines = new Set(lines(full.restoreText));
      for (const line of lines(partial.restoreText)) expect(fullLines.has(line)).toBe(true);
      const partialLines = new Set(lines(partial.restoreText));
      for (const line of lines(g)) if (!PER_SERVICE.test(line)) expect(partialLines.has(line)).toBe(true);
      expect(partial.stats.chainsDeleted).toBe(stale.length);
      expect(partial.stats.lines).toBe(lines(partial.restoreText).length);
      expect(partial.stats.rules).toEqual(full.stats.rules);
      // The same call again gives the same answer: s0 was not touched.
      expect(sync(s0, services, slices, config)).toEqual(partial);
      expect(syncedRuleset(partial.state)).toEqual(generateRules(after.services, after.slices, config).ruleset);
    },
  );
});
