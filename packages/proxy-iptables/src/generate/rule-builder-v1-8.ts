// The rules kube-proxy 1.8 (2017) wrote: syncProxyRules of the v1.8 line, written with the
// same Match and Target values as the v1.31 builder (rule-builder.ts) so that printing, the
// save view and the tracer work on both. upstream: pkg/proxy/iptables/proxier.go at v1.8
// (syncProxyRules, writeLine, computeProbability `%0.5f`, servicePortChainName,
// serviceFirewallChainName, serviceLBChainName "KUBE-XLB-"). Every difference from the v1.31
// text is listed, with the upstream change that made it, in the README ("kube-proxy 1.8").
//
// What v1.8 wrote that this model cannot express is left out and reported: the externalIP
// rules (they match `-m physdev ! --physdev-is-in`, which the Match type does not model).

import { cidrContains, parseCIDRSloppy, parseIPSloppy, type Service } from '@kubesvc/api-types';
import { portProtoHash } from '../chain-names.js';
import type { RuleDiagnostic } from '../diagnostics.js';
import type { EndpointInfo } from '@kubesvc/proxy';
import { probabilityText } from '../probability.js';
import type { ProxierConfig } from '../proxier-config.js';
import {
  KUBE_MARK_MASQ,
  KUBE_NODEPORTS,
  KUBE_POSTROUTING,
  KUBE_SERVICES,
  NODEPORTS_LAST_RULE_COMMENT,
  type RuleSink,
} from './rule-builder.js';
import type { L4Protocol, Match, Target } from '../ruleset.js';
import type { ServicePortInfo } from '../service-ports.js';

/** upstream v1.8: KubeMarkDropChain; created by kubelet, jumped to by kube-proxy. */
export const KUBE_MARK_DROP = 'KUBE-MARK-DROP';

const comment = (text: string): Match => ({ kind: 'comment', text });
const jump = (chain: string): Target => ({ kind: 'jump', chain });
const JUMP_MARK_MASQ: Target = jump(KUBE_MARK_MASQ);
const JUMP_MARK_DROP: Target = jump(KUBE_MARK_DROP);
const DST_LOCAL: Match = { kind: 'addrtype', direction: 'dst', addressType: 'LOCAL' };
const PROTOCOL: Readonly<Record<L4Protocol, Match>> = {
  tcp: { kind: 'protocol', protocol: 'tcp' },
  udp: { kind: 'protocol', protocol: 'udp' },
  sctp: { kind: 'protocol', protocol: 'sctp' },
};

/** utilproxy.ToCIDR: the address with its full prefix length. */
function toCIDR(ip: string): string {
  return ip.includes(':') ? `${ip}/128` : `${ip}/32`;
}

/** The filter chains v1.8 declared on every sync. */
export function fixedFilterChainsV18(): string[] {
  return [KUBE_SERVICES];
}

/** The head rules of v1.8: KUBE-POSTROUTING masquerades marked packets; KUBE-MARK-MASQ marks them. */
export function writeHeadRulesV18(sink: RuleSink, config: ProxierConfig): void {
  const mark = config.masqueradeMark;
  sink.natTop(
    KUBE_POSTROUTING,
    [comment('kubernetes service traffic requiring SNAT'), { kind: 'mark', value: mark, mask: mark, negated: false }],
    { kind: 'masquerade', randomFully: false },
  );
  sink.natTop(KUBE_MARK_MASQ, [], { kind: 'mark', op: 'or', value: mark, spelling: 'set-xmark' });
}

/** The last nat rule of v1.8: every local destination goes on to KUBE-NODEPORTS. */
export function writeTailRulesV18(sink: RuleSink): void {
  sink.natTop(KUBE_SERVICES, [comment(NODEPORTS_LAST_RULE_COMMENT), DST_LOCAL], jump(KUBE_NODEPORTS));
}

/**
 * upstream v1.8 newServiceInfo: onlyNodeLocalEndpoints is RequestsOnlyLocalTraffic, a
 * LoadBalancer or NodePort Service with externalTrafficPolicy Local.
 */
export function onlyNodeLocalEndpointsV18(service: Service): boolean {
  const type = service.spec?.type ?? 'ClusterIP';
  return (type === 'LoadBalancer' || type === 'NodePort') && service.spec?.externalTrafficPolicy === 'Local';
}

/**
 * Everything one service port contributes in v1.8, in its writing order. `endpoints` are all
 * endpoints of the port (any condition); v1.8 read Endpoints objects, whose `addresses` hold the
 * ready ones only.
 */
