// `kubesvc doctor`'s checks of how kube-proxy carries a Service's traffic: the Nodes that drop
// it for want of a local endpoint (NoLocalEndpoints, by tracing a packet through the iptables
// rules each Node's kube-proxy writes), that a ClusterIP answers no ping (ClusterIPNoPing),
// and a short ClientIP affinity (AffinityTimeoutShort). Pure.
// upstream (v1.33): pkg/proxy/iptables/proxier.go (syncProxyRules: a Local policy with no local
// endpoint jumps to KUBE-MARK-DROP; only the Service's protocols and ports are matched; the
// affinity is `-m recent --rcheck --seconds timeoutSeconds --reap`).
import { generateRules, tracePacket, type Ruleset } from '@kubesvc/proxy-iptables';
import type { Service, ServicePort } from '@kubesvc/api-types';
import { endpointSlicesForProxy } from '../../dump/endpoint-slices.js';
import { dumpNodeOf, dumpNodes, type DumpNode } from '../nodes.js';
import { rulesConfig } from '../rules.js';
import { packetOf } from '../trace.js';
import { clusterIPsOf, isExternalName, serviceKey, shellWord, type DoctorContext, type Finding } from './finding.js';

/** Below this many seconds a ClientIP affinity is reported. */
export const AFFINITY_TIMEOUT_FLOOR = 60;

/** The iptables rules of each Node's kube-proxy, written once per Node on first use. */
export class NodeRules {
  private readonly rules = new Map<string, { readonly ruleset: Ruleset; readonly masqueradeMark: number } | { readonly refused: string }>();
  readonly nodes: readonly DumpNode[];

  constructor(private readonly context: DoctorContext) {
    this.nodes = dumpNodes(context.dump).map(dumpNodeOf);
  }

  /** The Node's rules, or why its kube-proxy cannot be configured (a Node whose name or addresses kube-proxy refuses). */
  rulesOf(node: DumpNode): { readonly ruleset: Ruleset; readonly masqueradeMark: number } | { readonly refused: string } {
    const known = this.rules.get(node.nodeName);
    if (known !== undefined) return known;
    const config = rulesConfig({ nodeName: node.nodeName, nodeIPs: node.nodeIPs, topologyLabels: node.topologyLabels, masqueradeAll: false, kubeProxyVersion: '1.31' });
    const made = config.ok
      ? { ruleset: generateRules(this.context.dump.services, endpointSlicesForProxy(this.context.dump), config.value).ruleset, masqueradeMark: 1 << config.value.masqueradeBit }
      : { refused: config.error.message };
    this.rules.set(node.nodeName, made);
    return made;
  }
}

type Verdict = { readonly kind: 'delivered' } | { readonly kind: 'dropped'; readonly why: string } | { readonly kind: 'untraced'; readonly why: string };

function protocolOf(port: ServicePort): 'tcp' | 'udp' | 'sctp' {
  const p = (port.protocol ?? 'TCP').toLowerCase();
  return p === 'udp' ? 'udp' : p === 'sctp' ? 'sctp' : 'tcp';
}

function hostPort(ip: string, port: number): string {
  return `${ip.includes(':') ? `[${ip}]` : ip}:${port}`;
}

/** An iptables rule's comment, or the rule. */
function ruleReason(line: string): string {
  const m = /--comment (?:"((?:[^"\\]|\\.)*)"|(\S+))/.exec(line);
  return m === null ? line : (m[1] ?? m[2] ?? line);
}

