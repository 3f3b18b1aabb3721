// syncProxyRules as a pure function: Services + EndpointSlices + proxier settings in, the
// iptables-restore input for the filter and nat tables out (a full sync, with no stale
// chains to delete). upstream: pkg/proxy/iptables/proxier.go (syncProxyRules,
// writeServiceToEndpointRules, appendServiceCommentLocked), at the v1.30/v1.31 line.
//
// Ordering: upstream walks its service map in Go's random order. Here service ports are
// taken by namespace, then name (byte order), then their order in spec.ports; everything
// inside one service port is written in upstream's order. See the README, "Ordering".

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { categorizeEndpoints, compareStrings, endpointChain, endpointsMap, servicePortKey, type EndpointInfo } from './endpoints.js';
import { nodePortAddresses, nodePortIPs } from './node-port-addresses.js';
import { printRestoreText } from './print-restore.js';
import { probabilityText } from './probability.js';
import type { ProxierConfig } from './proxier-config.js';
import type { Match, Rule, Ruleset, Target } from './ruleset.js';
import {
  isExternallyAccessible,
  servicePortInfos,
  usesClusterEndpoints,
  usesLocalEndpoints,
  type ServicePortInfo,
} from './service-ports.js';
import { cidrContains, formatIP, isLoopback, parseCIDRSloppy, parseIPSloppy, type IP } from '@kubesvc/api-types';

export const KUBE_SERVICES = 'KUBE-SERVICES';
export const KUBE_EXTERNAL_SERVICES = 'KUBE-EXTERNAL-SERVICES';
export const KUBE_NODEPORTS = 'KUBE-NODEPORTS';
export const KUBE_POSTROUTING = 'KUBE-POSTROUTING';
export const KUBE_MARK_MASQ = 'KUBE-MARK-MASQ';
export const KUBE_FORWARD = 'KUBE-FORWARD';
export const KUBE_PROXY_FIREWALL = 'KUBE-PROXY-FIREWALL';
export const KUBE_FIREWALL = 'KUBE-FIREWALL';

/** upstream: pkg/proxy/metrics (nfacct counter names). */
export const CT_STATE_INVALID_DROPPED_COUNTER = 'ct_state_invalid_dropped_pkts';
export const LOCALHOST_NODEPORT_ACCEPTED_COUNTER = 'localhost_nps_accepted_pkts';

export const NODEPORTS_LAST_RULE_COMMENT = 'kubernetes service nodeports; NOTE: this must be the last rule in this chain';

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
}

const comment = (text: string): Match => ({ kind: 'comment', text });
const jump = (chain: string): Target => ({ kind: 'jump', chain });

/**
 * The service ports of all services for the proxier's family, in our deterministic order. A
 * Service listed twice (same namespace and name) counts once, the last listing winning, as
 * in an informer's store.
 */
export function orderedServicePorts(services: readonly Service[], family: 4 | 6): ServicePortInfo[] {
  const byName = new Map<string, Service>();
  for (const service of services) byName.set(`${service.metadata.namespace ?? 'default'}/${service.metadata.name ?? ''}`, service);
  const sorted = [...byName.values()]
    .sort(
      (a, b) =>
        compareStrings(a.metadata.namespace ?? 'default', b.metadata.namespace ?? 'default') ||
        compareStrings(a.metadata.name ?? '', b.metadata.name ?? ''),
    );
  return sorted.flatMap((service) => servicePortInfos(service, family));
}

