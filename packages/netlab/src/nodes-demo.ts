// The two-node demo `npm run lab -- --nodes 2` runs, and the cluster it loads: one Service
// answered differently from node to node, asked with real packets beside each node's tracer.
import type { Packet } from '@kubesvc/proxy';
import { chiSquareTest } from './chi-square.js';
import { labEndpointSliceOf, labService, type LabCluster, type LabEndpoint, type LabServiceSpec } from './cluster.js';
import { EXTERNAL_HOST, EXTERNAL_HOST_IP, type LabNodeSpec, type MultiNodeLab, type MultiNodePod } from './multi-node.js';
import { dnatAddress, predictedShares, sharesTable } from './predict.js';
import type { LabTraceOutcome } from './trace-result.js';

/** Two nodes in two zones: two backends and a client on node-a, one backend and a client on node-b. */
export const TWO_NODES: readonly LabNodeSpec[] = [
  { name: 'node-a', zone: 'zone-a', clients: ['ca'], backends: ['bea1', 'bea2'] },
  { name: 'node-b', zone: 'zone-b', clients: ['cb'], backends: ['beb1'] },
];

/** The two-node demo's services. */
export const NODES_SERVICES = {
  /** 10.96.0.20:80, every backend of every node, no hints. */
  spread: { name: 'spread', clusterIP: '10.96.0.20', port: 80, targetPort: 8080 },
  /** 10.96.0.21:80, every backend, trafficDistribution PreferClose: each endpoint hinted for its own zone. */
  zonal: { name: 'zonal', clusterIP: '10.96.0.21', port: 80, targetPort: 8080, trafficDistribution: 'PreferClose' },
  /** NodePort 30081 with externalTrafficPolicy Local, backed by bea1 (on node-a) alone. */
  local: { name: 'local', clusterIP: '10.96.0.22', port: 80, targetPort: 8080, nodePort: 30081, externalTrafficPolicy: 'Local' },
  /** NodePort 30082 with externalTrafficPolicy Cluster, backed by bea1 (on node-a) alone. */
  cluster: { name: 'cluster', clusterIP: '10.96.0.23', port: 80, targetPort: 8080, nodePort: 30082 },
} as const satisfies Record<string, LabServiceSpec>;

/** The backend of `local` and `cluster`. */
export const SINGLE_BACKEND = 'bea1';

/**
 * The two-node demo's Services and EndpointSlices for the lab's backends, as the API server
 * would hold them after the EndpointSlice controller: each endpoint with its node and zone, the
 * PreferClose service's endpoints hinted for their own zones.
 */
export function nodesDemoCluster(lab: Pick<MultiNodeLab, 'pods' | 'node'>): LabCluster {
  const endpointOf = (pod: MultiNodePod, hint: boolean): LabEndpoint => ({ ip: pod.ip, nodeName: pod.node, zone: lab.node(pod.node).zone, hintOwnZone: hint });
  const backends = lab.pods.filter((p) => p.role === 'backend');
  const single = backends.filter((p) => p.name === SINGLE_BACKEND);
  const specs = Object.values(NODES_SERVICES);
  return {
    services: specs.map(labService),
    endpointSlices: specs.map((spec) => {
      if (spec.name === 'local' || spec.name === 'cluster') return labEndpointSliceOf(spec, single.map((p) => endpointOf(p, false)));
      return labEndpointSliceOf(
        spec,
        backends.map((p) => endpointOf(p, spec.name === 'zonal')),
      );
    }),
  };
}

export interface NodesDemoOptions {
  /** TCP connections from each client pod to each ClusterIP service. */
  readonly connections: number;
}

/** What the demo found; `ok` is false when something did not behave as the rules say. */
export interface NodesDemoResult {
  readonly ok: boolean;
  readonly problems: readonly string[];
}

const TIMEOUT_MS = 2_000;

export function describeNodesLab(lab: MultiNodeLab, print: (line: string) => void): void {
  print(`lab ${lab.prefix}: ${lab.nodes.length} nodes, ${lab.proxyMode === 'nftables' ? 'nftables (nft -f)' : `iptables ${lab.iptables}`}`);
  for (const node of lab.nodes) {
    print(`  ${node.name.padEnd(8)} ${node.namespace.padEnd(16)} ${node.ip} (node IP), zone ${node.zone || '(none)'}, pods ${node.podCIDR}`);
    for (const pod of lab.pods.filter((p) => p.node === node.name)) print(`    ${pod.name.padEnd(6)} ${pod.namespace.padEnd(16)} ${pod.ip} ${pod.role}`);
  }
  print(`  ${EXTERNAL_HOST.padEnd(8)} ${lab.externalNamespace.padEnd(16)} ${EXTERNAL_HOST_IP} (outside the cluster)`);
}

/** Where a traced outcome goes, in words: a backend's name, or the verdict. */
function verdictOf(lab: MultiNodeLab, outcome: LabTraceOutcome): string {
  if (outcome.kind !== 'dnat') return outcome.kind;
  return lab.podByIP(dnatAddress(outcome.dnat ?? ''))?.name ?? outcome.dnat ?? '';
}

