// The iptables "portals" userspace mode installs: nat rules that send traffic for a
// Service's cluster IP, external IPs, load-balancer IPs and node port to the proxy's local
// port, and the filter rule that lets non-local NodePort traffic in.
// upstream: pkg/proxy/userspace/proxier.go (iptablesInit, openPortal, openOnePortal,
// openNodePort, iptablesCommonPortalArgs, iptablesContainerPortalArgs, iptablesHostPortalArgs,
// iptablesHostNodePortArgs, iptablesNonLocalNodePortArgs)
import {
  err,
  familyBits,
  formatIP,
  isServiceIPSet,
  isUnspecified,
  joinHostPort,
  ok,
  parseIP,
  servicePortNameString,
  type IP,
  type Result,
  type Service,
  type ServicePortName,
} from '@kubesvc/api-types';
import type { ErrUserspaceInput } from './errors.js';
import { proxyAddressError, serviceError } from './input-shape.js';

export const KUBE_PORTALS_CONTAINER = 'KUBE-PORTALS-CONTAINER';
export const KUBE_PORTALS_HOST = 'KUBE-PORTALS-HOST';
export const KUBE_NODEPORT_CONTAINER = 'KUBE-NODEPORT-CONTAINER';
export const KUBE_NODEPORT_HOST = 'KUBE-NODEPORT-HOST';
export const KUBE_NODEPORT_NON_LOCAL = 'KUBE-NODEPORT-NON-LOCAL';

export type PortalTable = 'nat' | 'filter';

export interface IptablesRule {
  readonly table: PortalTable;
  readonly chain: string;
  /** 'A' appends, 'I' inserts at the top (upstream's EnsureRule Append / Prepend). */
  readonly op: 'A' | 'I';
  readonly args: readonly string[];
}

export interface ProxyAddress {
  /** The address the proxier listens on; 0.0.0.0 or :: means every interface. */
  readonly listenIP: string;
  /** The node's own IP, the DNAT target of host traffic when listenIP is unspecified. */
  readonly hostIP: string;
}

function ip(text: string | undefined): IP | undefined {
  if (text === undefined) return undefined;
  const parsed = parseIP(text);
  return parsed.ok ? parsed.value : undefined;
}

/** Go's ip.String() of a parsed address, "<nil>" when it did not parse. */
function ipString(text: string): string {
  const parsed = ip(text);
  return parsed === undefined ? '<nil>' : formatIP(parsed);
}

/** True for 0.0.0.0 or :: (listening on every interface); false when the text does not parse. */
function listensEverywhere(text: string): boolean {
  const parsed = ip(text);
  return parsed !== undefined && isUnspecified(parsed);
}

/** upstream: pkg/proxy/util ToCIDR — the address as a /32 or /128. */
function toCIDR(addr: IP): string {
  return `${formatIP(addr)}/${familyBits(addr.family)}`;
}

/** upstream: iptablesCommonPortalArgs. `destIP` undefined (or unparsable) means no -d match. */
export function commonPortalArgs(
  destIP: string | undefined,
  addPhysicalInterfaceMatch: boolean,
  addDstLocalMatch: boolean,
  destPort: number,
  protocol: string,
  spn: ServicePortName,
): string[] {
  const proto = protocol.toLowerCase();
  const args = ['-m', 'comment', '--comment', servicePortNameString(spn), '-p', proto, '-m', proto, '--dport', String(destPort)];
  const dest = ip(destIP);
  if (dest !== undefined) args.push('-d', toCIDR(dest));
  if (addPhysicalInterfaceMatch) args.push('-m', 'physdev', '!', '--physdev-is-in');
  if (addDstLocalMatch) args.push('-m', 'addrtype', '--dst-type', 'LOCAL');
  return args;
}

/**
 * upstream: iptablesContainerPortalArgs — traffic from containers (nat PREROUTING). REDIRECT to
 * the proxy port when the proxier listens on every interface, else DNAT to listenIP:proxyPort.
 */
export function containerPortalArgs(
  destIP: string | undefined,
  addPhysicalInterfaceMatch: boolean,
  addDstLocalMatch: boolean,
  destPort: number,
  protocol: string,
  proxy: ProxyAddress,
  proxyPort: number,
  spn: ServicePortName,
): string[] {
  const args = commonPortalArgs(destIP, addPhysicalInterfaceMatch, addDstLocalMatch, destPort, protocol, spn);
  if (listensEverywhere(proxy.listenIP)) args.push('-j', 'REDIRECT', '--to-ports', String(proxyPort));
  else args.push('-j', 'DNAT', '--to-destination', joinHostPort(ipString(proxy.listenIP), proxyPort));
  return args;
}