export function generateRules(
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: ProxierConfig,
): IptablesRules {
  const family = config.family;
  const isIPv6 = family === 6;
  const mark = config.masqueradeMark;

  const filterChains: string[] = [KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_PROXY_FIREWALL];
  const natChains: string[] = [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ];
  const filterRules: Rule[] = [];
  const natRules: Rule[] = [];
  const filter = (chain: string, matches: Match[], target?: Target): void => {
    filterRules.push(target === undefined ? { chain, matches } : { chain, matches, target });
  };
  const nat = (chain: string, matches: Match[], target?: Target): void => {
    natRules.push(target === undefined ? { chain, matches } : { chain, matches, target });
  };

  nat(KUBE_POSTROUTING, [{ kind: 'mark', value: mark, mask: mark, negated: true }], { kind: 'return' });
  // Clear the mark so that a packet re-traversing the stack is not masqueraded twice.
  nat(KUBE_POSTROUTING, [], { kind: 'mark', op: 'xor', value: mark });
  nat(KUBE_POSTROUTING, [comment('kubernetes service traffic requiring SNAT')], {
    kind: 'masquerade',
    randomFully: config.randomFully,
  });
  nat(KUBE_MARK_MASQ, [], { kind: 'mark', op: 'or', value: mark });

  if (!isIPv6 && config.localhostNodePorts) {
    // Mitigates the route_localnet hole (kubelet writes the same rule).
    filterChains.push(KUBE_FIREWALL);
    filter(
      KUBE_FIREWALL,
      [
        comment('block incoming localnet connections'),
        { kind: 'destination', address: '127.0.0.0/8', negated: false },
        { kind: 'source', address: '127.0.0.0/8', negated: true },
        { kind: 'conntrack', states: ['RELATED', 'ESTABLISHED', 'DNAT'], negated: true },
      ],
      { kind: 'drop' },
    );
  }

  const ports = orderedServicePorts(services, family);
  const epMap = endpointsMap(endpointSlices, family, config.nodeName);
  const portsWithEndpoints = ports.map(
    (svc) => [svc, epMap.get(servicePortKey(svc.namespace, svc.name, svc.portName, svc.protocol)) ?? []] as const,
  );

  let totalEndpoints = 0;
  for (const [, endpoints] of portsWithEndpoints) totalEndpoints += endpoints.length;
  const largeClusterMode = totalEndpoints > config.largeClusterThreshold;
  const serviceComment = (text: string): Match[] => (largeClusterMode ? [] : [comment(text)]);

  const nodeIP = parseIPSloppy(config.nodeIP);
  const localIfNotLocal: Match[] =
    config.localDetector.kind === 'cidr' ? [{ kind: 'source', address: config.localDetector.cidr, negated: true }] : [];
  const localIfLocal: Match[] =
    config.localDetector.kind === 'cidr' ? [{ kind: 'source', address: config.localDetector.cidr, negated: false }] : [];
  const detectorImplemented = config.localDetector.kind === 'cidr';

  // upstream precomputes the probability strings; here they are cached per call.
  const probabilities = new Map<number, string>();
  const probability = (n: number): string => {
    let text = probabilities.get(n);
    if (text === undefined) {
      text = probabilityText(n, config.probabilityFormat);
      probabilities.set(n, text);
    }
    return text;
  };

  for (const [svc, endpoints] of portsWithEndpoints) {
    const protocol = svc.protocol;
    const sepChains = new Map<EndpointInfo, string>();
    const sepChain = (ep: EndpointInfo): string => {
      let chain = sepChains.get(ep);
      if (chain === undefined) {
        chain = endpointChain(svc, ep);
        sepChains.set(ep, chain);
      }
      return chain;
    };
    const spn = svc.nameString;
    const proto: Match = { kind: 'protocol', protocol };
    const dport = (port: number): Match => ({ kind: 'dport', port });
    const dst = (address: string): Match => ({ kind: 'destination', address, negated: false });

    const { clusterEndpoints, localEndpoints, allReachableEndpoints, hasAnyEndpoints } = categorizeEndpoints(endpoints, svc);
    const hasEndpoints = hasAnyEndpoints;
    const clusterPolicyChain = svc.chains.cluster;
    const usesClusterPolicyChain = clusterEndpoints.length > 0 && usesClusterEndpoints(svc);
    const localPolicyChain = svc.chains.local;
    const usesLocalPolicyChain = localEndpoints.length > 0 && usesLocalEndpoints(svc);

    let internalPolicyChain = clusterPolicyChain;
    let hasInternalEndpoints = hasEndpoints;
    if (svc.internalPolicyLocal) {
      internalPolicyChain = localPolicyChain;
      if (localEndpoints.length === 0) hasInternalEndpoints = false;
    }
    const internalTrafficChain = internalPolicyChain;

    let externalPolicyChain = clusterPolicyChain;
    let hasExternalEndpoints = hasEndpoints;
    if (svc.externalPolicyLocal) {
      externalPolicyChain = localPolicyChain;
      if (localEndpoints.length === 0) hasExternalEndpoints = false;
    }
    const externalTrafficChain = svc.chains.external;
    // Based on hasEndpoints, not hasExternalEndpoints: the short-circuit rules for local
    // traffic are needed even when no endpoint takes external traffic.
    const usesExternalTrafficChain = hasEndpoints && isExternallyAccessible(svc);

    let loadBalancerTrafficChain = externalTrafficChain;
    const fwChain = svc.chains.firewall;
    const usesFWChain = hasEndpoints && svc.loadBalancerVIPs.length > 0 && svc.loadBalancerSourceRanges.length > 0;
    if (usesFWChain) loadBalancerTrafficChain = fwChain;

    let internalFilterTarget: Target = { kind: 'reject' };
    let internalFilterComment = '';
    let externalFilterTarget: Target = { kind: 'reject' };
    let externalFilterComment = '';
    if (!hasEndpoints) {
      internalFilterComment = `${spn} has no endpoints`;
      externalFilterComment = internalFilterComment;
    } else {
      if (!hasInternalEndpoints) {
        internalFilterTarget = { kind: 'drop' };
        internalFilterComment = `${spn} has no local endpoints`;
      }
      if (!hasExternalEndpoints) {
        externalFilterTarget = { kind: 'drop' };
        externalFilterComment = `${spn} has no local endpoints`;
      }
    }

    // Capture the clusterIP.
    if (hasInternalEndpoints) {
      nat(
        KUBE_SERVICES,
        [comment(`${spn} cluster IP`), proto, dst(svc.clusterIP), dport(svc.port)],
        jump(internalTrafficChain),
      );
    } else {
      filter(
        KUBE_SERVICES,
        [comment(internalFilterComment), proto, dst(svc.clusterIP), dport(svc.port)],
        internalFilterTarget,
      );
    }

    // Capture externalIPs.
    for (const externalIP of svc.externalIPs) {
      if (hasEndpoints) {
        nat(
          KUBE_SERVICES,
          [comment(`${spn} external IP`), proto, dst(externalIP), dport(svc.port)],
          jump(externalTrafficChain),
        );
      }
      if (!hasExternalEndpoints) {
        filter(
          KUBE_EXTERNAL_SERVICES,
          [comment(externalFilterComment), proto, dst(externalIP), dport(svc.port)],
          externalFilterTarget,
        );
      }
    }

    // Capture load-balancer ingress.
    for (const lbip of svc.loadBalancerVIPs) {
      if (hasEndpoints) {
        nat(
          KUBE_SERVICES,
          [comment(`${spn} loadbalancer IP`), proto, dst(lbip), dport(svc.port)],
          jump(loadBalancerTrafficChain),
        );
      }
      if (usesFWChain) {
        filter(
          KUBE_PROXY_FIREWALL,
          [comment(`${spn} traffic not accepted by ${fwChain}`), proto, dst(lbip), dport(svc.port)],
          { kind: 'drop' },
        );
      }
    }
    if (!hasExternalEndpoints) {
      for (const lbip of svc.loadBalancerVIPs) {
        filter(
          KUBE_EXTERNAL_SERVICES,
          [comment(externalFilterComment), proto, dst(lbip), dport(svc.port)],
          externalFilterTarget,
        );
      }
    }

    // Capture nodeports. (NodePorts are not subject to loadBalancerSourceRanges.)
    if (svc.nodePort !== 0) {
      if (hasEndpoints) {
        if (config.localhostNodePorts && family === 4 && config.nfacctCounters) {
          nat(
            KUBE_NODEPORTS,
            [
              comment(spn),
              proto,
              dst('127.0.0.0/8'),
              dport(svc.nodePort),
              { kind: 'nfacct', name: LOCALHOST_NODEPORT_ACCEPTED_COUNTER },
            ],
            jump(externalTrafficChain),
          );
        }
        nat(KUBE_NODEPORTS, [comment(spn), proto, dport(svc.nodePort)], jump(externalTrafficChain));
      }
      if (!hasExternalEndpoints) {
        filter(
          KUBE_EXTERNAL_SERVICES,
          [
            comment(externalFilterComment),
            { kind: 'addrtype', direction: 'dst', addressType: 'LOCAL' },
            proto,
            dport(svc.nodePort),
          ],
          externalFilterTarget,
        );
      }
    }

    // Health-check node ports are accepted whether or not there are local endpoints.
    if (svc.healthCheckNodePort !== 0) {
      filter(
        KUBE_NODEPORTS,
        [comment(`${spn} health check node port`), { kind: 'protocol', protocol: 'tcp' }, dport(svc.healthCheckNodePort)],
        { kind: 'accept' },
      );
    }

    // Internal traffic handling: masquerade off-cluster traffic to the cluster IP.
    if (hasInternalEndpoints) {
      const args: Match[] = [comment(`${spn} cluster IP`), proto, dst(svc.clusterIP), dport(svc.port)];
      if (config.masqueradeAll) {
        nat(internalTrafficChain, args, jump(KUBE_MARK_MASQ));
      } else if (detectorImplemented) {
        nat(internalTrafficChain, [...args, ...localIfNotLocal], jump(KUBE_MARK_MASQ));
      }
    }

    // External traffic handling.
    if (usesExternalTrafficChain) {
      natChains.push(externalTrafficChain);
      if (!svc.externalPolicyLocal) {
        nat(externalTrafficChain, [comment(`masquerade traffic for ${spn} external destinations`)], jump(KUBE_MARK_MASQ));
      } else {
        if (detectorImplemented) {
          // Pod → external destination is treated like going out to the load balancer and
          // coming back in: subject to neither traffic policy.
          nat(
            externalTrafficChain,
            [comment(`pod traffic for ${spn} external destinations`), ...localIfLocal],
            jump(clusterPolicyChain),
          );
        }
        nat(
          externalTrafficChain,
          [
            comment(`masquerade LOCAL traffic for ${spn} external destinations`),
            { kind: 'addrtype', direction: 'src', addressType: 'LOCAL' },
          ],
          jump(KUBE_MARK_MASQ),
        );
        nat(
          externalTrafficChain,
          [
            comment(`route LOCAL traffic for ${spn} external destinations`),
            { kind: 'addrtype', direction: 'src', addressType: 'LOCAL' },
          ],
          jump(clusterPolicyChain),
        );
      }
      if (hasExternalEndpoints) nat(externalTrafficChain, [], jump(externalPolicyChain));
    }

    // Firewall chain for loadBalancerSourceRanges.
    if (usesFWChain) {
      natChains.push(fwChain);
      const head = comment(`${spn} loadbalancer IP`);
      let allowFromNode = false;
      for (const cidr of svc.loadBalancerSourceRanges) {
        nat(fwChain, [head, { kind: 'source', address: cidr, negated: false }], jump(externalTrafficChain));
        if (nodeIP.ok && cidrTextContains(cidr, nodeIP.value)) allowFromNode = true;
      }
      // A VIP-like LB address is often local to the node: a node → VIP request loops back
      // with the VIP as its source.
      if (allowFromNode) {
        for (const lbip of svc.loadBalancerVIPs) {
          nat(fwChain, [head, { kind: 'source', address: lbip, negated: false }], jump(externalTrafficChain));
        }
      }
      // What reaches the end was not DNATed; KUBE-PROXY-FIREWALL drops it.
      nat(fwChain, [comment(`other traffic to ${spn} will be dropped by KUBE-PROXY-FIREWALL`)]);
    }

    if (usesClusterPolicyChain) {
      natChains.push(clusterPolicyChain);
      writeServiceToEndpointRules(nat, svc, clusterPolicyChain, clusterEndpoints, largeClusterMode, sepChain, probability);
    }
    if (usesLocalPolicyChain) {
      natChains.push(localPolicyChain);
      writeServiceToEndpointRules(nat, svc, localPolicyChain, localEndpoints, largeClusterMode, sepChain, probability);
    }

    // Per-endpoint chains.
    const base = serviceComment(spn);
    for (const ep of allReachableEndpoints) {
      const chain = sepChain(ep);
      natChains.push(chain);
      // Hairpin: traffic that loops back to its originator must be SNATed.
      nat(chain, [...base, { kind: 'source', address: ep.ip, negated: false }], jump(KUBE_MARK_MASQ));
      const affinity: Match[] = svc.clientIPAffinity ? [{ kind: 'recent-set', name: chain }] : [];
      nat(chain, [...base, ...affinity, proto], { kind: 'dnat', destination: ep.hostPort });
    }
  }

  // Finally, the jump to KUBE-NODEPORTS, which must follow every other service rule.
  const npa = nodePortAddresses(config.nodePortAddresses, family);
  if (npa.matchAll) {
    const destinations: Match[] = [{ kind: 'addrtype', direction: 'dst', addressType: 'LOCAL' }];
    if (isIPv6) destinations.push({ kind: 'destination', address: '::1/128', negated: true });
    else if (!config.localhostNodePorts) destinations.push({ kind: 'destination', address: '127.0.0.0/8', negated: true });
    nat(KUBE_SERVICES, [comment(NODEPORTS_LAST_RULE_COMMENT), ...destinations], jump(KUBE_NODEPORTS));
  } else {
    for (const ip of nodePortIPs(npa, config.nodeIPs)) {
      // Loopback is skipped for IPv6, and for IPv4 when localhost NodePorts are off.
      if (isLoopback(ip) && (isIPv6 || !config.localhostNodePorts)) continue;
      nat(
        KUBE_SERVICES,
        [comment(NODEPORTS_LAST_RULE_COMMENT), { kind: 'destination', address: formatIP(ip), negated: false }],
        jump(KUBE_NODEPORTS),
      );
    }
  }

  // Drop INVALID packets, unless nf_conntrack_tcp_be_liberal makes that unnecessary.
  if (!config.conntrackTCPLiberal) {
    const matches: Match[] = [{ kind: 'conntrack', states: ['INVALID'], negated: false }];
    if (config.nfacctCounters) matches.push({ kind: 'nfacct', name: CT_STATE_INVALID_DROPPED_COUNTER });
    filter(KUBE_FORWARD, matches, { kind: 'drop' });
  }
  filter(
    KUBE_FORWARD,
    [comment('kubernetes forwarding rules'), { kind: 'mark', value: mark, mask: mark, negated: false }],
    { kind: 'accept' },
  );
  filter(
    KUBE_FORWARD,
    [
      comment('kubernetes forwarding conntrack rule'),
      { kind: 'conntrack', states: ['RELATED', 'ESTABLISHED'], negated: false },
    ],
    { kind: 'accept' },
  );

  const ruleset: Ruleset = {
    family,
    tables: [
      { name: 'filter', chains: filterChains, rules: filterRules, deletedChains: [] },
      { name: 'nat', chains: natChains, rules: natRules, deletedChains: [] },
    ],
  };
  return {
    ruleset,
    restoreText: printRestoreText(ruleset),
    stats: {
      servicePorts: ports.length,
      endpoints: totalEndpoints,
      largeClusterMode,
      filterRules: filterRules.length,
      natRules: natRules.length,
      filterChains: filterChains.length,
      natChains: natChains.length,
    },
  };
}

