// The per-service part of a sync: for each service port, its elements in the dispatch, no-
// endpoint and firewall maps, and (when it changed, or in a full sync) its chains: the
// Cluster and Local policy chains with their `numgen random` dispatch and affinity checks,
// the external chain, the firewall chain, the endpoint chains and affinity sets.
// upstream: pkg/proxy/nftables/proxier.go (v1.33: syncProxyRules, from "Build rules for each
// service-port" to the per-endpoint chains; writeServiceToEndpointRules).

import { categorizeEndpoints, isExternallyAccessible, nodeTopologyOf, usesClusterEndpoints, usesLocalEndpoints, type EndpointInfo, type ServicePortInfo } from '@kubesvc/proxy';
import { cidrContains, parseCIDRSloppy, parseIPSloppy } from '@kubesvc/api-types';
import type { NftablesProxierConfig } from '../config.js';
import {
  CLUSTER_IPS_SET,
  FIREWALL_IPS_MAP,
  MARK_MASQ_CHAIN,
  NO_ENDPOINT_NODEPORTS_MAP,
  NO_ENDPOINT_SERVICES_MAP,
  REJECT_CHAIN,
  SERVICE_IPS_MAP,
  SERVICE_NODEPORTS_MAP,
} from '../names.js';
import { endpointNames, type NftEndpointNames, type NftServiceChainNames } from './chain-names.js';
import { familyWords } from './setup.js';
import type { ElementStorage, TxWriter } from './tx.js';

/** The element storages of the six sets and maps a sync keeps. */
export interface Storages {
  readonly clusterIPs: ElementStorage;
  readonly serviceIPs: ElementStorage;
  readonly firewallIPs: ElementStorage;
  readonly noEndpointServices: ElementStorage;
  readonly noEndpointNodePorts: ElementStorage;
  readonly serviceNodePorts: ElementStorage;
}

/**
 * What one Service's ports claim in a sync: the elements they ensure (storage index in STORED
 * order, then key, flat), the chains they keep active, their affinity sets, and their
 * no-local-endpoint counts. A partial sync that rewrites a Service releases what it claimed
 * last time and deletes what no Service claims any more.
 */
export interface Claims {
  readonly elements: (number | string)[];
  readonly chains: string[];
  readonly affinitySets: string[];
  internal: number;
  external: number;
}

export function newClaims(): Claims {
  return { elements: [], chains: [], affinitySets: [], internal: 0, external: 0 };
}

/** What one sync accumulates over the service ports. */
export interface SyncAccumulator {
  readonly tx: TxWriter;
  readonly storages: Storages;
  /** activeChains: the service and endpoint chains this sync keeps. */
  readonly activeChains: Set<string>;
  readonly activeAffinitySets: Set<string>;
  /** Service ports whose internal / external policy is Local with no local endpoint (upstream's sync_proxy_rules_no_local_endpoints_total). */
  readonly noLocalEndpoints: { internal: number; external: number };
  /** Where the Service being written notes what it claims, if anywhere. */
  record: Claims | undefined;
}

/** The local detector's `IfLocalNFT` / `IfNotLocalNFT` texts, or undefined when it detects nothing. */
export interface LocalTexts {
  readonly ifLocal: string;
  readonly ifNotLocal: string;
}

export function localTexts(config: NftablesProxierConfig): LocalTexts | undefined {
  if (config.localDetector.kind !== 'cidr') return undefined;
  const { ipX } = familyWords(config.family);
  return { ifLocal: `${ipX} saddr ${config.localDetector.cidr}`, ifNotLocal: `${ipX} saddr != ${config.localDetector.cidr}` };
}

interface Endpoint {
  readonly info: EndpointInfo;
  readonly names: NftEndpointNames;
}

function withNames(svc: ServicePortInfo, endpoints: readonly EndpointInfo[], cache: Map<EndpointInfo, Endpoint>): Endpoint[] {
  return endpoints.map((info) => {
    let ep = cache.get(info);
    if (ep === undefined) {
      ep = { info, names: endpointNames(svc.namespace, svc.name, svc.portName, svc.protocol, info.ip, info.port) };
      cache.set(info, ep);
    }
    return ep;
  });
}

/** ensureChain, with the chain noted as the Service's claim. */
function noteChain(acc: SyncAccumulator, chain: string, skipServiceUpdate: boolean): void {
  acc.tx.ensureChain(chain, acc.activeChains, skipServiceUpdate);
  acc.record?.chains.push(chain);
}

