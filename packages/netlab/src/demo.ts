// The demo `npm run lab` runs: the demo cluster's rules loaded into a lab, then each classic
// question asked with real packets and answered beside the tracer's prediction.
import type { Packet, PortPacket, Rational } from '@kubesvc/proxy';
import { chiSquareTest } from './chi-square.js';
import { DEMO_SERVICES, demoCluster } from './cluster.js';
import { NODE_IP, POD_GATEWAY, type Lab } from './lab.js';
import { dnatAddress, predictedShares, sharesTable } from './predict.js';

export interface DemoOptions {
  /** TCP connections to the 3-endpoint ClusterIP (and, up to 200, to the ClientIP-affinity service). */
  readonly connections: number;
}

/** What the demo found; `ok` is false when something did not behave as the rules say. */
export interface DemoResult {
  readonly ok: boolean;
  readonly problems: readonly string[];
}

const KERNEL_SETTINGS: Readonly<Record<string, string>> = {
  'net.ipv4.ip_forward': 'routes pod → service → pod traffic through the node',
  'net.ipv4.conf.all.route_localnet': 'lets NodePorts answer on 127.0.0.1 (kube-proxy sets it for localhost NodePorts)',
  'net.bridge.bridge-nf-call-iptables': 'shows bridged pod ↔ pod frames to iptables, so replies are un-DNATed',
};

export function describeLab(lab: Lab, print: (line: string) => void): void {
  print(`lab ${lab.prefix}: ${lab.proxyMode === 'nftables' ? 'nftables (nft -f)' : `iptables ${lab.iptables}`}, topology ${lab.topology}`);
  print(`  node     ${lab.nodeNamespace.padEnd(16)} ${NODE_IP} (node IP), ${POD_GATEWAY} (pod gateway)`);
  for (const pod of lab.pods) {
    const pid = lab.backendPid(pod.name);
    print(`  ${pod.name.padEnd(8)} ${pod.namespace.padEnd(16)} ${pod.ip}${pid === undefined ? '' : ` (TCP 8080, UDP 5353, pid ${pid})`}`);
  }
  print(`kernel settings in ${lab.nodeNamespace}:`);
  for (const [name, why] of Object.entries(KERNEL_SETTINGS)) {
    if (name.startsWith('net.bridge.') && lab.topology !== 'bridge') continue;
    print(`  ${name}=${lab.readSysctl(name)}   ${why}`);
  }
}

