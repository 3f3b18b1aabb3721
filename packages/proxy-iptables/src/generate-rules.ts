// syncProxyRules as a pure function: Services + EndpointSlices + proxier settings in, the
// iptables-restore input for the filter and nat tables out (a full sync, with no stale
// chains to delete). upstream: pkg/proxy/iptables/proxier.go (syncProxyRules), at the
// v1.30/v1.31 line. The rules themselves come from rule-builder.ts, which sync/ shares.
//
// Ordering: upstream walks its service map in Go's random order. Here service ports are
// taken by namespace, then name (byte order), then their order in spec.ports; everything
// inside one service port is written in upstream's order. See the README, "Ordering".

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { compareStrings, endpointChain, endpointsMap, servicePortKey, type EndpointInfo } from './endpoints.js';
import { printRestoreText } from './print-restore.js';
import type { ProxierConfig } from './proxier-config.js';
import {
  fixedFilterChains,
  fixedNatChains,
  ruleContext,
  writeHeadRules,
  writeServicePortRules,
  writeTailRules,
  type RuleSink,
} from './rule-builder.js';
import type { Match, Rule, Ruleset, Target } from './ruleset.js';
import { servicePortInfos, type ServicePortInfo } from './service-ports.js';
import { endpointSliceDiagnostics, serviceDiagnostics, type RuleDiagnostic } from './diagnostics.js';
import {
  fixedFilterChainsV18,
  onlyNodeLocalEndpointsV18,
  writeHeadRulesV18,
  writeServicePortRulesV18,
  writeTailRulesV18,
} from './rule-builder-v1-8.js';

export {
  CT_STATE_INVALID_DROPPED_COUNTER,
  KUBE_EXTERNAL_SERVICES,
  KUBE_FIREWALL,
  KUBE_FORWARD,
  KUBE_MARK_MASQ,
  KUBE_NODEPORTS,
  KUBE_POSTROUTING,
  KUBE_PROXY_FIREWALL,
  KUBE_SERVICES,
  LOCALHOST_NODEPORT_ACCEPTED_COUNTER,
  NODEPORTS_LAST_RULE_COMMENT,
} from './rule-builder.js';

export interface RuleStats {
  /** Service ports programmed (of the proxier's family). */
  readonly servicePorts: number;
  /** Endpoints of those service ports, all conditions (what the large-cluster test counts). */
  readonly endpoints: number;
  readonly largeClusterMode: boolean;
  readonly filterRules: number;
  readonly natRules: number;
  readonly filterChains: number;
  readonly natChains: number;
}

export interface IptablesRules {
  readonly ruleset: Ruleset;
  readonly restoreText: string;
  readonly stats: RuleStats;
  /**
   * What was left out of the rules because the input is malformed (a cluster IP that does not
   * parse, an endpoint address that is no IP, a slice without its service-name label, ...),
   * each with the object, the field, the value and the reason. Empty for well-formed input.
   */
  readonly diagnostics: readonly RuleDiagnostic[];
}

/** Key of a Service or EndpointSlice in an informer's store. */
export function objectKey(namespace: string | undefined, name: string | undefined): string {
  return `${namespace ?? 'default'}/${name ?? ''}`;
}

/** Our deterministic service order: by namespace, then name (byte order). sync/ sorts by it too. */
export function compareServices(a: Service, b: Service): number {
  return (
    compareStrings(a.metadata.namespace ?? 'default', b.metadata.namespace ?? 'default') ||
    compareStrings(a.metadata.name ?? '', b.metadata.name ?? '')
  );
}

/** Services by namespace, then name; a Service listed twice counts once, the last listing winning, as in an informer's store. */
export function orderedServices(services: readonly Service[]): Service[] {
  const byName = new Map<string, Service>();
  for (const service of services) byName.set(objectKey(service.metadata.namespace, service.metadata.name), service);
  return [...byName.values()].sort(compareServices);
}