/** Where a packet to `to` from `entry` ends on `node`: delivered somewhere, or dropped/rejected by every outcome. */
function traceOn(rules: NodeRules, node: DumpNode, to: string, protocol: 'tcp' | 'udp' | 'sctp', nodePort: boolean, entry: 'outside' | 'pod'): Verdict {
  const packet = packetOf({ to, proto: protocol, nodePort, nodeIPs: node.nodeIPs, entry });
  if (!packet.ok) return { kind: 'untraced', why: packet.error.message };
  const made = rules.rulesOf(node);
  if ('refused' in made) return { kind: 'untraced', why: made.refused };
  const { ruleset, masqueradeMark } = made;
  const trace = tracePacket(ruleset, packet.value.packet, { localAddresses: packet.value.localAddresses, masqueradeMark });
  if (!trace.ok) return { kind: 'untraced', why: trace.error.message };
  const outcomes = trace.value.outcomes;
  if (outcomes.length === 0 || !outcomes.every((o) => o.kind === 'drop' || o.kind === 'reject')) return { kind: 'delivered' };
  const last = outcomes[0]?.matched[(outcomes[0]?.matched.length ?? 1) - 1];
  return { kind: 'dropped', why: `${outcomes[0]?.kind.toUpperCase() ?? 'DROP'}${last === undefined ? '' : ` (${ruleReason(last.text)})`}` };
}

interface Probe {
  readonly what: string;
  readonly to: (node: DumpNode) => string | undefined;
  readonly protocol: 'tcp' | 'udp' | 'sctp';
  readonly nodePort: boolean;
  readonly entry: 'outside' | 'pod';
  readonly command: string;
}

function probesOf(context: DoctorContext, service: Service): { readonly external: Probe[]; readonly internal: Probe[] } {
  const spec = service.spec ?? {};
  const external: Probe[] = [];
  const internal: Probe[] = [];
  const file = shellWord(context.file);
  const externallyReached = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
  for (const port of spec.ports ?? []) {
    const protocol = protocolOf(port);
    const proto = protocol === 'tcp' ? '' : ` --proto ${protocol}`;
    if (externallyReached && spec.externalTrafficPolicy === 'Local') {
      const nodePort = port.nodePort;
      if (nodePort !== undefined && nodePort !== 0) {
        external.push({
          what: `NodePort ${nodePort}/${port.protocol ?? 'TCP'}`,
          to: (node) => (node.nodeIPs[0] === undefined ? undefined : hostPort(node.nodeIPs[0], nodePort)),
          protocol,
          nodePort: true,
          entry: 'outside',
          command: `kubesvc trace -f ${file} --all-nodes --node-port --to :${nodePort}${proto}`,
        });
      }
      for (const ingress of spec.type === 'LoadBalancer' ? (service.status?.loadBalancer?.ingress ?? []) : []) {
        const ip = ingress.ip;
        if (ip === undefined || ip === '') continue;
        external.push({
          what: `LoadBalancer ${hostPort(ip, port.port)}/${port.protocol ?? 'TCP'}`,
          to: () => hostPort(ip, port.port),
          protocol,
          nodePort: false,
          entry: 'outside',
          command: `kubesvc trace -f ${file} --all-nodes --entry outside --to ${hostPort(ip, port.port)}${proto}`,
        });
      }
    }
    if (spec.internalTrafficPolicy === 'Local') {
      for (const ip of clusterIPsOf(service)) {
        internal.push({
          what: `ClusterIP ${hostPort(ip, port.port)}/${port.protocol ?? 'TCP'}`,
          to: () => hostPort(ip, port.port),
          protocol,
          nodePort: false,
          entry: 'pod',
          command: `kubesvc trace -f ${file} --all-nodes --to ${hostPort(ip, port.port)}${proto}`,
        });
      }
    }
  }
  return { external, internal };
}