/** The DNAT target of host traffic: hostIP when listening everywhere (REDIRECT fails there). */
function hostTarget(proxy: ProxyAddress, proxyPort: number): string[] {
  const target = listensEverywhere(proxy.listenIP) ? proxy.hostIP : proxy.listenIP;
  return ['-j', 'DNAT', '--to-destination', joinHostPort(ipString(target), proxyPort)];
}

/** upstream: iptablesHostPortalArgs — traffic from the host itself (nat OUTPUT). */
export function hostPortalArgs(
  destIP: string | undefined,
  addDstLocalMatch: boolean,
  destPort: number,
  protocol: string,
  proxy: ProxyAddress,
  proxyPort: number,
  spn: ServicePortName,
): string[] {
  return [...commonPortalArgs(destIP, false, addDstLocalMatch, destPort, protocol, spn), ...hostTarget(proxy, proxyPort)];
}

/**
 * The KUBE-NODEPORT-CONTAINER rule. Upstream has no function of its own for it: openNodePort
 * calls iptablesContainerPortalArgs with a nil IP and no extra matches.
 */
export function containerNodePortArgs(nodePort: number, protocol: string, proxy: ProxyAddress, proxyPort: number, spn: ServicePortName): string[] {
  return containerPortalArgs(undefined, false, false, nodePort, protocol, proxy, proxyPort, spn);
}

/** upstream: iptablesHostNodePortArgs. */
export function hostNodePortArgs(nodePort: number, protocol: string, proxy: ProxyAddress, proxyPort: number, spn: ServicePortName): string[] {
  return [...commonPortalArgs(undefined, false, false, nodePort, protocol, spn), ...hostTarget(proxy, proxyPort)];
}

/**
 * upstream: iptablesNonLocalNodePortArgs. Note that upstream matches the *proxy* port here (the
 * destination after the nat rules above), not the node port.
 */
export function nonLocalNodePortArgs(protocol: string, proxyPort: number, spn: ServicePortName): string[] {
  return [...commonPortalArgs(undefined, false, false, proxyPort, protocol, spn), '-m', 'state', '--state', 'NEW', '-j', 'ACCEPT'];
}

/** The chains and the jumps into them. upstream: iptablesInit (order matters: portals before node ports). */
export function portalJumpRules(): IptablesRule[] {
  const portals = ['-m', 'comment', '--comment', 'handle ClusterIPs; NOTE: this must be before the NodePort rules'];
  const nodePorts = ['-m', 'addrtype', '--dst-type', 'LOCAL', '-m', 'comment', '--comment', 'handle service NodePorts; NOTE: this must be the last rule in the chain'];
  return [
    { table: 'nat', chain: 'PREROUTING', op: 'I', args: [...portals, '-j', KUBE_PORTALS_CONTAINER] },
    { table: 'nat', chain: 'OUTPUT', op: 'I', args: [...portals, '-j', KUBE_PORTALS_HOST] },
    { table: 'nat', chain: 'PREROUTING', op: 'A', args: [...nodePorts, '-j', KUBE_NODEPORT_CONTAINER] },
    { table: 'nat', chain: 'OUTPUT', op: 'A', args: [...nodePorts, '-j', KUBE_NODEPORT_HOST] },
    {
      table: 'filter',
      chain: 'INPUT',
      op: 'I',
      args: ['-m', 'comment', '--comment', 'Ensure that non-local NodePort traffic can flow', '-j', KUBE_NODEPORT_NON_LOCAL],
    },
  ];
}

/** One proxied service port and where its portals point. */
export interface PortalServicePort {
  readonly servicePort: ServicePortName;
  readonly protocol: string;
  readonly clusterIP: string;
  readonly port: number;
  readonly proxyPort: number;
  readonly nodePort?: number;
  readonly externalIPs?: readonly string[];
  readonly loadBalancerIPs?: readonly string[];
}

/** upstream: openOnePortal — the rules of one portal (cluster, external or load-balancer IP). */
function onePortal(destIP: string, isExternal: boolean, sp: PortalServicePort, proxy: ProxyAddress): IptablesRule[] {
  const { port, protocol, proxyPort, servicePort: spn } = sp;
  const rules: IptablesRule[] = [
    { table: 'nat', chain: KUBE_PORTALS_CONTAINER, op: 'A', args: containerPortalArgs(destIP, isExternal, false, port, protocol, proxy, proxyPort, spn) },
  ];
  if (isExternal) {
    // External IPs are also opened for local traffic: containers on this node (dst-type LOCAL)
    // and the host itself.
    rules.push(
      { table: 'nat', chain: KUBE_PORTALS_CONTAINER, op: 'A', args: containerPortalArgs(destIP, false, true, port, protocol, proxy, proxyPort, spn) },
      { table: 'nat', chain: KUBE_PORTALS_HOST, op: 'A', args: hostPortalArgs(destIP, true, port, protocol, proxy, proxyPort, spn) },
    );
  } else {
    rules.push({ table: 'nat', chain: KUBE_PORTALS_HOST, op: 'A', args: hostPortalArgs(destIP, false, port, protocol, proxy, proxyPort, spn) });
  }
  return rules;
}

