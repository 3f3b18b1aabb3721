// The rules kube-proxy writes, built once and handed to a sink: generateRules collects them as
// Rule values (a Ruleset), sync prints them straight to text and keeps the text per service.
// Both go through these functions, so the structure and the text cannot drift apart.
// upstream: pkg/proxy/iptables/proxier.go (syncProxyRules, writeServiceToEndpointRules,
// appendServiceCommentLocked), at the v1.30/v1.31 line.
//
// A sink sees four streams, because a partial sync treats them differently (upstream writes the
// per-service chains of an unchanged service to a discarded buffer, everything else always):
// filter-table rules, the top-level nat rules of a service (KUBE-SERVICES, KUBE-NODEPORTS), the
// per-service chain declarations, and the rules of those chains.

import { cidrContains, formatIP, isLoopback, parseCIDRSloppy, parseIPSloppy, type IP } from '@kubesvc/api-types';
import {
  categorizeEndpoints,
  nodeTopologyOf,
  type EndpointInfo,
  flat,
  isExternallyAccessible,
  nodePortAddresses,
  nodePortIPs,
  usesClusterEndpoints,
  usesLocalEndpoints,
} from '@kubesvc/proxy';
import { endpointChainLines, endpointChainTemplate, type EndpointChainTemplate, JUMP_TEXT, ruleHead, statisticJumpText } from './print-restore.js';
import { probabilityText } from '../probability.js';
import type { ProxierConfig } from '../proxier-config.js';
import type { L4Protocol, Match, Target } from '../ruleset.js';
import type { ServicePortInfo } from '../service-ports.js';

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

/**
 * Where the builder puts what it writes: the one way rules are rendered. A full render's sinks
 * are in generate/sinks.ts (RulesetSink: Rule values; RestoreTextSink: restore text as strings;
 * KernelTextSink: restore text as bytes in the config's kernel), a sync's in sync/sinks.ts (the
 * same two printers, keeping each Service's slice of the text).
 */
export interface RuleSink {
  /** A filter-table rule (always written). */
  filter(chain: string, matches: readonly Match[], target?: Target): void;
  /** A nat rule in a top-level chain: KUBE-SERVICES, KUBE-NODEPORTS, KUBE-POSTROUTING, KUBE-MARK-MASQ (always written). */
  natTop(chain: string, matches: readonly Match[], target?: Target): void;
  /** A per-service nat chain (SVC, SVL, EXT, FW, SEP) is declared. */
  natChain(chain: string): void;
  /** A rule of a per-service nat chain. */
  nat(chain: string, matches: readonly Match[], target?: Target): void;
  /**
   * Optional, for sinks that only print: `lines` rules of the per-service nat chain `chain`,
   * already printed (`-A chain ...` lines with their newlines, exactly what `nat` would have
   * printed). The builder then writes the per-endpoint rules from templates, without a match
   * or target object per rule. Sinks that keep typed rules leave it out and get `nat` calls.
   */
  natPrinted?(chain: string, text: string, lines: number): void;
  /**
   * Optional, for sinks that only print: everything per endpoint of a large cluster's service
   * port without session affinity (the load-balancing rules of its KUBE-SVC-/KUBE-SVL- chains,
   * whose declarations the builder has written, and each endpoint's chain declaration and two
   * rules). True if the sink wrote them all; false if it wrote nothing (the builder then writes
   * them rule by rule).
   */
  natEndpointBlock?(block: EndpointBlock): boolean;
}

/** What natEndpointBlock prints: see there. */
export interface EndpointBlock {
  readonly svc: ServicePortInfo;
  readonly ctx: RuleContext;
  /** The endpoints that get a chain, in order (allReachableEndpoints). */
  readonly endpoints: readonly EndpointInfo[];
  /** The KUBE-SVC- chain and its endpoints, when it is used. */
  readonly clusterChain: string | undefined;
  readonly clusterEndpoints: readonly EndpointInfo[];
  /** The KUBE-SVL- chain and its endpoints, when it is used. */
  readonly localChain: string | undefined;
  readonly localEndpoints: readonly EndpointInfo[];
  readonly template: EndpointChainTemplate;
  readonly sepChain: (ep: EndpointInfo) => string;
}

