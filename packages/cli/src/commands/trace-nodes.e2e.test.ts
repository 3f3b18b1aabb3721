// `kubesvc rules --node`, `kubesvc trace --from-node` and `--all-nodes` through the real bin, on
// three Nodes in three zones (fixtures/topology.yaml): kube-proxy on each node reads the zone
// hints of a PreferClose Service's endpoints, ignores every hint of a Service with an endpoint
// without one, and drops an eTP Local NodePort on a node without a local endpoint.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FIXTURES, runBin } from '../run-bin.fixtures.js';

const TOPOLOGY = join(FIXTURES, 'topology.yaml');
const CLUSTER = join(FIXTURES, 'cluster.yaml');
const MODES = ['iptables', 'nftables'] as const;
// The nftables mode warns that the fixture has no ServiceCIDR objects.
const SERVICE_CIDR_WARNING = 'warning: the input has no ServiceCIDR objects and no --service-cidr was given, so the rules drop no packet to an unallocated ClusterIP\n';

/** The table's rows, cells split on the runs of spaces between columns. */
function rows(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => line.split(/\s{3,}/));
}

describe.each(MODES)('kubesvc trace --all-nodes (%s)', (mode) => {
  const args = (...rest: string[]) => ['trace', '-f', TOPOLOGY, '--proxy-mode', mode, '--all-nodes', ...rest];
  const stderr = mode === 'nftables' ? SERVICE_CIDR_WARNING : '';

  test("PreferClose with zone hints: each node reaches only its own zone's two endpoints, 1/2 each", async () => {
    const run = await runBin(args('--to', '10.96.50.10:80'));
    expect(run.stderr).toBe(stderr);
    expect(run.code).toBe(0);
    expect(rows(run.stdout)).toEqual([
      ['node-a', 'zone-a', 'DNAT', '10.244.1.11:8080', '1/2', '0.5000000000'],
      ['node-a', 'zone-a', 'DNAT', '10.244.1.12:8080', '1/2', '0.5000000000'],
      ['node-b', 'zone-b', 'DNAT', '10.244.2.11:8080', '1/2', '0.5000000000'],
      ['node-b', 'zone-b', 'DNAT', '10.244.2.12:8080', '1/2', '0.5000000000'],
      ['node-c', 'zone-c', 'DNAT', '10.244.3.11:8080', '1/2', '0.5000000000'],
      ['node-c', 'zone-c', 'DNAT', '10.244.3.12:8080', '1/2', '0.5000000000'],
    ]);
    expect(run.stdout.split('\n')[0]).toBe('NODE     ZONE     OUTCOME   DESTINATION        PROBABILITY   DECIMAL        WHY');
  });

  test('one endpoint without hints: the hints are ignored and every node reaches all four endpoints', async () => {
    const run = await runBin(args('--to', '10.96.50.20:80', '-o', 'json'));
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout) as { nodes: Array<{ node: string; zone: string; outcomes: Array<{ dnat: string; probability: { written: string } }> }> };
    const endpoints = ['10.244.1.21:8080', '10.244.2.21:8080', '10.244.3.21:8080', '10.244.3.22:8080'];
    expect(data.nodes.map((n) => n.node)).toEqual(['node-a', 'node-b', 'node-c']);
    for (const node of data.nodes) expect(node.outcomes.map((o) => o.dnat)).toEqual(endpoints);
    // nftables writes 1/4 each; iptables 0.25, 0.3333333333, 0.5 down the chain: 1/4, then
    // 3/4 × 0.3333333333 = 0.249999999975, then half of the 0.500000000025 left, twice.
    const written = data.nodes[0]?.outcomes.map((o) => o.probability.written);
    expect(written).toEqual(mode === 'nftables' ? ['1/4', '1/4', '1/4', '1/4'] : ['1/4', '9999999999/40000000000', '20000000001/80000000000', '20000000001/80000000000']);
  });

  test('eTP Local NodePort: node-a and node-b reach their local endpoint, node-c drops and says why', async () => {
    const run = await runBin(args('--to', ':30080', '--node-port'));
    expect(run.code).toBe(0);
    expect(rows(run.stdout)).toEqual([
      ['node-a', 'zone-a', 'DNAT', '10.244.1.31:8080', '1', '1.0000000000'],
      ['node-b', 'zone-b', 'DNAT', '10.244.2.31:8080', '1', '1.0000000000'],
      [
        'node-c',
        'zone-c',
        'DROP',
        '192.168.10.3:30080',
        '1',
        '1.0000000000',
        mode === 'iptables' ? 'shop/edge:http has no local endpoints' : 'no-endpoint-nodeports: shop/edge:http',
      ],
    ]);
  });

  test('node hints count only with --feature-gates PreferSameTrafficDistribution=true (off by default in v1.33)', async () => {
    const off = await runBin(args('--to', '10.96.50.40:80', '-o', 'json'));
    const on = await runBin(args('--to', '10.96.50.40:80', '-o', 'json', '--feature-gates', 'PreferSameTrafficDistribution=true'));
    expect([off.code, on.code]).toEqual([0, 0]);
    type Matrix = { nodes: Array<{ node: string; outcomes: Array<{ dnat: string; probability: { written: string } }> }> };
    const reached = (stdout: string) => (JSON.parse(stdout) as Matrix).nodes.map((n) => [n.node, n.outcomes.map((o) => o.dnat)]);
    const all = ['10.244.1.41:8080', '10.244.2.41:8080', '10.244.3.41:8080'];
    expect(reached(off.stdout)).toEqual([
      ['node-a', all],
      ['node-b', all],
      ['node-c', all],
    ]);
    expect(reached(on.stdout)).toEqual([
      ['node-a', ['10.244.1.41:8080']],
      ['node-b', ['10.244.2.41:8080']],
      ['node-c', ['10.244.3.41:8080']],
    ]);
    expect((JSON.parse(on.stdout) as Matrix).nodes.map((n) => n.outcomes[0]?.probability.written)).toEqual(['1', '1', '1']);
  });

  test('-o yaml: per node its zone, node IPs and packet', async () => {
    const run = await runBin(args('--to', ':30080', '--node-port', '-o', 'yaml'));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('node: node-c');
    expect(run.stdout).toContain('zone: zone-c');
    expect(run.stdout).toContain('destination: 192.168.10.3');
    expect(run.stdout).toContain('outcome: drop');
  });

  test('an input without Nodes is refused (exit 1)', async () => {
    const run = await runBin(['trace', '-f', CLUSTER, '--proxy-mode', mode, '--all-nodes', '--to', '10.96.100.10:80']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error: --all-nodes: ${CLUSTER} has no Node objects to trace from\n`);
    expect(run.stdout).toBe('');
  });
});

describe.each(MODES)('kubesvc trace --from-node, kubesvc rules --node (%s)', (mode) => {
  test("--from-node: the node's name, zone and InternalIP", async () => {
    const run = await runBin(['trace', '-f', TOPOLOGY, '--proxy-mode', mode, '--from-node', 'node-b', '--to', '10.96.50.10:80', '-o', 'json']);
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout) as { outcomes: Array<{ dnat: string }> };
    expect(data.outcomes.map((o) => o.dnat)).toEqual(['10.244.2.11:8080', '10.244.2.12:8080']);
    const host = await runBin(['trace', '-f', TOPOLOGY, '--proxy-mode', mode, '--from-node', 'node-c', '--to', ':30080', '--node-port', '-o', 'json']);
    expect(host.code).toBe(1);
    expect(JSON.parse(host.stdout)).toMatchObject({ packet: { destination: '192.168.10.3', destinationPort: 30080 }, outcomes: [{ outcome: 'drop' }] });
  });

  test("--node: the rules of kube-proxy on that node reach its zone's endpoints", async () => {
    const run = await runBin(['rules', '-f', TOPOLOGY, '--proxy-mode', mode, '--node', 'node-a']);
    expect(run.code).toBe(0);
    const destinations = [...run.stdout.matchAll(mode === 'iptables' ? /--to-destination (\S+)/g : /dnat to (\S+)/g)].map((m) => m[1]);
    expect(destinations.filter((d) => d?.startsWith('10.244.') === true && /^10\.244\.\d\.1\d:/.test(d))).toEqual(['10.244.1.11:8080', '10.244.1.12:8080']);
  });

  test('a Node the input does not have is an input error (exit 1) naming the Nodes it has', async () => {
    const rules = await runBin(['rules', '-f', TOPOLOGY, '--proxy-mode', mode, '--node', 'node-x']);
    expect(rules.code).toBe(1);
    expect(rules.stderr).toContain(`error: --node "node-x": ${TOPOLOGY} has no Node of that name (its Nodes: node-a, node-b, node-c)\n`);
    const trace = await runBin(['trace', '-f', TOPOLOGY, '--proxy-mode', mode, '--from-node', 'node-x', '--to', '10.96.50.10:80']);
    expect(trace.code).toBe(1);
    expect(trace.stderr).toContain(`error: --from-node "node-x": ${TOPOLOGY} has no Node of that name (its Nodes: node-a, node-b, node-c)\n`);
  });

  test('a gate kube-proxy does not have here is a usage error (exit 2)', async () => {
    const run = await runBin(['rules', '-f', TOPOLOGY, '--proxy-mode', mode, '--feature-gates', 'TopologyAwareHints=true']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "error: --feature-gates: unrecognized feature gate: TopologyAwareHints (kubesvc's rules and trace model only PreferSameTrafficDistribution, and AllAlpha and AllBeta over it)\n",
    );
  });

  test('--node-name beside a flag that takes the node from the input is a usage error (exit 2)', async () => {
    const run = await runBin(['trace', '-f', TOPOLOGY, '--proxy-mode', mode, '--all-nodes', '--node-name', 'n', '--to', '10.96.50.10:80']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("error: --all-nodes takes the node's name from its Node object: leave out --node-name\n");
  });
});

describe('kubesvc rules --node --kube-proxy-version 1.8', () => {
  test('kube-proxy 1.8 read no node labels: every endpoint, and the PreferSameTrafficDistribution gate is refused', async () => {
    const run = await runBin(['rules', '-f', TOPOLOGY, '--kube-proxy-version', '1.8', '--node', 'node-a']);
    expect(run.code).toBe(0);
    const web = [...run.stdout.matchAll(/--to-destination (10\.244\.\d\.1\d:8080)/g)].map((m) => m[1]);
    expect(web).toEqual(['10.244.1.11:8080', '10.244.1.12:8080', '10.244.2.11:8080', '10.244.2.12:8080', '10.244.3.11:8080', '10.244.3.12:8080']);
    const gate = await runBin(['rules', '-f', TOPOLOGY, '--kube-proxy-version', '1.8', '--feature-gates', 'PreferSameTrafficDistribution=true']);
    expect(gate.code).toBe(2);
    expect(gate.stderr).toBe('error: preferSameTrafficDistribution: Forbidden: kube-proxy 1.8 has no such setting (added in v1.33)\n');
  });
});
