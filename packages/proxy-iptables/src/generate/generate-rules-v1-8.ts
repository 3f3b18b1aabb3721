// generateRules for kube-proxy 1.8: the same inputs, v1.8's rules (rule-builder-v1-8.ts),
// collected as Rule values and printed from them. upstream: pkg/proxy/iptables/proxier.go at v1.8.

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { endpointChain } from '../endpoint-chains.js';
import { endpointsMap, servicePortKey } from '@kubesvc/proxy';
import { endpointSliceDiagnostics, serviceDiagnostics, type RuleDiagnostic } from '../diagnostics.js';
import type { ProxierConfig } from '../proxier-config.js';
import type { Ruleset } from '../ruleset.js';
import { servicePortInfos } from '../service-ports.js';
import { type GenerateOptions, type IptablesRules, orderedServices } from './generate-rules.js';
import { lazyText } from '../sync/restore-buffer.js';
import { RulesetSink } from './sinks.js';
import { printRestoreText } from './print-restore.js';
import { fixedNatChains } from './rule-builder.js';
import { fixedFilterChainsV18, onlyNodeLocalEndpointsV18, writeHeadRulesV18, writeServicePortRulesV18, writeTailRulesV18 } from './rule-builder-v1-8.js';

/** generateRules for kubeProxyVersion '1.8': the same inputs, v1.8's rules (rule-builder-v1-8.ts). */
export function generateRulesV18(
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: ProxierConfig,
  options: GenerateOptions = {},
): IptablesRules {
  const diagnostics = [...serviceDiagnostics(services), ...endpointSliceDiagnostics(endpointSlices, config.family)];
  const epMap = endpointsMap(endpointSlices, config.family, config.nodeName);
  const sink = new RulesetSink();
  writeHeadRulesV18(sink, config);
  let servicePorts = 0;
  let totalEndpoints = 0;
  for (const service of orderedServices(services)) {
    const onlyLocal = onlyNodeLocalEndpointsV18(service);
    for (const svc of servicePortInfos(service, config.family)) {
      servicePorts++;
      const endpoints = epMap.get(servicePortKey(svc.namespace, svc.name, svc.portName, svc.protocol)) ?? [];
      totalEndpoints += endpoints.length;
      writeServicePortRulesV18(sink, svc, onlyLocal, endpoints, config, (ep) => endpointChain(svc, ep), diagnostics);
    }
  }
  writeTailRulesV18(sink);
  const natChains = [...fixedNatChains(), ...sink.natChains];
  const filterChains = fixedFilterChainsV18();
  return assembleRules(config, sink, filterChains, natChains, { servicePorts, endpoints: totalEndpoints, largeClusterMode: false }, diagnostics, options);
}

/** The Ruleset of the chains and rules a generator wrote, its restore text and its counts. */
function assembleRules(
  config: ProxierConfig,
  sink: RulesetSink,
  filterChains: Ruleset['tables'][number]['chains'],
  natChains: Ruleset['tables'][number]['chains'],
  counts: { readonly servicePorts: number; readonly endpoints: number; readonly largeClusterMode: boolean },
  diagnostics: readonly RuleDiagnostic[],
  options: GenerateOptions,
): IptablesRules {
  const ruleset: Ruleset = {
    family: config.family,
    tables: [
      { name: 'filter', chains: filterChains, rules: sink.filterRules, deletedChains: [] },
      { name: 'nat', chains: natChains, rules: sink.natRules, deletedChains: [] },
    ],
  };
  const text = lazyText({ text: printRestoreText(ruleset), buffer: options.buffer });
  return {
    ruleset,
    restoreText: text.text(),
    get restoreBytes(): Uint8Array {
      return text.bytes();
    },
    stats: {
      ...counts,
      filterRules: sink.filterRules.length,
      natRules: sink.natRules.length,
      filterChains: filterChains.length,
      natChains: natChains.length,
    },
    diagnostics,
  };
}
