// kube-proxy's sync loop as a pure function over a persistent state: each call is one
// syncProxyRules, full or partial, as upstream does with MinimizeIPTablesRestore on.
// upstream: pkg/proxy/iptables/proxier.go (syncProxyRules: tryPartialSync, the
// skippedNatChains/skippedNatRules buffers, activeNATChains and the stale-chain `-X` cleanup),
// pkg/proxy/servicechangetracker.go and pkg/proxy/endpointschangetracker.go (a change whose
// result equals the previous state is dropped, so only content changes count).
//
// The state keeps, per Service (namespace/name, upstream's unit of change), the objects last
// seen, the derived service ports and endpoints, the memoised chain names and the rendered
// text. A sync first finds what changed — by object identity where the caller passes the same
// objects again (the cheap path: one pointer comparison per object), by content otherwise — then
// renders only the changed services and writes cached text for the rest, all of it into the
// caller's restore buffer, or, given none, as views of the state's bytes (restore-buffer.ts): the
// text is bytes, never one string of its own.

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { ServiceChainBatch } from '../chain-names.js';
import { compareStrings, type EndpointInfo, matchByEdits, matchByKey, matchByPosition, mostEndpoints, sameObjects } from '@kubesvc/proxy';
import { RulesetSink } from '../generate/sinks.js';
import { chainLine, COMMIT_LINE, deleteChainLine } from '../generate/print-restore.js';
import type { ProxierConfig } from '../proxier-config.js';
import { fixedFilterChains, fixedNatChains, ruleContext, writeHeadRules, writeServicePortRules, writeTailRules, type StatisticCache } from '../generate/rule-builder.js';
import type { Ruleset } from '../ruleset.js';
import { deriveService, samePorts } from './changes.js';
import { makeFrame, renderBytes, renderWithKernel, sepChainOf } from './sinks.js';
import { RangeWriter, renderScratch } from './render-bytes.js';
import { syncResult, syncText, type SyncText } from './restore-buffer.js';
import { cacheOf, nodeIndependent, renderKeyOf } from './render-cache.js';
import {
  EMPTY_RENDERED,
  NON_ASCII,
  configKeyOf,
  entryTotals,
  renderedChains,
  utf8Length,
  type Placed,
  type PortEntry,
  type Rendered,
  type ServiceEntry,
  type StateData,
  type SyncConfig,
  type SyncIndexes,
  type SyncOptions,
  type SyncResult,
  type SyncState,
} from './state.js';

export type { SyncConfig, SyncOptions, SyncResult, SyncState, SyncStats } from './state.js';

/**
 * One sync of kube-proxy's v1.31 line (the backend's sync, see backend.ts): `state` undefined is
 * kube-proxy's first sync (full, nothing to delete); `indexes` are syncChanges' positions of each
 * key, kept for the next call. The restore text is for `iptables-restore --noflush`.
 */
