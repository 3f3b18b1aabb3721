// The leak counters of the repair loops (upstream: pkg/registry/core/service/ipallocator/
// controller/repair.go and portallocator/controller/repair.go, checkLeaked / the stored.ForEach
// after the Service loop). An item that is allocated in the stored snapshot but held by no
// Service may be mid-creation, so it is kept for numRepairsBeforeLeakCleanup - 1 runs and
// released on the next one: a leak is freed on the 3rd consecutive run that finds it.

/** upstream numRepairsBeforeLeakCleanup. */
export const NUM_REPAIRS_BEFORE_LEAK_CLEANUP = 3;

/**
 * Remaining holdoff runs per leaked item, keyed by the item's text (an IP as formatIP prints
 * it, a port in decimal). A plain object, so that it can be stored and compared as data.
 */
export type LeakCounters = Readonly<Record<string, number>>;

/**
 * One leaked item's turn in a repair run: returns whether the run keeps it allocated, and
 * records its new count in `counters` (a Map the run owns). upstream's quirk is kept: a freed
 * item keeps its counter at 0, so if it leaks again before a Service uses it, the next run
 * frees it at once.
 */
export function leakHoldoff(counters: Map<string, number>, key: string): boolean {
  const count = counters.get(key) ?? NUM_REPAIRS_BEFORE_LEAK_CLEANUP - 1;
  if (count > 0) {
    counters.set(key, count - 1);
    return true;
  }
  counters.set(key, count);
  return false;
}

/** A Map copy of stored counters, for a run to update. Entries that are not integers are dropped. */
export function leakCountersToMap(counters: LeakCounters | undefined): Map<string, number> {
  const map = new Map<string, number>();
  for (const [key, value] of Object.entries(counters ?? {})) {
    if (Number.isInteger(value)) map.set(key, value);
  }
  return map;
}

/** The counters as a plain object, keys in insertion order. */
export function leakCountersFromMap(map: ReadonlyMap<string, number>): LeakCounters {
  const out: Record<string, number> = {};
  for (const [key, value] of map) out[key] = value;
  return out;
}