function localFinding(service: Service, policy: string, probes: readonly Probe[], rules: NodeRules): Finding[] {
  if (probes.length === 0 || rules.nodes.length === 0) return [];
  const dropping = new Set<string>();
  const untraced = new Set<string>();
  const evidence: string[] = [`spec.${policy}: Local`];
  for (const probe of probes) {
    const dropped: string[] = [];
    for (const node of rules.nodes) {
      const to = probe.to(node);
      if (to === undefined) continue;
      const verdict = traceOn(rules, node, to, probe.protocol, probe.nodePort, probe.entry);
      if (verdict.kind === 'dropped') {
        dropping.add(node.nodeName);
        dropped.push(`${node.nodeName} ${verdict.why}`);
      }
      if (verdict.kind === 'untraced') untraced.add(`${node.nodeName} (${verdict.why})`);
    }
    if (dropped.length > 0) evidence.push(`${probe.what}: dropped on ${dropped.join('; ')}`);
  }
  if (dropping.size === 0) return [];
  const all = dropping.size === rules.nodes.length;
  const serving = rules.nodes.filter((n) => !dropping.has(n.nodeName)).map((n) => n.nodeName);
  evidence.push(serving.length === 0 ? 'no Node has a local endpoint' : `Nodes that deliver it: ${serving.join(', ')}`);
  if (untraced.size > 0) evidence.push(`not traced: ${[...untraced].join('; ')}`);
  const external = policy === 'externalTrafficPolicy';
  return [
    {
      code: 'NoLocalEndpoints',
      severity: all ? 'error' : 'warning',
      service: serviceKey(service),
      summary: `${policy} Local: ${all ? 'every Node drops' : `${dropping.size} of ${rules.nodes.length} Nodes drop`} the ${external ? 'external' : 'in-cluster'} traffic for want of a local endpoint (${[...dropping].sort().join(', ')})`,
      evidence,
      reason: external
        ? "With externalTrafficPolicy Local, kube-proxy sends external traffic only to endpoints on its own Node and drops it on a Node that has none (the load balancer's health check on healthCheckNodePort steers away from such Nodes; a client reaching a NodePort directly is not steered)."
        : "With internalTrafficPolicy Local, kube-proxy sends a pod's traffic to the ClusterIP only to endpoints on the pod's own Node, and drops it on a Node that has none.",
      command: probes[0]?.command ?? '',
    },
  ];
}

/** NoLocalEndpoints: the Nodes of the input where a Local traffic policy drops the Service's traffic. */
export function noLocalEndpoints(context: DoctorContext, service: Service, rules: NodeRules): Finding[] {
  if (isExternalName(service)) return [];
  const { external, internal } = probesOf(context, service);
  return [...localFinding(service, 'externalTrafficPolicy', external, rules), ...localFinding(service, 'internalTrafficPolicy', internal, rules)];
}

/** ClusterIPNoPing (info): a ClusterIP answers no ICMP echo in iptables mode. */
export function clusterIPNoPing(context: DoctorContext, service: Service): Finding[] {
  const ips = clusterIPsOf(service);
  const first = ips[0];
  if (first === undefined) return [];
  return [
    {
      code: 'ClusterIPNoPing',
      severity: 'info',
      service: serviceKey(service),
      summary: `ping ${first} gets no answer, by design: test the Service's ports instead`,
      evidence: [`spec.clusterIPs: ${ips.join(', ')}`, `spec.ports: ${(service.spec?.ports ?? []).map((p) => `${p.port}/${p.protocol ?? 'TCP'}`).join(', ') || 'none'}`],
      reason: "A ClusterIP is a virtual address: kube-proxy's iptables rules DNAT only the Service's protocols and ports, and nothing on any Node holds the address to answer an ICMP echo.",
      command: `kubesvc trace -f ${shellWord(context.file)} --proto icmp --to ${first}`,
    },
  ];
}

/** AffinityTimeoutShort (a note): ClientIP affinity that forgets a client after less than a minute. */
export function affinityTimeoutShort(_context: DoctorContext, service: Service): Finding[] {
  if (service.spec?.sessionAffinity !== 'ClientIP') return [];
  const timeout = service.spec.sessionAffinityConfig?.clientIP?.timeoutSeconds;
  if (timeout === undefined || timeout >= AFFINITY_TIMEOUT_FLOOR) return [];
  return [
    {
      code: 'AffinityTimeoutShort',
      severity: 'note',
      service: serviceKey(service),
      summary: `ClientIP session affinity lasts only ${timeout}s (default 10800s)`,
      evidence: ['spec.sessionAffinity: ClientIP', `spec.sessionAffinityConfig.clientIP.timeoutSeconds: ${timeout}`],
      reason: "kube-proxy remembers a client's endpoint for timeoutSeconds after its last new connection (`-m recent --rcheck --seconds`); a client that waits longer between connections is sent to any endpoint.",
      command: `kubectl get service -n ${service.metadata.namespace ?? 'default'} ${service.metadata.name ?? ''} -o jsonpath='{.spec.sessionAffinityConfig}'`,
    },
  ];
}