export function syncV131(
  state: SyncState | undefined,
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: SyncConfig | ProxierConfig,
  options: SyncOptions,
  indexes: SyncIndexes | undefined,
): SyncResult {
  const configKey = configKeyOf(config);
  const prev0 = state as StateData | undefined;
  const sameConfig = prev0 !== undefined && prev0.configKey === configKey;
  // After a config change nothing cached is reusable, but the chains that exist still do.
  const prev = sameConfig ? prev0 : undefined;
  const statistics: StatisticCache = prev?.statistics ?? new Map();
  const frame = prev?.frame ?? makeFrame(config);

  // What each Service derives to (its service ports, endpoints and chain names) depends on the
  // config only by its family and node name: after a change of other settings the last state's
  // derivations are reused (every Service is still rendered again).
  const derivedFrom =
    prev ??
    (prev0 !== undefined && prev0.v18 === undefined && prev0.config.family === config.family && prev0.config.nodeName === config.nodeName ? prev0 : undefined);
  // By position when the arrays are the last call's, by the edits an event store made to them
  // when syncChanges passes its indexes, else by key (a sort of every Service).
  const matched =
    (derivedFrom !== undefined
      ? (matchByPosition(derivedFrom, services, endpointSlices) ?? (indexes !== undefined ? matchByEdits(derivedFrom, services, endpointSlices, indexes, config.family) : undefined))
      : undefined) ?? matchByKey(derivedFrom, services, endpointSlices, config.family);

  // Derive what may have changed, and find the content changes.
  interface Pending {
    readonly ports: readonly PortEntry[];
    readonly endpointCount: number;
    readonly changed: boolean;
  }
  let totalEndpoints = derivedFrom?.totalEndpoints ?? 0;
  const pending = new Map<number, Pending>();
  // The chain names of new service ports are hashed together once all are known (before rendering).
  const kernel = config.kernel;
  const batch = new ServiceChainBatch(kernel);
  // A first sync renders every port it derives: the kernel keeps the endpoints' records from the
  // hashing to the printing (an arena), laid out for the most endpoints a Service's slices hold.
  const arenaRecords = prev0 === undefined && kernel !== undefined ? new Map<readonly EndpointInfo[], Placed>() : undefined;
  if (arenaRecords !== undefined) kernel?.openArena(mostEndpoints(matched.work.values()));
  for (const [pos, candidate] of matched.work) {
    const previous = candidate.previous;
    if (previous !== undefined && previous.service === candidate.service && sameObjects(previous.slices, candidate.slices)) continue;
    const { ports, endpointCount } = deriveService(candidate.service, candidate.slices, config, previous, batch, arenaRecords);
    const changed = previous === undefined || !samePorts(previous.ports, ports);
    totalEndpoints += endpointCount - (previous?.endpointCount ?? 0);
    pending.set(pos, { ports, endpointCount, changed });
  }
  for (const gone of matched.removed) totalEndpoints -= gone.endpointCount;
  batch.name();

  const largeClusterMode = totalEndpoints > config.largeClusterThreshold;
  // A largeClusterMode flip changes the comments of every chain. Upstream's partial sync would
  // leave the old comments in unchanged chains until the next full sync; a full sync here keeps
  // the tables equal to a full sync's (see docs/deviations.md).
  const modeFlipped = prev !== undefined && prev.largeClusterMode !== largeClusterMode;
  const fullSyncEvery = (config as SyncConfig).fullSyncEvery;
  const full =
    prev === undefined ||
    options.full === true ||
    modeFlipped ||
    (fullSyncEvery !== undefined && prev.partialSinceFull + 1 >= fullSyncEvery);
  const ctx = ruleContext(config, largeClusterMode, statistics);
  const configAscii = !NON_ASCII.test(configKey);

  const entries: ServiceEntry[] = matched.base !== undefined ? matched.base.slice() : new Array<ServiceEntry>(matched.count);
  const written = new Set<number>();
  const staleChains: string[] = [];
  // The chains a Service had and has no more are stale; a Service whose declarations are the
  // same bytes as before has them all still (no names made).
  const retire = (old: Rendered, now: Rendered | undefined): void => {
    if (old.chainCount === 0 || (now !== undefined && sameDeclarations(old, now))) return;
    const keep = new Set(now === undefined ? [] : renderedChains(now));
    for (const chain of renderedChains(old)) if (!keep.has(chain)) staleChains.push(chain);
  };
  let servicesChanged = matched.removed.length;
  /** Entries to render, in the order of their text. */
  let toRender: { entry: ServiceEntry & { rendered: Rendered }; ports: readonly PortEntry[] }[] = [];
  /** Entries rendered now, with their previous chains: their stale chains are known once rendered. */
  const fresh: { entry: { rendered: Rendered }; previous: Rendered }[] = [];
  for (const [pos, candidate] of matched.work) {
    const previous = candidate.previous;
    const p = pending.get(pos);
    if (p?.changed === true) {
      servicesChanged++;
      written.add(pos);
    }
    const ports = p?.ports ?? previous?.ports ?? [];
    const reuse = p?.changed !== true && previous !== undefined && !modeFlipped && sameConfig;
    if (reuse && previous.service === candidate.service && previous.slices === candidate.slices) {
      entries[pos] = previous;
      continue;
    }
    const entry: ServiceEntry & { rendered: Rendered } = {
      key: candidate.key,
      namespace: candidate.namespace,
      name: candidate.name,
      service: candidate.service,
      slices: candidate.slices,
      ports,
      endpointCount: p?.endpointCount ?? previous?.endpointCount ?? 0,
      rendered: reuse ? previous.rendered : EMPTY_RENDERED,
    };
    entries[pos] = entry;
    if (!reuse) {
      if (ports.length > 0) toRender.push({ entry, ports });
      if (previous !== undefined) fresh.push({ entry, previous: previous.rendered });
    }
  }
  if ((modeFlipped || !sameConfig) && matched.base !== undefined) {
    // The cheap path left the untouched entries as they were: re-render them too.
    for (let pos = 0; pos < entries.length; pos++) {
      const entry = entries[pos];
      if (entry === undefined || matched.work.has(pos)) continue;
      const copy: ServiceEntry & { rendered: Rendered } = { ...entry, rendered: EMPTY_RENDERED };
      entries[pos] = copy;
      if (entry.ports.length > 0) toRender.push({ entry: copy, ports: entry.ports });
      fresh.push({ entry: copy, previous: entry.rendered });
    }
  }
  // A Service whose text another proxier's sync already rendered from the same objects and
  // settings, with nothing of the node in it, takes that text (render-cache.ts).
  const renderCache = cacheOf(options.renderCache);
  const renderKey = renderCache !== undefined ? renderKeyOf(config, largeClusterMode) : '';
  const toStore: (typeof toRender)[number][] = [];
  if (renderCache !== undefined) {
    const rest: typeof toRender = [];
    for (const item of toRender) {
      const { service, slices } = item.entry;
      if (!nodeIndependent(service, slices)) rest.push(item);
      else {
        const cached = renderCache.lookup(service, slices, renderKey);
        if (cached !== undefined) item.entry.rendered = cached;
        else {
          rest.push(item);
          toStore.push(item);
        }
      }
    }
    toRender = rest;
  }
  // The services to render are printed into bytes the new state keeps (render-bytes.ts), in the
  // kernel's text session when it can take them (a first sync's from the records its hashing
  // left in the kernel's arena), else by the JavaScript printer.
  const scratch = prev0?.scratch ?? renderScratch();
  let inKernel: boolean;
  try {
    inKernel = renderWithKernel(toRender, ctx, scratch, configAscii, arenaRecords);
  } finally {
    if (arenaRecords !== undefined) kernel?.closeArena();
  }
  if (!inKernel && toRender.length > 0) renderBytes(toRender, ctx, scratch);
  for (const { entry } of toStore) renderCache?.store(entry.service, entry.slices, renderKey, entry.rendered);
  if (sameConfig) {
    for (const { entry, previous } of fresh) retire(previous, entry.rendered);
    for (const gone of matched.removed) retire(gone.rendered, undefined);
  } else {
    // Every Service counts as changed after a config change; the stale chains are found below.
    servicesChanged = entries.length;
  }
  // After a config change the old state's chains are all candidates for deletion.
  if (prev0 !== undefined && !sameConfig) {
    // Those of a Service that declares the same bytes as before are all active still: only the
    // others' are looked up among the active chains.
    const now = new Map<string, Rendered>();
    for (const entry of entries) now.set(entry.key, entry.rendered);
    const others: Rendered[] = [];
    for (const entry of prev0.entries) {
      const same = now.get(entry.key);
      if (entry.rendered.chainCount > 0 && (same === undefined || !sameDeclarations(entry.rendered, same))) others.push(entry.rendered);
    }
    const v18Chains = prev0.v18?.serviceChains ?? [];
    if (others.length > 0 || v18Chains.length > 0) {
      const active = new Set<string>();
      for (const entry of entries) for (const chain of renderedChains(entry.rendered)) active.add(chain);
      for (const rendered of others) for (const chain of renderedChains(rendered)) if (!active.has(chain)) staleChains.push(chain);
      for (const chain of v18Chains) if (!active.has(chain)) staleChains.push(chain);
    }
  }

  // Assemble: filter whole; nat chain lines and rules of written services; top-level rules of all.
  // Every Service's part is a range of the bytes the state keeps: the text is copied, never
  // printed or encoded again. The counts over all entries are the last state's, updated for the
  // entries this sync replaced (on the cheap path the others are the same objects); only the
  // written entries are counted one by one.
  const totals = entryTotals(
    entries,
    prev?.totals !== undefined && matched.base !== undefined && !modeFlipped ? { totals: prev.totals, base: matched.base, replaced: matched.work.keys(), removed: matched.removed } : undefined,
  );
  /** The written entries' positions, in order (a full sync writes all and needs none). */
  const writtenPos = full ? [] : [...written].sort((a, b) => a - b);
  const filterLines = frame.filterChains + frame.head.filterLines + frame.tail.filterLines + totals.filterLines;
  let natRuleLines = frame.head.fullLines + frame.tail.fullLines;
  let chainsWritten = frame.filterChains + frame.natChains;
  let bytes = frame.filterOpen.length + frame.natOpen.length + frame.head.fullBytes + frame.tail.fullBytes + COMMIT_LINE.length + totals.filterBytes;
  const totalFilterRules = frame.head.filterLines + frame.tail.filterLines + totals.filterLines;
  const totalNatRules = frame.head.fullLines + frame.tail.fullLines + totals.fullLines;
  const totalNatChains = frame.natChains + totals.chainCount;
  const servicePorts = totals.servicePorts;
  if (full) {
    chainsWritten += totals.chainCount;
    natRuleLines += totals.fullLines;
    bytes += totals.declBytes + totals.fullBytes;
  } else {
    // Unchanged entries write their top-level rules; a written one its declarations and all its rules instead.
    natRuleLines += totals.topLines;
    bytes += totals.topBytes;
    for (const pos of writtenPos) {
      const r = (entries[pos] as ServiceEntry).rendered;
      chainsWritten += r.chainCount;
      natRuleLines += r.fullLines - r.topLines;
      bytes += r.declBytes + r.fullBytes - r.topBytes;
    }
  }
  let staleDecl = '';
  let staleDeletes = '';
  if (staleChains.length > 0) {
    // In name order, so that the text depends only on the previous tables and the objects, not
    // on how the sync matched them (by position or by key); upstream walks a Go map here.
    staleChains.sort(compareStrings);
    // upstream writes a chain line (which flushes the chain) and then `-X`.
    staleDecl = staleChains.map(chainLine).join('');
    staleDeletes = staleChains.map(deleteChainLine).join('');
    chainsWritten += staleChains.length;
    bytes += utf8Length(staleDecl) + utf8Length(staleDeletes);
  }
  const out = syncText(options.buffer, bytes);
  const ranges = new RangeWriter((from, at, to) => out.writeRange(from, at, to));
  out.writeBytes(frame.filterOpen);
  // Most Services have no filter rules (those of a Service without endpoints, of a rejecting one).
  if (totals.filterBytes > 0) for (const entry of entries) ranges.add(entry.rendered.bytes, entry.rendered.filterAt, entry.rendered.filterBytes);
  ranges.flush();
  out.writeBytes(frame.natOpen);
  if (full) {
    for (const entry of entries) ranges.add(entry.rendered.bytes, entry.rendered.declAt, entry.rendered.declBytes);
  } else {
    for (const pos of writtenPos) {
      const r = (entries[pos] as ServiceEntry).rendered;
      ranges.add(r.bytes, r.declAt, r.declBytes);
    }
  }
  ranges.flush();
  out.write(staleDecl);
  writeNat(out, frame.head);
  if (full) {
    for (const entry of entries) ranges.add(entry.rendered.bytes, entry.rendered.fullAt, entry.rendered.fullBytes);
  } else {
    let next = 0;
    for (let pos = 0; pos < entries.length; pos++) {
      const r = (entries[pos] as ServiceEntry).rendered;
      if (pos === writtenPos[next]) {
        next++;
        ranges.add(r.bytes, r.fullAt, r.fullBytes);
      } else ranges.add(r.bytes, r.topAt, r.topBytes);
    }
  }
  ranges.flush();
  writeNat(out, frame.tail);
  out.write(staleDeletes);
  out.write(COMMIT_LINE);
  if (out.length !== bytes) throw new Error(`sync: wrote ${out.length} bytes of a ${bytes}-byte text`);
  const lines = 4 + filterLines + (chainsWritten - frame.filterChains) + natRuleLines + staleChains.length;

  const next: StateData = {
    syncs: (prev0?.syncs ?? 0) + 1,
    partialSinceFull: full ? 0 : (prev?.partialSinceFull ?? 0) + 1,
    largeClusterMode,
    configKey,
    config,
    statistics,
    frame,
    // syncChanges' arrays are its own, made for this call and never changed: kept as they are.
    servicesIn: indexes !== undefined ? services : services.slice(),
    servicePos: matched.servicePos,
    slicesIn: indexes !== undefined ? endpointSlices : endpointSlices.slice(),
    slicePos: matched.slicePos,
    serviceIndex: indexes?.services,
    sliceIndex: indexes?.slices,
    entries,
    totalEndpoints,
    totals,
    scratch,
  };
  return syncResult(next, out, undefined, {
    full,
    lines,
    bytes,
    chainsWritten,
    chainsDeleted: staleChains.length,
    servicesChanged,
    rules: {
      servicePorts,
      endpoints: totalEndpoints,
      largeClusterMode,
      filterRules: totalFilterRules,
      natRules: totalNatRules,
      filterChains: frame.filterChains,
      natChains: totalNatChains,
    },
  });
}

