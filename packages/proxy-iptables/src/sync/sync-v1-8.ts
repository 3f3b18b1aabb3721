// A kube-proxy 1.8 sync (no partial syncs: every chain every time, stale chains deleted).

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { LABEL_SERVICE_NAME, familyName } from '@kubesvc/api-types';
import { compareStrings, objectKey } from '@kubesvc/proxy';
import { generateRulesV18 } from '../generate/generate-rules-v1-8.js';
import { printRestoreText } from '../generate/print-restore.js';
import type { ProxierConfig } from '../proxier-config.js';
import type { Ruleset } from '../ruleset.js';
import { makeFrame } from './sinks.js';
import { renderScratch } from './render-bytes.js';
import { startText, syncResult } from './restore-buffer.js';
import { configKeyOf, renderedChains, utf8Length, type StateData, type V18State, type SyncConfig, type SyncIndexes, type SyncOptions, type SyncResult, type SyncState } from './state.js';

const V18_SERVICE_CHAIN = /^KUBE-(SVC|SEP|FW|XLB)-/;

/**
 * A kube-proxy 1.8 sync. v1.8's syncProxyRules had no partial syncs: every sync wrote every
 * chain and rule (generateRules' 1.8 text), then, for each chain of its own (KUBE-SVC-,
 * KUBE-SEP-, KUBE-FW-, KUBE-XLB-) that the tables held and this sync did not write, a chain
 * line (which flushes it) after the other chain lines and a `-X` after the rules.
 * upstream: pkg/proxy/iptables/proxier.go at v1.8.0, syncProxyRules ("Delete chains no longer in use").
 * Upstream reads the chains that exist from iptables-save; here they are the previous state's.
 */
export function syncV18(
  state: SyncState | undefined,
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: SyncConfig | ProxierConfig,
  options: SyncOptions,
  indexes: SyncIndexes | undefined,
): SyncResult {
  const prev0 = state as StateData | undefined;
  const generated = generateRulesV18(services, endpointSlices, config);
  const [filter, nat] = generated.ruleset.tables;
  const serviceChains = (nat?.chains ?? []).filter((chain) => V18_SERVICE_CHAIN.test(chain));
  const active = new Set(nat?.chains ?? []);
  const existing = new Set<string>(prev0?.v18?.serviceChains ?? []);
  for (const entry of prev0?.entries ?? []) for (const chain of renderedChains(entry.rendered)) if (V18_SERVICE_CHAIN.test(chain)) existing.add(chain);
  const stale = [...existing].filter((chain) => !active.has(chain)).sort(compareStrings);
  const written: Ruleset =
    stale.length === 0 || filter === undefined || nat === undefined
      ? generated.ruleset
      : { family: generated.ruleset.family, tables: [filter, { ...nat, chains: [...nat.chains, ...stale], deletedChains: stale }] };
  const restoreText = stale.length === 0 ? generated.restoreText : printRestoreText(written);

  // Services added, removed or whose object or slices changed (by content).
  const addressType = familyName(config.family);
  const slicesByService = new Map<string, EndpointSlice[]>();
  for (const slice of endpointSlices) {
    const label = slice.metadata.labels?.[LABEL_SERVICE_NAME];
    if (slice.addressType !== addressType || label === undefined || label === '') continue;
    const key = objectKey(slice.metadata.namespace, label);
    const list = slicesByService.get(key) ?? [];
    list.push(slice);
    slicesByService.set(key, list);
  }
  const fingerprints = new Map<string, string>();
  for (const service of services) {
    const key = objectKey(service.metadata.namespace, service.metadata.name);
    fingerprints.set(key, JSON.stringify([service, slicesByService.get(key) ?? []]));
  }
  const before = prev0?.v18?.fingerprints ?? new Map<string, string>();
  let servicesChanged = 0;
  for (const [key, print] of fingerprints) if (before.get(key) !== print) servicesChanged++;
  for (const key of before.keys()) if (!fingerprints.has(key)) servicesChanged++;

  const lines = restoreText.split('\n').length - 1;
  const next: StateData = {
    syncs: (prev0?.syncs ?? 0) + 1,
    partialSinceFull: 0,
    largeClusterMode: false,
    configKey: configKeyOf(config),
    config,
    statistics: new Map(),
    frame: makeFrame(config),
    scratch: prev0?.scratch ?? renderScratch(),
    servicesIn: services.slice(),
    servicePos: new Int32Array(services.length).fill(-1),
    slicesIn: endpointSlices.slice(),
    slicePos: new Int32Array(endpointSlices.length).fill(-1),
    serviceIndex: indexes?.services,
    sliceIndex: indexes?.slices,
    entries: [],
    totalEndpoints: generated.stats.endpoints,
    v18: { ruleset: generated.ruleset, serviceChains, fingerprints },
  };
  const bytes = utf8Length(restoreText);
  const out = startText(options.buffer, bytes);
  out.write(restoreText);
  return syncResult(next, out, restoreText, {
    full: true,
    lines,
    bytes,
    chainsWritten: (filter?.chains.length ?? 0) + (nat?.chains.length ?? 0) + stale.length,
    chainsDeleted: stale.length,
    servicesChanged,
    rules: generated.stats,
  });
}

/** syncedRuleset of a v1.8 sync's state: the tables it wrote (every v1.8 sync keeps them). */
export function syncedRulesetV18(state: SyncState): Ruleset {
  return ((state as StateData).v18 as V18State).ruleset;
}