/** The service ports of all services for the proxier's family, in our deterministic order. */
export function orderedServicePorts(services: readonly Service[], family: 4 | 6): ServicePortInfo[] {
  return orderedServices(services).flatMap((service) => servicePortInfos(service, family));
}

/** A sink that collects Rule values, in writing order. */
export class RulesetSink implements RuleSink {
  readonly filterRules: Rule[] = [];
  readonly natRules: Rule[] = [];
  readonly natChains: string[] = [];
  filter(chain: string, matches: readonly Match[], target?: Target): void {
    this.filterRules.push(target === undefined ? { chain, matches } : { chain, matches, target });
  }
  natTop(chain: string, matches: readonly Match[], target?: Target): void {
    this.natRules.push(target === undefined ? { chain, matches } : { chain, matches, target });
  }
  natChain(chain: string): void {
    this.natChains.push(chain);
  }
  nat(chain: string, matches: readonly Match[], target?: Target): void {
    this.natRules.push(target === undefined ? { chain, matches } : { chain, matches, target });
  }
}

export function generateRules(
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: ProxierConfig,
): IptablesRules {
  const diagnostics = [...serviceDiagnostics(services), ...endpointSliceDiagnostics(endpointSlices, config.family)];
  if (config.kubeProxyVersion === '1.8') return generateRulesV18(services, endpointSlices, config, diagnostics);
  const ports = orderedServicePorts(services, config.family);
  const epMap = endpointsMap(endpointSlices, config.family, config.nodeName);
  const portsWithEndpoints = ports.map(
    (svc) => [svc, epMap.get(servicePortKey(svc.namespace, svc.name, svc.portName, svc.protocol)) ?? []] as const,
  );
  let totalEndpoints = 0;
  for (const [, endpoints] of portsWithEndpoints) totalEndpoints += endpoints.length;
  const largeClusterMode = totalEndpoints > config.largeClusterThreshold;
  const ctx = ruleContext(config, largeClusterMode);

  const sink = new RulesetSink();
  const natChains = fixedNatChains();
  writeHeadRules(sink, config);
  for (const [svc, endpoints] of portsWithEndpoints) {
    const sepChains = new Map<EndpointInfo, string>();
    const sepChain = (ep: EndpointInfo): string => {
      let chain = sepChains.get(ep);
      if (chain === undefined) {
        chain = endpointChain(svc, ep);
        sepChains.set(ep, chain);
      }
      return chain;
    };
    writeServicePortRules(sink, svc, endpoints, ctx, sepChain);
  }
  writeTailRules(sink, config);
  natChains.push(...sink.natChains);
  const filterChains = fixedFilterChains(config);

  return assembleRules(config, sink, filterChains, natChains, { servicePorts: ports.length, endpoints: totalEndpoints, largeClusterMode }, diagnostics);
}

/** generateRules for kubeProxyVersion '1.8': the same inputs, v1.8's rules (rule-builder-v1-8.ts). */
function generateRulesV18(
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: ProxierConfig,
  diagnostics: RuleDiagnostic[],
): IptablesRules {
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
  return assembleRules(config, sink, filterChains, natChains, { servicePorts, endpoints: totalEndpoints, largeClusterMode: false }, diagnostics);
}

/** The Ruleset of the chains and rules a generator wrote, its restore text and its counts. */
function assembleRules(
  config: ProxierConfig,
  sink: RulesetSink,
  filterChains: Ruleset['tables'][number]['chains'],
  natChains: Ruleset['tables'][number]['chains'],
  counts: { readonly servicePorts: number; readonly endpoints: number; readonly largeClusterMode: boolean },
  diagnostics: readonly RuleDiagnostic[],
): IptablesRules {
  const ruleset: Ruleset = {
    family: config.family,
    tables: [
      { name: 'filter', chains: filterChains, rules: sink.filterRules, deletedChains: [] },
      { name: 'nat', chains: natChains, rules: sink.natRules, deletedChains: [] },
    ],
  };
  return {
    ruleset,
    restoreText: printRestoreText(ruleset),
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