/** Whether two Services' chain declarations are the same bytes (then they declare the same chains). */
function sameDeclarations(a: Rendered, b: Rendered): boolean {
  const n = a.declBytes;
  if (n !== b.declBytes) return false;
  const x = a.bytes;
  const y = b.bytes;
  const i0 = a.declAt;
  const j0 = b.declAt;
  if (x === y && i0 === j0) return true;
  for (let k = 0; k < n; k++) if (x[i0 + k] !== y[j0 + k]) return false;
  return true;
}

/** Writes all of `rendered`'s nat rules. */
function writeNat(out: SyncText, rendered: Rendered): void {
  out.writeRange(rendered.bytes, rendered.fullAt, rendered.fullAt + rendered.fullBytes);
}

/** syncedRuleset of a v1.31 sync's state: the builder's rules for the state's entries. */
export function syncedRulesetV131(state: SyncState): Ruleset {
  const data = state as StateData;
  const config = data.config;
  const ctx = ruleContext(config, data.largeClusterMode, data.statistics);
  const sink = new RulesetSink();
  writeHeadRules(sink, config);
  for (const entry of data.entries) {
    for (const port of entry.ports) writeServicePortRules(sink, port.info, port.endpoints, ctx, sepChainOf(port));
  }
  writeTailRules(sink, config);
  return {
    family: config.family,
    tables: [
      { name: 'filter', chains: fixedFilterChains(config), rules: sink.filterRules, deletedChains: [] },
      { name: 'nat', chains: [...fixedNatChains(), ...sink.natChains], rules: sink.natRules, deletedChains: [] },
    ],
  };
}