/** writeServiceToEndpointRules: the affinity checks, then the `numgen random` dispatch. */
function writeServiceToEndpointRules(tx: TxWriter, ipX: string, svc: ServicePortInfo, chain: string, endpoints: readonly Endpoint[]): void {
  if (svc.clientIPAffinity) {
    for (const ep of endpoints) tx.addRule(chain, `${ipX} saddr @${ep.names.affinitySet} goto ${ep.names.chain}`);
  }
  const entries = endpoints.map((ep, i) => `${i} : goto ${ep.names.chain}`).join(' , ');
  tx.addRule(chain, `numgen random mod ${endpoints.length} vmap { ${entries} }`);
}

function nodeIPIn(cidrText: string, nodeIP: string): boolean {
  if (nodeIP === '') return false;
  const cidr = parseCIDRSloppy(cidrText);
  const ip = parseIPSloppy(nodeIP);
  return cidr.ok && ip.ok && cidrContains(cidr.value.cidr, ip.value);
}

/**
 * One service port's part of syncProxyRules. `skipServiceUpdate` (a partial sync of a port
 * whose service and endpoints did not change) keeps its chains as they are and only notes
 * them as active; its elements are ensured either way.
 */
export function writeServicePort(
  acc: SyncAccumulator,
  config: NftablesProxierConfig,
  local: LocalTexts | undefined,
  svc: ServicePortInfo<NftServiceChainNames>,
  allEndpoints: readonly EndpointInfo[],
  skipServiceUpdate: boolean,
): void {
  const { tx, storages, activeAffinitySets } = acc;
  const { ipX } = familyWords(config.family);
  const protocol = svc.protocol;
  const port = String(svc.port);
  const chains = svc.chains;
  const cache = new Map<EndpointInfo, Endpoint>();
  const categorized = categorizeEndpoints(allEndpoints, svc, nodeTopologyOf(config));
  const clusterEndpoints = withNames(svc, categorized.clusterEndpoints, cache);
  const localEndpoints = withNames(svc, categorized.localEndpoints, cache);
  const reachable = withNames(svc, categorized.allReachableEndpoints, cache);
  const hasEndpoints = categorized.hasAnyEndpoints;
  const record = acc.record;

  for (const ep of reachable) {
    noteChain(acc, ep.names.chain, skipServiceUpdate);
    if (svc.clientIPAffinity) {
      activeAffinitySets.add(ep.names.affinitySet);
      record?.affinitySets.push(ep.names.affinitySet);
    }
  }

  const usesClusterPolicyChain = clusterEndpoints.length > 0 && usesClusterEndpoints(svc);
  if (usesClusterPolicyChain) noteChain(acc, chains.cluster, skipServiceUpdate);
  const usesLocalPolicyChain = localEndpoints.length > 0 && usesLocalEndpoints(svc);
  if (usesLocalPolicyChain) noteChain(acc, chains.local, skipServiceUpdate);

  const internalTrafficChain = svc.internalPolicyLocal ? chains.local : chains.cluster;
  const hasInternalEndpoints = hasEndpoints && !(svc.internalPolicyLocal && localEndpoints.length === 0);
  const externalPolicyChain = svc.externalPolicyLocal ? chains.local : chains.cluster;
  const hasExternalEndpoints = hasEndpoints && !(svc.externalPolicyLocal && localEndpoints.length === 0);
  const externalTrafficChain = chains.external;

  // The local-traffic short circuits are needed even without externally usable endpoints.
  const usesExternalTrafficChain = hasEndpoints && isExternallyAccessible(svc);
  if (usesExternalTrafficChain) noteChain(acc, externalTrafficChain, skipServiceUpdate);

  if (hasEndpoints && !hasInternalEndpoints) {
    acc.noLocalEndpoints.internal++;
    if (record !== undefined) record.internal++;
  }
  if (hasEndpoints && !hasExternalEndpoints) {
    acc.noLocalEndpoints.external++;
    if (record !== undefined) record.external++;
  }

  // No endpoints at all: reject; none for the policy: drop.
  const internalVerdict = hasEndpoints ? 'drop' : `goto ${REJECT_CHAIN}`;
  const externalVerdict = internalVerdict;
  const comment = svc.nameString;

  storages.clusterIPs.ensure(tx, { set: CLUSTER_IPS_SET, key: [svc.clusterIP] });
  if (hasInternalEndpoints) {
    storages.serviceIPs.ensure(tx, { set: SERVICE_IPS_MAP, key: [svc.clusterIP, protocol, port], value: [`goto ${internalTrafficChain}`] });
  } else {
    storages.noEndpointServices.ensure(tx, { set: NO_ENDPOINT_SERVICES_MAP, key: [svc.clusterIP, protocol, port], value: [internalVerdict], comment });
  }

  for (const externalIP of svc.externalIPs) {
    if (hasEndpoints) {
      storages.serviceIPs.ensure(tx, { set: SERVICE_IPS_MAP, key: [externalIP, protocol, port], value: [`goto ${externalTrafficChain}`] });
    }
    if (!hasExternalEndpoints) {
      storages.noEndpointServices.ensure(tx, { set: NO_ENDPOINT_SERVICES_MAP, key: [externalIP, protocol, port], value: [externalVerdict], comment });
    }
  }

  const usesFWChain = svc.loadBalancerVIPs.length > 0 && svc.loadBalancerSourceRanges.length > 0;
  if (usesFWChain) noteChain(acc, chains.firewall, skipServiceUpdate);
  for (const lbip of svc.loadBalancerVIPs) {
    if (hasEndpoints) {
      storages.serviceIPs.ensure(tx, { set: SERVICE_IPS_MAP, key: [lbip, protocol, port], value: [`goto ${externalTrafficChain}`] });
    }
    if (usesFWChain) {
      storages.firewallIPs.ensure(tx, { set: FIREWALL_IPS_MAP, key: [lbip, protocol, port], value: [`goto ${chains.firewall}`] });
    }
  }
  if (!hasExternalEndpoints) {
    for (const lbip of svc.loadBalancerVIPs) {
      storages.noEndpointServices.ensure(tx, { set: NO_ENDPOINT_SERVICES_MAP, key: [lbip, protocol, port], value: [externalVerdict], comment });
    }
  }

  if (svc.nodePort !== 0) {
    const nodePort = String(svc.nodePort);
    if (hasEndpoints) {
      // NodePorts are not subject to loadBalancerSourceRanges.
      storages.serviceNodePorts.ensure(tx, { set: SERVICE_NODEPORTS_MAP, key: [protocol, nodePort], value: [`goto ${externalTrafficChain}`] });
    }
    if (!hasExternalEndpoints) {
      storages.noEndpointNodePorts.ensure(tx, { set: NO_ENDPOINT_NODEPORTS_MAP, key: [protocol, nodePort], value: [externalVerdict], comment });
    }
  }

  if (skipServiceUpdate) return;

  if (hasInternalEndpoints) {
    const match = `${ipX} daddr ${svc.clusterIP} ${protocol} dport ${port}`;
    if (config.masqueradeAll) tx.addRule(internalTrafficChain, `${match} jump ${MARK_MASQ_CHAIN}`);
    else if (local !== undefined) tx.addRule(internalTrafficChain, `${match} ${local.ifNotLocal} jump ${MARK_MASQ_CHAIN}`);
  }

  if (usesExternalTrafficChain) {
    if (!svc.externalPolicyLocal) {
      // Non-local endpoints: masquerade, in case the traffic crosses nodes.
      tx.addRule(externalTrafficChain, `jump ${MARK_MASQ_CHAIN}`);
    } else {
      // Pods' traffic to an external destination is subject to neither policy.
      if (local !== undefined) tx.addRule(externalTrafficChain, `${local.ifLocal} goto ${chains.cluster}`, 'short-circuit pod traffic');
      tx.addRule(externalTrafficChain, `fib saddr type local jump ${MARK_MASQ_CHAIN}`, 'masquerade local traffic');
      tx.addRule(externalTrafficChain, `fib saddr type local goto ${chains.cluster}`, 'short-circuit local traffic');
    }
    if (hasExternalEndpoints) tx.addRule(externalTrafficChain, `goto ${externalPolicyChain}`);
  }

  if (usesFWChain) {
    const sources = [...svc.loadBalancerSourceRanges];
    if (svc.loadBalancerSourceRanges.some((cidr) => nodeIPIn(cidr, config.nodeIP))) sources.push(...svc.loadBalancerVIPs);
    tx.addRule(chains.firewall, `${ipX} saddr != { ${sources.join(' , ')} } drop`);
  }

  if (svc.clientIPAffinity) {
    const { addrType } = familyWords(config.family);
    for (const ep of reachable) {
      tx.addSet('set', { name: ep.names.affinitySet, type: addrType, flags: ['dynamic', 'timeout'], timeout: `${svc.stickyMaxAgeSeconds}s` });
    }
  }

  if (usesClusterPolicyChain) writeServiceToEndpointRules(tx, ipX, svc, chains.cluster, clusterEndpoints);
  if (usesLocalPolicyChain) writeServiceToEndpointRules(tx, ipX, svc, chains.local, localEndpoints);

  for (const ep of reachable) {
    const chain = ep.names.chain;
    // Traffic that loops back to its sender is masqueraded.
    tx.addRule(chain, `${ipX} saddr ${ep.info.ip} jump ${MARK_MASQ_CHAIN}`);
    if (svc.clientIPAffinity) tx.addRule(chain, `update @${ep.names.affinitySet} { ${ipX} saddr }`);
    tx.addRule(chain, `meta l4proto ${protocol} dnat to ${ep.info.hostPort}`);
  }
}