export async function runNodesDemo(lab: MultiNodeLab, options: NodesDemoOptions, print: (line: string) => void): Promise<NodesDemoResult> {
  const problems: string[] = [];
  const check = (ok: boolean, problem: string): void => {
    if (!ok) problems.push(problem);
  };
  const { services, endpointSlices } = nodesDemoCluster(lab);
  for (const loaded of lab.sync(services, endpointSlices)) {
    print(`${loaded.node}: sync (${loaded.full ? 'full' : 'partial'}), ${loaded.size} ${lab.proxyMode === 'nftables' ? 'rules' : 'lines'} loaded with ${loaded.command.slice(4).join(' ')}`);
  }
  const traced = (node: string, packet: Packet): readonly LabTraceOutcome[] => {
    const trace = lab.trace(node, packet);
    if (!trace.ok) {
      problems.push(trace.error.message);
      return [];
    }
    return trace.value.outcomes;
  };

  // A NodePort from outside the cluster, on each node.
  for (const spec of [NODES_SERVICES.local, NODES_SERVICES.cluster]) {
    print(`TCP to NodePort ${spec.nodePort} (${spec.name}: externalTrafficPolicy ${'externalTrafficPolicy' in spec ? spec.externalTrafficPolicy : 'Cluster'}, one endpoint, ${SINGLE_BACKEND} on ${lab.pod(SINGLE_BACKEND).node}) from ${EXTERNAL_HOST} ${EXTERNAL_HOST_IP}:`);
    for (const node of lab.nodes) {
      const outcomes = traced(node.name, { source: EXTERNAL_HOST_IP, destination: node.ip, protocol: 'tcp', destinationPort: spec.nodePort, entry: 'outside' });
      const predicted = outcomes.map((o) => `${verdictOf(lab, o)}${o.masqueraded ? ' (source NAT)' : ''}`).join(', ');
      const report = await lab.connect(EXTERNAL_HOST, { protocol: 'tcp', host: node.ip, port: spec.nodePort, count: 1, timeoutMs: TIMEOUT_MS });
      const r = report.results[0];
      const seen = r === undefined ? 'nothing' : r.ok ? `answered by ${r.value.backend}, which saw ${r.value.peer.split(':')[0] ?? ''}` : r.error.message;
      print(`  via ${node.name.padEnd(8)} ${node.ip}:${spec.nodePort}  ${seen.padEnd(40)} traced: ${predicted}`);
      const expectsAnswer = outcomes.length === 1 && outcomes[0]?.kind === 'dnat';
      if (expectsAnswer) {
        const outcome = outcomes[0];
        check(r !== undefined && r.ok && r.value.backend === verdictOf(lab, outcome as LabTraceOutcome), `${spec.name} via ${node.name}: traced ${predicted}, got ${seen}`);
        // MASQUERADE takes the address of the interface the packet leaves by: the bridge's
        // toward a pod of this node, the uplink's (the node IP) toward another node.
        const backendNode = lab.podByIP(dnatAddress(outcome?.dnat ?? ''))?.node;
        const expectedPeer = outcome?.masqueraded !== true ? EXTERNAL_HOST_IP : backendNode === node.name ? node.gateway : node.ip;
        check(r !== undefined && r.ok && r.value.peer.startsWith(`${expectedPeer}:`), `${spec.name} via ${node.name}: the backend saw ${seen}, not ${expectedPeer}`);
      } else {
        const dropped = outcomes.length > 0 && outcomes.every((o) => o.kind === 'drop');
        check(dropped && r !== undefined && !r.ok && r.error.message === 'timeout', `${spec.name} via ${node.name}: traced ${predicted}, got ${seen}`);
      }
    }
  }

  // A ClusterIP from a pod on each node: with no hints every endpoint, with PreferClose its zone's.
  for (const spec of [NODES_SERVICES.spread, NODES_SERVICES.zonal]) {
    for (const client of lab.pods.filter((p) => p.role === 'client')) {
      const packet: Packet = { source: client.ip, destination: spec.clusterIP, protocol: 'tcp', destinationPort: spec.port, entry: 'pod' };
      const outcomes = traced(client.node, packet);
      const predicted = predictedShares({ outcomes }, (o) => verdictOf(lab, o));
      const report = await lab.connect(client.name, { protocol: 'tcp', host: spec.clusterIP, port: spec.port, count: options.connections, concurrency: 16, timeoutMs: 5_000, deadlineMs: 60_000 });
      print(`TCP ${spec.clusterIP}:${spec.port} (${spec.name}${'trafficDistribution' in spec ? `, trafficDistribution ${spec.trafficDistribution}` : ''}) from ${client.name} on ${client.node} (${lab.node(client.node).zone}): ${report.launched} connections, ${report.failures.length} failed`);
      print(sharesTable(report.counts, predicted));
      check(report.failures.length === 0, `${report.failures.length} connections from ${client.name} to ${spec.clusterIP} failed`);
      const unexpected = Object.keys(report.counts).filter((b) => (predicted[b] ?? 0) === 0);
      check(unexpected.length === 0, `${spec.name} from ${client.name}: ${unexpected.join(', ')} answered though the tracer gives them no share`);
      if (Object.keys(predicted).length > 1 && unexpected.length === 0) {
        const test = chiSquareTest(report.counts, predicted);
        print(`  chi-square ${test.statistic.toFixed(2)} with ${test.degreesOfFreedom} df: p = ${test.pValue.toFixed(3)} (needs p > 0.001)`);
        check(test.pValue > 0.001, `${spec.name} from ${client.name}: the counts do not fit the tracer's prediction (p = ${test.pValue})`);
      }
    }
  }
  return { ok: problems.length === 0, problems };
}