export function writeServicePortRulesV18(
  sink: RuleSink,
  svc: ServicePortInfo,
  onlyLocal: boolean,
  allEndpoints: readonly EndpointInfo[],
  config: ProxierConfig,
  sepChain: (ep: EndpointInfo) => string,
  diagnostics: RuleDiagnostic[],
): void {
  const spn = svc.nameString;
  const proto = PROTOCOL[svc.protocol];
  const hash = portProtoHash(spn, svc.protocol);
  const svcChain = svc.chains.cluster;
  const fwChain = `KUBE-FW-${hash}`;
  const xlbChain = `KUBE-XLB-${hash}`;
  const endpoints = allEndpoints.filter((ep) => ep.ready);
  const clusterCIDR = config.localDetector.kind === 'cidr' ? config.localDetector.cidr : '';

  sink.natChain(svcChain);
  if (onlyLocal) sink.natChain(xlbChain);

  // Capture the clusterIP.
  const clusterArgs: Match[] = [
    comment(`${spn} cluster IP`),
    proto,
    { kind: 'destination', address: toCIDR(svc.clusterIP), negated: false },
    { kind: 'dport', port: svc.port },
  ];
  if (config.masqueradeAll) {
    sink.natTop(KUBE_SERVICES, clusterArgs, JUMP_MARK_MASQ);
  } else if (clusterCIDR !== '') {
    sink.natTop(KUBE_SERVICES, [...clusterArgs, { kind: 'source', address: clusterCIDR, negated: true }], JUMP_MARK_MASQ);
  }
  sink.natTop(KUBE_SERVICES, clusterArgs, jump(svcChain));

  // externalIPs: v1.8 matched them with `-m physdev ! --physdev-is-in`, not modelled here.
  if (svc.externalIPs.length > 0) {
    diagnostics.push({
      object: { kind: 'Service', namespace: svc.namespace, name: svc.name },
      field: 'spec.externalIPs',
      value: svc.externalIPs,
      reason: `kube-proxy 1.8 external IP rules (-m physdev) are not modelled; no rules are written for the external IPs of ${spn}`,
    });
  }

  // Capture load-balancer ingress.
  const nodeIPText = config.nodeIP === '' ? '127.0.0.1' : config.nodeIP;
  const nodeIP = parseIPSloppy(nodeIPText);
  for (const lbip of svc.loadBalancerVIPs) {
    sink.natChain(fwChain);
    const head = comment(`${spn} loadbalancer IP`);
    sink.natTop(
      KUBE_SERVICES,
      [head, proto, { kind: 'destination', address: toCIDR(lbip), negated: false }, { kind: 'dport', port: svc.port }],
      jump(fwChain),
    );
    let chosenChain = xlbChain;
    if (!onlyLocal) {
      sink.nat(fwChain, [head], JUMP_MARK_MASQ);
      chosenChain = svcChain;
    }
    if (svc.loadBalancerSourceRanges.length === 0) {
      sink.nat(fwChain, [head], jump(chosenChain));
    } else {
      let allowFromNode = false;
      for (const src of svc.loadBalancerSourceRanges) {
        sink.nat(fwChain, [head, { kind: 'source', address: src, negated: false }], jump(chosenChain));
        const cidr = parseCIDRSloppy(src);
        if (cidr.ok && nodeIP.ok && cidrContains(cidr.value.cidr, nodeIP.value)) allowFromNode = true;
      }
      if (allowFromNode) {
        sink.nat(fwChain, [head, { kind: 'source', address: toCIDR(lbip), negated: false }], jump(chosenChain));
      }
    }
    // What reaches the end of the firewall chain was not DNATed: mark it for dropping.
    sink.nat(fwChain, [head], JUMP_MARK_DROP);
  }

  // Capture nodeports.
  if (svc.nodePort !== 0) {
    const args: Match[] = [comment(spn), proto, { kind: 'dport', port: svc.nodePort }];
    if (!onlyLocal) {
      sink.natTop(KUBE_NODEPORTS, args, JUMP_MARK_MASQ);
      sink.natTop(KUBE_NODEPORTS, args, jump(svcChain));
    } else {
      sink.natTop(KUBE_NODEPORTS, args, jump(xlbChain));
    }
    if (endpoints.length === 0) {
      sink.filter(
        KUBE_SERVICES,
        [comment(`${spn} has no endpoints`), DST_LOCAL, proto, { kind: 'dport', port: svc.nodePort }],
        { kind: 'reject' },
      );
    }
  }

  // No endpoints: reject, and nothing more for this service port.
  if (endpoints.length === 0) {
    sink.filter(KUBE_SERVICES, [comment(`${spn} has no endpoints`), ...clusterArgs.slice(1)], { kind: 'reject' });
    return;
  }

  const chains = endpoints.map((ep) => sepChain(ep));
  for (const chain of chains) sink.natChain(chain);

  // Session affinity first.
  if (svc.clientIPAffinity) {
    for (const chain of chains) {
      sink.nat(svcChain, [comment(spn), { kind: 'recent-check', name: chain, seconds: svc.stickyMaxAgeSeconds }], jump(chain));
    }
  }

  // Load balancing and DNAT: the SVC rule of an endpoint, then its SEP chain's rules.
  const n = chains.length;
  endpoints.forEach((ep, i) => {
    const chain = chains[i] as string;
    const balance: Match[] = [comment(spn)];
    if (i < n - 1) balance.push(statistic(n - i, config));
    sink.nat(svcChain, balance, jump(chain));
    sink.nat(chain, [comment(spn), { kind: 'source', address: toCIDR(ep.ip), negated: false }], JUMP_MARK_MASQ);
    const dnat: Match[] = [comment(spn)];
    if (svc.clientIPAffinity) dnat.push({ kind: 'recent-set', name: chain });
    dnat.push(proto);
    sink.nat(chain, dnat, { kind: 'dnat', destination: ep.hostPort });
  });

  if (!onlyLocal) return;

  // The XLB chain: pods go to the cluster IP's chain, external traffic to local endpoints only.
  if (clusterCIDR !== '') {
    sink.nat(
      xlbChain,
      [comment('Redirect pods trying to reach external loadbalancer VIP to clusterIP'), { kind: 'source', address: clusterCIDR, negated: false }],
      jump(svcChain),
    );
  }
  const local = endpoints.map((ep, i) => [ep, chains[i] as string] as const).filter(([ep]) => ep.isLocal);
  if (local.length === 0) {
    sink.nat(xlbChain, [comment(`${spn} has no local endpoints`)], JUMP_MARK_DROP);
    return;
  }
  local.forEach(([, chain], i) => {
    const matches: Match[] = [comment(`Balancing rule ${i} for ${spn}`)];
    if (i < local.length - 1) matches.push(statistic(local.length - i, config));
    sink.nat(xlbChain, matches, jump(chain));
  });
}

function statistic(n: number, config: ProxierConfig): Match {
  return { kind: 'statistic', probability: probabilityText(n, config.probabilityFormat), denominator: n };
}
