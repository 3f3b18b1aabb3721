// The kube-proxy version, chosen once: ruleBuilderFor(version) gives the backend of that
// version's proxier (its generateRules, its sync and the Ruleset a sync's state holds), and the
// public entry points below take it from the config's kubeProxyVersion. Nothing else branches
// on the version: a version's rules are its builder (generate/rule-builder.ts for the v1.31
// line, generate/rule-builder-v1-8.ts for v1.8), and what its proxierConfig accepts is the
// version's settings in proxier-config.ts. See docs/architecture.md, "A second backend".

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { generateRulesV131, type GenerateOptions, type IptablesRules } from './generate/generate-rules.js';
import { generateRulesV18 } from './generate/generate-rules-v1-8.js';
import type { KubeProxyVersion, ProxierConfig } from './proxier-config.js';
import type { Ruleset } from './ruleset.js';
import { applyChanges, type ProxyChange } from './sync/events.js';
import type { SyncConfig, SyncIndexes, SyncOptions, SyncResult, SyncState } from './sync/state.js';
import { syncedRulesetV131, syncV131 } from './sync/sync.js';
import { syncedRulesetV18, syncV18 } from './sync/sync-v1-8.js';

/** One kube-proxy version's proxier: what generateRules, sync and syncedRuleset do for it. */
export interface KubeProxyBackend {
  readonly version: KubeProxyVersion;
  /** A full sync's rules, as text and as a Ruleset. */
  generateRules(services: readonly Service[], endpointSlices: readonly EndpointSlice[], config: ProxierConfig, options?: GenerateOptions): IptablesRules;
  /** One sync over the state the last one left (undefined: the first sync). */
  sync(
    state: SyncState | undefined,
    services: readonly Service[],
    endpointSlices: readonly EndpointSlice[],
    config: SyncConfig | ProxierConfig,
    options: SyncOptions,
    indexes: SyncIndexes | undefined,
  ): SyncResult;
  /** The Ruleset the tables hold after the sync that made `state`. */
  syncedRuleset(state: SyncState): Ruleset;
}

const BACKENDS: Readonly<Record<KubeProxyVersion, KubeProxyBackend>> = {
  '1.31': { version: '1.31', generateRules: generateRulesV131, sync: syncV131, syncedRuleset: syncedRulesetV131 },
  '1.8': { version: '1.8', generateRules: generateRulesV18, sync: syncV18, syncedRuleset: syncedRulesetV18 },
};

/** The backend of a kube-proxy version. */
export function ruleBuilderFor(version: KubeProxyVersion): KubeProxyBackend {
  return BACKENDS[version];
}

/**
 * The rules kube-proxy (config.kubeProxyVersion) writes for the Services and EndpointSlices on a
 * full sync: the restore text, the same rules as a Ruleset, counts and diagnostics.
 */
export function generateRules(
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: ProxierConfig,
  options: GenerateOptions = {},
): IptablesRules {
  return ruleBuilderFor(config.kubeProxyVersion).generateRules(services, endpointSlices, config, options);
}

/**
 * One sync. `state` undefined is kube-proxy's first sync (full, nothing to delete). The
 * restore text is for `iptables-restore --noflush`.
 */
export function sync(
  state: SyncState | undefined,
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: SyncConfig | ProxierConfig,
  options: SyncOptions = {},
): SyncResult {
  return ruleBuilderFor(config.kubeProxyVersion).sync(state, services, endpointSlices, config, options, undefined);
}

/**
 * One sync of what the last sync saw with `changes` applied in order: the incremental form of
 * `sync` for a node agent fed by a watch (upstream: pkg/proxy/servicechangetracker.go and
 * endpointschangetracker.go accumulate the handlers' changes; syncProxyRules consumes them).
 * Events accumulated between syncs are passed together. An add or update stores the object
 * under its namespace/name, replacing what was there; a delete removes the key (a delete of
 * an unknown key changes nothing). `state` undefined starts from no objects.
 *
 * The result is exactly `sync(state, services, endpointSlices, …)` of the objects so stored
 * (INV-IPT-EVENTS): same text, stats and next state, so the two can be mixed (a relist is a
 * `sync` with the full lists). Partial syncs write only the services whose content changed.
 * A batch of updates costs a copy of the two object arrays and nothing per unchanged object; a
 * batch that adds or deletes objects also copies the key index and shifts the positions after
 * them (`@kubesvc/proxy`'s matchByEdits: a Service that came is placed by binary search), where a
 * `sync` with other lists sorts every Service again.
 */
export function syncChanges(
  state: SyncState | undefined,
  changes: readonly ProxyChange[],
  config: SyncConfig | ProxierConfig,
  options: SyncOptions = {},
): SyncResult {
  const { services, slices, indexes } = applyChanges(state, changes);
  return ruleBuilderFor(config.kubeProxyVersion).sync(state, services, slices, config, options, indexes);
}

/**
 * The Ruleset the tables hold after the sync that made `state`: what a full sync of the same
 * input writes (generateRules' ruleset), built by the same code as the text, for the tracer.
 */
export function syncedRuleset(state: SyncState): Ruleset {
  return ruleBuilderFor((state as SyncState & { readonly config: ProxierConfig }).config.kubeProxyVersion).syncedRuleset(state);
}