/** What the rules of every service port depend on besides the service port and its endpoints. */
export interface RuleContext {
  readonly config: ProxierConfig;
  readonly largeClusterMode: boolean;
  readonly localIfNotLocal: readonly Match[];
  readonly localIfLocal: readonly Match[];
  readonly detectorImplemented: boolean;
  readonly nodeIP: IP | undefined;
  /** The `-m statistic` match for 1/n, made once per n (upstream precomputes the strings too). */
  readonly statistic: (n: number) => Match;
  /** `[statistic(n)]`, made once per n: the whole match list of a large cluster's load-balancing rule. */
  readonly statisticMatches: (n: number) => readonly Match[];
  /** statisticJumpText(statistic(n)), made once per n: a large cluster's load-balancing rule, printed. */
  readonly statisticJump: (n: number) => string;
}

/** A cache of statistic matches for one probability format; share it between contexts of one config. */
export type StatisticCache = Map<number, Match>;

export function ruleContext(config: ProxierConfig, largeClusterMode: boolean, cache: StatisticCache = new Map()): RuleContext {
  const detector = config.localDetector;
  const nodeIP = parseIPSloppy(config.nodeIP);
  const statistic = (n: number): Match => {
    let match = cache.get(n);
    if (match === undefined) {
      // Flat: the text is printed once per endpoint, and a rope would be walked each time.
      match = { kind: 'statistic', probability: flat(probabilityText(n, config.probabilityFormat)), denominator: n };
      cache.set(n, match);
    }
    return match;
  };
  const lists = new Map<number, readonly Match[]>();
  const jumps = new Map<number, string>();
  return {
    config,
    largeClusterMode,
    localIfNotLocal: detector.kind === 'cidr' ? [{ kind: 'source', address: detector.cidr, negated: true }] : [],
    localIfLocal: detector.kind === 'cidr' ? [{ kind: 'source', address: detector.cidr, negated: false }] : [],
    detectorImplemented: detector.kind === 'cidr',
    nodeIP: nodeIP.ok ? nodeIP.value : undefined,
    statistic,
    statisticMatches: (n) => {
      let list = lists.get(n);
      if (list === undefined) {
        list = [statistic(n)];
        lists.set(n, list);
      }
      return list;
    },
    statisticJump: (n) => {
      let text = jumps.get(n);
      if (text === undefined) {
        text = statisticJumpText(statistic(n));
        jumps.set(n, text);
      }
      return text;
    },
  };
}

const comment = (text: string): Match => ({ kind: 'comment', text });
const jump = (chain: string): Target => ({ kind: 'jump', chain });
const JUMP_MARK_MASQ: Target = jump(KUBE_MARK_MASQ);
const SRC_LOCAL: Match = { kind: 'addrtype', direction: 'src', addressType: 'LOCAL' };
const DST_LOCAL: Match = { kind: 'addrtype', direction: 'dst', addressType: 'LOCAL' };
const PROTOCOL: Readonly<Record<L4Protocol, Match>> = {
  tcp: { kind: 'protocol', protocol: 'tcp' },
  udp: { kind: 'protocol', protocol: 'udp' },
  sctp: { kind: 'protocol', protocol: 'sctp' },
};
const NO_MATCHES: readonly Match[] = [];

/** The filter chains declared on every sync, in upstream's order. */
export function fixedFilterChains(config: ProxierConfig): string[] {
  const chains = [KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_PROXY_FIREWALL];
  if (config.family === 4 && config.localhostNodePorts) chains.push(KUBE_FIREWALL);
  return chains;
}