function writeServiceToEndpointRules(
  nat: (chain: string, matches: Match[], target?: Target) => void,
  svc: ServicePortInfo,
  svcChain: string,
  endpoints: readonly EndpointInfo[],
  largeClusterMode: boolean,
  sepChain: (ep: EndpointInfo) => string,
  probability: (n: number) => string,
): void {
  // Large clusters leave the comment out, so its text is not even built.
  const endpointComment = (ep: EndpointInfo): Match[] =>
    largeClusterMode ? [] : [comment(`${svc.nameString} -> ${ep.hostPort}`)];
  // Session affinity first: a client seen recently goes back to its endpoint.
  if (svc.clientIPAffinity) {
    for (const ep of endpoints) {
      const chain = sepChain(ep);
      nat(
        svcChain,
        [...endpointComment(ep), { kind: 'recent-check', name: chain, seconds: svc.stickyMaxAgeSeconds }],
        jump(chain),
      );
    }
  }
  // Then load balancing: endpoint i of n takes 1/(n-i) of what is left; the last takes the rest.
  const n = endpoints.length;
  endpoints.forEach((ep, i) => {
    const chain = sepChain(ep);
    const matches = endpointComment(ep);
    if (i < n - 1) {
      matches.push({ kind: 'statistic', probability: probability(n - i), denominator: n - i });
    }
    nat(svcChain, matches, jump(chain));
  });
}

function cidrTextContains(cidrText: string, ip: IP): boolean {
  const cidr = parseCIDRSloppy(cidrText);
  return cidr.ok && cidrContains(cidr.value.cidr, ip);
}