export async function runDemo(lab: Lab, options: DemoOptions, print: (line: string) => void): Promise<DemoResult> {
  const problems: string[] = [];
  const check = (ok: boolean, problem: string): void => {
    if (!ok) problems.push(problem);
  };
  const client = lab.pod('client');
  const backends = lab.backendIPs.slice(0, 3);
  const packet = (destination: string, port: number, protocol: PortPacket['protocol'] = 'tcp'): Packet => ({ source: client.ip, destination, protocol, destinationPort: port, entry: 'pod' });
  const backendOf = (dnat: string | undefined): string => (dnat === undefined ? '-' : (lab.podByIP(dnatAddress(dnat))?.name ?? dnat));

  const nftables = lab.proxyMode === 'nftables';
  const { services, endpointSlices } = demoCluster(backends, lab.nodeName);
  if (nftables) {
    const loaded = lab.syncNftables(services, endpointSlices);
    print(`sync 1 (full): ${loaded.rules.stats.rules} rules, ${loaded.rules.stats.elements} set and map elements loaded with ${loaded.command.join(' ')}`);
  } else {
    const loaded = lab.sync(services, endpointSlices);
    print(`sync 1 (${loaded.result.stats.full ? 'full' : 'partial'}): ${loaded.result.stats.lines} lines loaded with ${loaded.command.join(' ')}`);
  }
  const traceOf = (p: Packet) => (nftables ? lab.traceNftables(p) : lab.trace(p));

  const web = DEMO_SERVICES.web;
  const report = await lab.connect('client', { protocol: 'tcp', host: web.clusterIP, port: web.port, count: options.connections, concurrency: 16, timeoutMs: 5_000, deadlineMs: 60_000 });
  const trace = traceOf(packet(web.clusterIP, web.port));
  print(`TCP ${web.clusterIP}:${web.port} (web, 3 endpoints): ${report.launched} connections, ${report.failures.length} failed, ${(report.elapsedMs / 1000).toFixed(1)} s`);
  check(report.failures.length === 0, `${report.failures.length} connections to ${web.clusterIP} failed`);
  if (trace.ok) {
    const predicted = predictedShares<{ readonly dnat?: string; readonly probability: { readonly kernel: Rational } }>(trace.value, (o) => backendOf(o.dnat));
    const test = chiSquareTest(report.counts, predicted);
    print(sharesTable(report.counts, predicted));
    print(`  chi-square ${test.statistic.toFixed(2)} with ${test.degreesOfFreedom} df: p = ${test.pValue.toFixed(3)} (${nftables ? 'INV-NFT-KERNEL' : 'INV-IPT-KERNEL'} needs p > 0.001)`);
    check(test.pValue > 0.001, `the backend counts do not fit the tracer's prediction (p = ${test.pValue})`);
  } else problems.push(trace.error.message);

  const ping = lab.ping('client', web.clusterIP);
  if (nftables) {
    const unreachable = /Destination Port Unreachable/.test(ping.output);
    print(`ICMP echo to ${web.clusterIP}: ${ping.replied ? 'REPLY (unexpected)' : unreachable ? 'Destination Port Unreachable' : 'no reply (unexpected)'} — cluster-ips-check rejects what no service port takes`);
    check(!ping.replied && unreachable, `an ICMP echo to ${web.clusterIP} was not rejected`);
  } else {
    print(`ICMP echo to ${web.clusterIP}: ${ping.replied ? 'REPLY (unexpected)' : 'no reply'} — no rule for the ClusterIP matches ICMP, so nothing DNATs it`);
    check(!ping.replied, `an ICMP echo to ${web.clusterIP} was answered`);
  }

  const empty = DEMO_SERVICES.empty;
  const refused = await lab.connect('client', { protocol: 'tcp', host: empty.clusterIP, port: empty.port, count: 1 });
  const r0 = refused.results[0];
  print(`TCP ${empty.clusterIP}:${empty.port} (empty, no endpoints): ${r0 === undefined ? '-' : r0.ok ? `answered by ${r0.value.backend} (unexpected)` : `${r0.error.message} after ${r0.error.ms} ms`} — ${nftables ? 'the no-endpoint-services map sends it to reject-chain' : 'filter KUBE-SERVICES REJECTs it'}`);
  check(r0 !== undefined && !r0.ok && r0.error.message === 'ECONNREFUSED', `${empty.clusterIP} was not refused`);

  const np = DEMO_SERVICES.nodeport;
  const viaNode = await lab.connect('client', { protocol: 'tcp', host: NODE_IP, port: np.nodePort, count: 1 });
  const n0 = viaNode.results[0];
  print(`TCP ${NODE_IP}:${np.nodePort} (nodeport): ${n0 === undefined ? '-' : n0.ok ? `answered by ${n0.value.backend}, which saw ${n0.value.peer.split(':')[0] ?? ''} (source NAT to the node; the client is ${client.ip})` : n0.error.message}`);
  check(n0 !== undefined && n0.ok && n0.value.peer.startsWith(`${POD_GATEWAY}:`), 'the NodePort connection was not answered with source NAT');

  const dns = DEMO_SERVICES.dns;
  const udp = await lab.connect('client', { protocol: 'udp', host: dns.clusterIP, port: dns.port, count: 1 });
  const u0 = udp.results[0];
  print(`UDP ${dns.clusterIP}:${dns.port} (dns): ${u0 === undefined ? '-' : u0.ok ? `reply from ${dns.clusterIP}:${dns.port}, sent by ${u0.value.backend}` : u0.error.message}`);
  check(u0 !== undefined && u0.ok, 'the UDP datagram got no reply');

  const sticky = DEMO_SERVICES.sticky;
  const stuck = await lab.connect('client', { protocol: 'tcp', host: sticky.clusterIP, port: sticky.port, count: Math.min(200, options.connections), concurrency: 4 });
  const chosen = Object.keys(stuck.counts);
  if (nftables) {
    const stickyTrace = lab.traceNftables(packet(sticky.clusterIP, sticky.port));
    const set = stickyTrace.ok ? (stickyTrace.value.outcomes.find((o) => backendOf(o.dnat) === chosen[0])?.affinityUpdates[0]?.name ?? '') : '';
    print(`TCP ${sticky.clusterIP}:${sticky.port} (sticky, ClientIP): ${stuck.launched} connections, all to ${chosen.join(', ')}; the set ${set} holds ${lab.nftSetElements(set).join(', ')}`);
  } else {
    const stickyTrace = lab.trace(packet(sticky.clusterIP, sticky.port));
    const list = stickyTrace.ok ? (stickyTrace.value.outcomes.find((o) => backendOf(o.dnat) === chosen[0])?.recentUpdates[0]?.name ?? '') : '';
    print(`TCP ${sticky.clusterIP}:${sticky.port} (sticky, ClientIP): ${stuck.launched} connections, all to ${chosen.join(', ')}; /proc/net/xt_recent/${list} holds ${lab.recentList(list).join(', ')}`);
  }
  check(chosen.length === 1 && stuck.failures.length === 0, 'ClientIP affinity did not keep the client on one backend');
  return { ok: problems.length === 0, problems };
}