/** The nat chains declared on every sync, in upstream's order. */
export function fixedNatChains(): string[] {
  return [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ];
}

/** The rules written before any service's: KUBE-POSTROUTING, KUBE-MARK-MASQ, KUBE-FIREWALL. */
export function writeHeadRules(sink: RuleSink, config: ProxierConfig): void {
  const mark = config.masqueradeMark;
  sink.natTop(KUBE_POSTROUTING, [{ kind: 'mark', value: mark, mask: mark, negated: true }], { kind: 'return' });
  // Clear the mark so that a packet re-traversing the stack is not masqueraded twice.
  sink.natTop(KUBE_POSTROUTING, NO_MATCHES, { kind: 'mark', op: 'xor', value: mark });
  sink.natTop(KUBE_POSTROUTING, [comment('kubernetes service traffic requiring SNAT')], {
    kind: 'masquerade',
    randomFully: config.randomFully,
  });
  sink.natTop(KUBE_MARK_MASQ, NO_MATCHES, { kind: 'mark', op: 'or', value: mark });
  if (config.family === 4 && config.localhostNodePorts) {
    // Mitigates the route_localnet hole (kubelet writes the same rule).
    sink.filter(
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
}

/** The rules written after every service's: the jump to KUBE-NODEPORTS (last in KUBE-SERVICES) and KUBE-FORWARD. */
export function writeTailRules(sink: RuleSink, config: ProxierConfig): void {
  const isIPv6 = config.family === 6;
  const npa = nodePortAddresses(config.nodePortAddresses, config.family);
  if (npa.matchAll) {
    const destinations: Match[] = [DST_LOCAL];
    if (isIPv6) destinations.push({ kind: 'destination', address: '::1/128', negated: true });
    else if (!config.localhostNodePorts) destinations.push({ kind: 'destination', address: '127.0.0.0/8', negated: true });
    sink.natTop(KUBE_SERVICES, [comment(NODEPORTS_LAST_RULE_COMMENT), ...destinations], jump(KUBE_NODEPORTS));
  } else {
    for (const ip of nodePortIPs(npa, config.nodeIPs)) {
      // Loopback is skipped for IPv6, and for IPv4 when localhost NodePorts are off.
      if (isLoopback(ip) && (isIPv6 || !config.localhostNodePorts)) continue;
      sink.natTop(
        KUBE_SERVICES,
        [comment(NODEPORTS_LAST_RULE_COMMENT), { kind: 'destination', address: formatIP(ip), negated: false }],
        jump(KUBE_NODEPORTS),
      );
    }
  }
  const mark = config.masqueradeMark;
  // Drop INVALID packets, unless nf_conntrack_tcp_be_liberal makes that unnecessary.
  if (!config.conntrackTCPLiberal) {
    const matches: Match[] = [{ kind: 'conntrack', states: ['INVALID'], negated: false }];
    if (config.nfacctCounters) matches.push({ kind: 'nfacct', name: CT_STATE_INVALID_DROPPED_COUNTER });
    sink.filter(KUBE_FORWARD, matches, { kind: 'drop' });
  }
  sink.filter(
    KUBE_FORWARD,
    [comment('kubernetes forwarding rules'), { kind: 'mark', value: mark, mask: mark, negated: false }],
    { kind: 'accept' },
  );
  sink.filter(
    KUBE_FORWARD,
    [comment('kubernetes forwarding conntrack rule'), { kind: 'conntrack', states: ['RELATED', 'ESTABLISHED'], negated: false }],
    { kind: 'accept' },
  );
}

/**
 * Everything one service port contributes, in upstream's order. `sepChain` names an endpoint's
 * KUBE-SEP- chain (callers memoise it: it is a SHA-256).
 */
export function writeServicePortRules(
  sink: RuleSink,
  svc: ServicePortInfo,
  endpoints: readonly EndpointInfo[],
  ctx: RuleContext,
  sepChain: (ep: EndpointInfo) => string,
): void {
  const config = ctx.config;
  const spn = svc.nameString;
  const proto = PROTOCOL[svc.protocol];
  const dport: Match = { kind: 'dport', port: svc.port };
  const dst = (address: string): Match => ({ kind: 'destination', address, negated: false });

  const { clusterEndpoints, localEndpoints, allReachableEndpoints, hasAnyEndpoints } = categorizeEndpoints(endpoints, svc, nodeTopologyOf(config));
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

  const clusterIPComment = comment(`${spn} cluster IP`);
  const clusterIPDst = dst(svc.clusterIP);

  // Capture the clusterIP.
  if (hasInternalEndpoints) {
    sink.natTop(KUBE_SERVICES, [clusterIPComment, proto, clusterIPDst, dport], jump(internalTrafficChain));
  } else {
    sink.filter(KUBE_SERVICES, [comment(internalFilterComment), proto, clusterIPDst, dport], internalFilterTarget);
  }

  // Capture externalIPs.
  for (const externalIP of svc.externalIPs) {
    if (hasEndpoints) {
      sink.natTop(KUBE_SERVICES, [comment(`${spn} external IP`), proto, dst(externalIP), dport], jump(externalTrafficChain));
    }
    if (!hasExternalEndpoints) {
      sink.filter(
        KUBE_EXTERNAL_SERVICES,
        [comment(externalFilterComment), proto, dst(externalIP), dport],
        externalFilterTarget,
      );
    }
  }

  // Capture load-balancer ingress.
  for (const lbip of svc.loadBalancerVIPs) {
    if (hasEndpoints) {
      sink.natTop(
        KUBE_SERVICES,
        [comment(`${spn} loadbalancer IP`), proto, dst(lbip), dport],
        jump(loadBalancerTrafficChain),
      );
    }
    if (usesFWChain) {
      sink.filter(
        KUBE_PROXY_FIREWALL,
        [comment(`${spn} traffic not accepted by ${fwChain}`), proto, dst(lbip), dport],
        { kind: 'drop' },
      );
    }
  }
  if (!hasExternalEndpoints) {
    for (const lbip of svc.loadBalancerVIPs) {
      sink.filter(KUBE_EXTERNAL_SERVICES, [comment(externalFilterComment), proto, dst(lbip), dport], externalFilterTarget);
    }
  }

  // Capture nodeports. (NodePorts are not subject to loadBalancerSourceRanges.)
  if (svc.nodePort !== 0) {
    const nodePort: Match = { kind: 'dport', port: svc.nodePort };
    if (hasEndpoints) {
      if (config.localhostNodePorts && config.family === 4 && config.nfacctCounters) {
        sink.natTop(
          KUBE_NODEPORTS,
          [comment(spn), proto, dst('127.0.0.0/8'), nodePort, { kind: 'nfacct', name: LOCALHOST_NODEPORT_ACCEPTED_COUNTER }],
          jump(externalTrafficChain),
        );
      }
      sink.natTop(KUBE_NODEPORTS, [comment(spn), proto, nodePort], jump(externalTrafficChain));
    }
    if (!hasExternalEndpoints) {
      sink.filter(KUBE_EXTERNAL_SERVICES, [comment(externalFilterComment), DST_LOCAL, proto, nodePort], externalFilterTarget);
    }
  }

  // Health-check node ports are accepted whether or not there are local endpoints.
  if (svc.healthCheckNodePort !== 0) {
    sink.filter(
      KUBE_NODEPORTS,
      [comment(`${spn} health check node port`), PROTOCOL.tcp, { kind: 'dport', port: svc.healthCheckNodePort }],
      { kind: 'accept' },
    );
  }

  // From here on: the per-service chains, which a partial sync writes only when they changed.

  // Internal traffic handling: masquerade off-cluster traffic to the cluster IP.
  if (hasInternalEndpoints) {
    if (config.masqueradeAll) {
      sink.nat(internalTrafficChain, [clusterIPComment, proto, clusterIPDst, dport], JUMP_MARK_MASQ);
    } else if (ctx.detectorImplemented) {
      sink.nat(internalTrafficChain, [clusterIPComment, proto, clusterIPDst, dport, ...ctx.localIfNotLocal], JUMP_MARK_MASQ);
    }
  }

  // External traffic handling.
  if (usesExternalTrafficChain) {
    sink.natChain(externalTrafficChain);
    if (!svc.externalPolicyLocal) {
      sink.nat(externalTrafficChain, [comment(`masquerade traffic for ${spn} external destinations`)], JUMP_MARK_MASQ);
    } else {
      if (ctx.detectorImplemented) {
        // Pod → external destination is treated like going out to the load balancer and
        // coming back in: subject to neither traffic policy.
        sink.nat(
          externalTrafficChain,
          [comment(`pod traffic for ${spn} external destinations`), ...ctx.localIfLocal],
          jump(clusterPolicyChain),
        );
      }
      sink.nat(
        externalTrafficChain,
        [comment(`masquerade LOCAL traffic for ${spn} external destinations`), SRC_LOCAL],
        JUMP_MARK_MASQ,
      );
      sink.nat(
        externalTrafficChain,
        [comment(`route LOCAL traffic for ${spn} external destinations`), SRC_LOCAL],
        jump(clusterPolicyChain),
      );
    }
    if (hasExternalEndpoints) sink.nat(externalTrafficChain, NO_MATCHES, jump(externalPolicyChain));
  }

  // Firewall chain for loadBalancerSourceRanges.
  if (usesFWChain) {
    sink.natChain(fwChain);
    const head = comment(`${spn} loadbalancer IP`);
    let allowFromNode = false;
    for (const cidr of svc.loadBalancerSourceRanges) {
      sink.nat(fwChain, [head, { kind: 'source', address: cidr, negated: false }], jump(externalTrafficChain));
      if (ctx.nodeIP !== undefined && cidrTextContains(cidr, ctx.nodeIP)) allowFromNode = true;
    }
    // A VIP-like LB address is often local to the node: a node → VIP request loops back
    // with the VIP as its source.
    if (allowFromNode) {
      for (const lbip of svc.loadBalancerVIPs) {
        sink.nat(fwChain, [head, { kind: 'source', address: lbip, negated: false }], jump(externalTrafficChain));
      }
    }
    // What reaches the end was not DNATed; KUBE-PROXY-FIREWALL drops it.
    sink.nat(fwChain, [comment(`other traffic to ${spn} will be dropped by KUBE-PROXY-FIREWALL`)]);
  }

  // The declarations of both policy chains come before the endpoints' rules: declarations and
  // rules are separate streams, so this order writes what the rule-by-rule order writes.
  if (usesClusterPolicyChain) sink.natChain(clusterPolicyChain);
  if (usesLocalPolicyChain) sink.natChain(localPolicyChain);
  // Large clusters leave the comment out of the per-endpoint chains.
  const spnComment: Match | undefined = ctx.largeClusterMode ? undefined : comment(spn);
  if (
    ctx.largeClusterMode &&
    !svc.clientIPAffinity &&
    sink.natEndpointBlock !== undefined &&
    sink.natEndpointBlock({
      svc,
      ctx,
      endpoints: allReachableEndpoints,
      clusterChain: usesClusterPolicyChain ? clusterPolicyChain : undefined,
      clusterEndpoints,
      localChain: usesLocalPolicyChain ? localPolicyChain : undefined,
      localEndpoints,
      template: endpointChainTemplate(spnComment, svc.protocol),
      sepChain,
    })
  ) {
    return;
  }
  if (usesClusterPolicyChain) writeServiceToEndpointRules(sink, svc, clusterPolicyChain, clusterEndpoints, ctx, sepChain);
  if (usesLocalPolicyChain) writeServiceToEndpointRules(sink, svc, localPolicyChain, localEndpoints, ctx, sepChain);

  // Per-endpoint chains. The match lists that are the same for every endpoint are made once:
  // this loop runs once per endpoint, and what it allocates is most of a large first sync's garbage.
  const dnatMatches: readonly Match[] = spnComment === undefined ? [proto] : [spnComment, proto];
  if (sink.natPrinted !== undefined && !svc.clientIPAffinity) {
    const template = endpointChainTemplate(spnComment, svc.protocol);
    for (const ep of allReachableEndpoints) {
      const chain = sepChain(ep);
      sink.natChain(chain);
      sink.natPrinted(chain, endpointChainLines(template, chain, ep.ip, ep.hostPort), 2);
    }
    return;
  }
  for (const ep of allReachableEndpoints) {
    const chain = sepChain(ep);
    sink.natChain(chain);
    // Hairpin: traffic that loops back to its originator must be SNATed.
    const source: Match = { kind: 'source', address: ep.ip, negated: false };
    sink.nat(chain, spnComment === undefined ? [source] : [spnComment, source], JUMP_MARK_MASQ);
    const dnat: Target = { kind: 'dnat', destination: ep.hostPort };
    if (svc.clientIPAffinity) {
      const recent: Match = { kind: 'recent-set', name: chain };
      sink.nat(chain, spnComment === undefined ? [recent, proto] : [spnComment, recent, proto], dnat);
    } else {
      sink.nat(chain, dnatMatches, dnat);
    }
  }
}

function writeServiceToEndpointRules(
  sink: RuleSink,
  svc: ServicePortInfo,
  svcChain: string,
  endpoints: readonly EndpointInfo[],
  ctx: RuleContext,
  sepChain: (ep: EndpointInfo) => string,
): void {
  const large = ctx.largeClusterMode;
  // Session affinity first: a client seen recently goes back to its endpoint.
  if (svc.clientIPAffinity) {
    for (const ep of endpoints) {
      const chain = sepChain(ep);
      const recent: Match = { kind: 'recent-check', name: chain, seconds: svc.stickyMaxAgeSeconds };
      sink.nat(svcChain, large ? [recent] : [comment(`${svc.nameString} -> ${ep.hostPort}`), recent], jump(chain));
    }
  }
  // Then load balancing: endpoint i of n takes 1/(n-i) of what is left; the last takes the rest.
  const n = endpoints.length;
  if (large && sink.natPrinted !== undefined) {
    // The same lines as below, printed from the per-n text: no target object per endpoint.
    const head = ruleHead(svcChain);
    for (let i = 0; i < n; i++) {
      const ep = endpoints[i];
      if (ep === undefined) continue;
      const jumpText = i < n - 1 ? ctx.statisticJump(n - i) : JUMP_TEXT;
      sink.natPrinted(svcChain, head + jumpText + sepChain(ep) + '\n', 1);
    }
    return;
  }
  for (let i = 0; i < n; i++) {
    const ep = endpoints[i];
    if (ep === undefined) continue;
    const target = jump(sepChain(ep));
    if (large) {
      // The lists are shared (the rules never change them): no allocation per endpoint.
      sink.nat(svcChain, i < n - 1 ? ctx.statisticMatches(n - i) : NO_MATCHES, target);
    } else {
      const matches: Match[] = [comment(`${svc.nameString} -> ${ep.hostPort}`)];
      if (i < n - 1) matches.push(ctx.statistic(n - i));
      sink.nat(svcChain, matches, target);
    }
  }
}

function cidrTextContains(cidrText: string, ip: IP): boolean {
  const cidr = parseCIDRSloppy(cidrText);
  return cidr.ok && cidrContains(cidr.value.cidr, ip);
}