/** upstream: openPortal — cluster IP, then external IPs, then load-balancer IPs, then the node port. */
export function servicePortPortalRules(sp: PortalServicePort, proxy: ProxyAddress): IptablesRule[] {
  const rules = onePortal(sp.clusterIP, false, sp, proxy);
  for (const external of sp.externalIPs ?? []) rules.push(...onePortal(external, true, sp, proxy));
  for (const lbIP of sp.loadBalancerIPs ?? []) if (lbIP !== '') rules.push(...onePortal(lbIP, false, sp, proxy));
  const nodePort = sp.nodePort ?? 0;
  if (nodePort !== 0) {
    const { protocol, proxyPort, servicePort: spn } = sp;
    rules.push(
      { table: 'nat', chain: KUBE_NODEPORT_CONTAINER, op: 'A', args: containerNodePortArgs(nodePort, protocol, proxy, proxyPort, spn) },
      { table: 'nat', chain: KUBE_NODEPORT_HOST, op: 'A', args: hostNodePortArgs(nodePort, protocol, proxy, proxyPort, spn) },
      { table: 'filter', chain: KUBE_NODEPORT_NON_LOCAL, op: 'A', args: nonLocalNodePortArgs(protocol, proxyPort, spn) },
    );
  }
  return rules;
}

/**
 * The portals of a Service's ports, given the proxy port each port name listens on. A Service
 * without a cluster IP (headless, or none) and an ExternalName Service get none, as upstream
 * (pkg/proxy/util ShouldSkipService); a port without a proxy port is skipped.
 */
export function servicePortals(
  service: Service,
  proxyPortOf: (portName: string) => number | undefined,
  proxy: ProxyAddress,
): Result<IptablesRule[], ErrUserspaceInput> {
  const wrong = serviceError(service) ?? proxyAddressError(proxy);
  if (wrong !== undefined) return err(wrong);
  const spec = service.spec ?? {};
  if (!isServiceIPSet(spec) || spec.type === 'ExternalName') return ok([]);
  const clusterIP = spec.clusterIP ?? '';
  const rules: IptablesRule[] = [];
  for (const port of spec.ports ?? []) {
    const name = port.name ?? '';
    const proxyPort = proxyPortOf(name);
    if (proxyPort === undefined) continue;
    rules.push(
      ...servicePortPortalRules(
        {
          servicePort: { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '', port: name },
          protocol: port.protocol ?? 'TCP',
          clusterIP,
          port: port.port,
          proxyPort,
          ...(port.nodePort !== undefined ? { nodePort: port.nodePort } : {}),
          externalIPs: spec.externalIPs ?? [],
          loadBalancerIPs: (service.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? ''),
        },
        proxy,
      ),
    );
  }
  return ok(rules);
}

/** Quotes an argument for iptables-restore when it holds a space or a quote, as iptables-save does. */
function quote(arg: string): string {
  return /[\s"]/.test(arg) ? `"${arg.replace(/(["\\])/g, '\\$1')}"` : arg;
}

/**
 * iptables-restore input for the userspace chains: each table declares its chains (which a
 * restore flushes), then the rules in order, then COMMIT. With `jumps`, the rules of
 * iptablesInit are included (`-I` for upstream's Prepend); leave them out when restoring with
 * --noflush onto a host that already has them.
 */
export function portalRulesRestoreText(rules: readonly IptablesRule[], options: { readonly jumps?: boolean } = {}): string {
  const all = options.jumps === true ? [...portalJumpRules(), ...rules] : rules;
  const chains: Record<PortalTable, readonly string[]> = {
    nat: [KUBE_PORTALS_CONTAINER, KUBE_PORTALS_HOST, KUBE_NODEPORT_CONTAINER, KUBE_NODEPORT_HOST],
    filter: [KUBE_NODEPORT_NON_LOCAL],
  };
  const lines: string[] = [];
  for (const table of ['nat', 'filter'] as const) {
    lines.push(`*${table}`);
    for (const chain of chains[table]) lines.push(`:${chain} - [0:0]`);
    for (const rule of all) {
      if (rule.table !== table) continue;
      lines.push([`-${rule.op}`, rule.chain, ...rule.args.map(quote)].join(' '));
    }
    lines.push('COMMIT');
  }
  return lines.join('\n') + '\n';
}
