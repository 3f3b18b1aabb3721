// The explorer as kube-proxy on each Node of fixtures/topology.yaml (three Nodes, one per zone),
// asked through the real HTTP handler: `node=NAME` on the model, its event stream and traces,
// and the node matrix (`kubesvc trace --all-nodes`). The expected answers are the Kubernetes
// semantics written out for the fixture: a PreferClose Service whose endpoints all carry zone
// hints is reached on each node through its own zone's endpoints only, 1/2 each of two
// (upstream (v1.33): pkg/proxy/topology.go, CategorizeEndpoints); one endpoint without hints
// makes kube-proxy ignore them all; an externalTrafficPolicy Local NodePort is dropped on a node
// with no endpoint of its own (pkg/proxy/iptables/proxier.go, "has no local endpoints").
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseServiceNetworking } from '@kubesvc/api-types';
import type { ExplorerModel, NodeMatrixRow } from '@kubesvc/explorer';
import { createExplorerHandler, ensureUiBuilt, startExplorerServer, type ExplorerServer } from '@kubesvc/explorer/node';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { proxierConfigOf, type ProxierCommandOptions } from '../commands/proxier-options.js';
import { loadDump, type Dump } from '../dump/load-dump.js';
import { FIXTURES } from '../run-bin.fixtures.js';
import { dumpExplorerSource } from './explorer-sources.js';

const TOKEN = 'a-token';
const auth = { Authorization: `Bearer ${TOKEN}` };
const servers: ExplorerServer[] = [];

beforeAll(async () => {
  expect(await ensureUiBuilt()).toBe(true);
}, 120_000);

afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

function fixture(name: string): Dump {
  const loaded = loadDump(name, readFileSync(join(FIXTURES, name), 'utf8'));
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.value;
}

/** `kubesvc explore`'s flags left at their defaults, with --feature-gates as given. */
function flags(featureGates?: string): ProxierCommandOptions {
  return { nodeName: 'node-1', nodeIp: [], kubeProxyVersion: '1.31', proxyMode: 'iptables', serviceCidr: [], ...(featureGates !== undefined ? { featureGates } : {}) };
}

/** The explorer of `kubesvc explore -f <name>`, served on 127.0.0.1; `get` fetches a data path and returns its status and JSON. */
async function explore(name: string, featureGates?: string): Promise<{ get: (path: string) => Promise<{ status: number; body: unknown }> }> {
  const options = flags(featureGates);
  const serviceNetworking = parseServiceNetworking({ serviceClusterIPRange: '10.96.0.0/12' });
  if (!serviceNetworking.ok) throw new Error(serviceNetworking.error.message);
  const source = dumpExplorerSource(fixture(name), {
    proxier: proxierConfigOf(options),
    proxierOf: (node) => proxierConfigOf(options, node),
    serviceNetworking: serviceNetworking.value,
    now: () => Date.parse('2026-01-01T00:00:00Z'),
  });
  const server = await startExplorerServer({ handler: createExplorerHandler({ source }), token: TOKEN, port: 0 });
  servers.push(server);
  return {
    get: async (path) => {
      const res = await fetch(`${server.url}/ui/api/${path}`, { headers: auth });
      return { status: res.status, body: await res.json() };
    },
  };
}

/** The DNAT destinations of a Service's chains in a model's rule graph, sorted. */
function dnats(model: ExplorerModel, service: string): string[] {
  return model.rules.nodes
    .filter((n) => n.kind === 'dnat' && n.service === service)
    .map((n) => n.label.replace(/^DNAT /, ''))
    .sort();
}

/** A matrix as rows of [node, zone, outcome, destination, probability, why], one per outcome. */
function cells(rows: readonly NodeMatrixRow[]): string[][] {
  return rows.flatMap((r) => r.outcomes.map((o) => [r.node, r.zone, o.outcome, o.destination, o.probability, o.why]));
}

const UNKNOWN = 'node "node-x": topology.yaml has no Node of that name (its Nodes: node-a, node-b, node-c)';

describe('the explorer over topology.yaml, as each of its Nodes', () => {
  it("lists the dump's Nodes with their zone and InternalIPs, and draws the flags' node when no node is asked", async () => {
    const { get } = await explore('topology.yaml');
    const { status, body } = await get('model');
    expect(status).toBe(200);
    const model = body as ExplorerModel;
    expect(model.nodes).toEqual([
      { name: 'node-a', zone: 'zone-a', nodeIPs: ['192.168.10.1'] },
      { name: 'node-b', zone: 'zone-b', nodeIPs: ['192.168.10.2'] },
      { name: 'node-c', zone: 'zone-c', nodeIPs: ['192.168.10.3'] },
    ]);
    expect(model.node).toBeUndefined();
    // The flags' node-1 has no zone label: kube-proxy there uses every endpoint, hints or not.
    expect(dnats(model, 'shop/web')).toEqual(['10.244.1.11:8080', '10.244.1.12:8080', '10.244.2.11:8080', '10.244.2.12:8080', '10.244.3.11:8080', '10.244.3.12:8080']);
    // `node=` (the picker's "(no node)") is the same model.
    expect((await get('model?node=')).body).toEqual(model);
  });

  it("node=NAME: the rule graph of kube-proxy on that Node reaches its own zone's endpoints of the PreferClose Service", async () => {
    const { get } = await explore('topology.yaml');
    const expected: Record<string, string[]> = {
      'node-a': ['10.244.1.11:8080', '10.244.1.12:8080'],
      'node-b': ['10.244.2.11:8080', '10.244.2.12:8080'],
      'node-c': ['10.244.3.11:8080', '10.244.3.12:8080'],
    };
    for (const [node, endpoints] of Object.entries(expected)) {
      const { status, body } = await get(`model?node=${node}`);
      expect(status).toBe(200);
      const model = body as ExplorerModel;
      expect(model.node).toBe(node);
      expect(dnats(model, 'shop/web')).toEqual(endpoints);
      // shop/mixed has an endpoint without hints: every node reaches all four.
      expect(dnats(model, 'shop/mixed')).toEqual(['10.244.1.21:8080', '10.244.2.21:8080', '10.244.3.21:8080', '10.244.3.22:8080']);
    }
  });

  it('a trace with node=NAME is sent on that Node', async () => {
    const { get } = await explore('topology.yaml');
    const { status, body } = await get('trace?destination=10.96.50.10%3A80&protocol=tcp&node=node-c');
    expect(status).toBe(200);
    const answer = body as { ok: true; value: Array<{ outcome: string; destination: string; probability: string }> };
    expect(answer.value.map((o) => [o.outcome, o.destination, o.probability])).toEqual([
      ['dnat', '10.244.3.11:8080', '1/2'],
      ['dnat', '10.244.3.12:8080', '1/2'],
    ]);
  });

  it('a Node the dump does not have is a 404 naming the Nodes it has, for the model, its stream and a trace', async () => {
    const { get } = await explore('topology.yaml');
    const refused = { ok: false, error: { _tag: 'ErrExplorerNode', message: UNKNOWN } };
    expect(await get('model?node=node-x')).toEqual({ status: 404, body: refused });
    expect(await get('events?node=node-x')).toEqual({ status: 404, body: refused });
    expect(await get('trace?destination=10.96.50.10%3A80&node=node-x')).toEqual({ status: 404, body: refused });
  });

  it('the matrix of the PreferClose Service: each zone\'s node reaches its two endpoints at 1/2', async () => {
    const { get } = await explore('topology.yaml');
    const { status, body } = await get('matrix?destination=10.96.50.10%3A80&protocol=tcp');
    expect(status).toBe(200);
    const rows = (body as { ok: true; value: NodeMatrixRow[] }).value;
    expect(cells(rows)).toEqual([
      ['node-a', 'zone-a', 'dnat', '10.244.1.11:8080', '1/2', ''],
      ['node-a', 'zone-a', 'dnat', '10.244.1.12:8080', '1/2', ''],
      ['node-b', 'zone-b', 'dnat', '10.244.2.11:8080', '1/2', ''],
      ['node-b', 'zone-b', 'dnat', '10.244.2.12:8080', '1/2', ''],
      ['node-c', 'zone-c', 'dnat', '10.244.3.11:8080', '1/2', ''],
      ['node-c', 'zone-c', 'dnat', '10.244.3.12:8080', '1/2', ''],
    ]);
    // Two endpoints: kube-proxy writes 0.5000000000 for the first, which is exactly 1/2.
    expect(rows[0]?.outcomes.map((o) => [o.written, o.decimal])).toEqual([
      ['1/2', '0.5000000000'],
      ['1/2', '0.5000000000'],
    ]);
  });

  it('the matrix of the hints-ignored Service: every node reaches all four at 1/4, with the written decimals as kubesvc trace prints them', async () => {
    const { get } = await explore('topology.yaml');
    const rows = ((await get('matrix?destination=10.96.50.20%3A80&protocol=tcp')).body as { value: NodeMatrixRow[] }).value;
    for (const row of rows) {
      expect(row.outcomes.map((o) => [o.destination, o.probability])).toEqual([
        ['10.244.1.21:8080', '1/4'],
        ['10.244.2.21:8080', '1/4'],
        ['10.244.3.21:8080', '1/4'],
        ['10.244.3.22:8080', '1/4'],
      ]);
      // 0.25, then 3/4 of 0.3333333333, then half of what is left, twice.
      expect(row.outcomes.map((o) => o.written)).toEqual(['1/4', '9999999999/40000000000', '20000000001/80000000000', '20000000001/80000000000']);
    }
  });

  it('the matrix of the eTP Local NodePort: node-a and node-b reach their own endpoint, node-c drops and says why', async () => {
    const { get } = await explore('topology.yaml');
    const rows = ((await get('matrix?destination=%3A30080&protocol=tcp&nodePort=true')).body as { value: NodeMatrixRow[] }).value;
    expect(rows.map((r) => r.destination)).toEqual(['192.168.10.1:30080', '192.168.10.2:30080', '192.168.10.3:30080']);
    expect(cells(rows)).toEqual([
      ['node-a', 'zone-a', 'dnat', '10.244.1.31:8080', '1', ''],
      ['node-b', 'zone-b', 'dnat', '10.244.2.31:8080', '1', ''],
      ['node-c', 'zone-c', 'drop', '192.168.10.3:30080', '1', 'shop/edge:http has no local endpoints'],
    ]);
  });

  it("the explore flags' --feature-gates reach each node: node hints count with PreferSameTrafficDistribution on", async () => {
    const reached = async (featureGates?: string) =>
      (((await (await explore('topology.yaml', featureGates)).get('matrix?destination=10.96.50.40%3A80&protocol=tcp')).body as { value: NodeMatrixRow[] }).value).map((r) => [
        r.node,
        r.outcomes.map((o) => o.destination),
      ]);
    const all = ['10.244.1.41:8080', '10.244.2.41:8080', '10.244.3.41:8080'];
    expect(await reached()).toEqual([
      ['node-a', all],
      ['node-b', all],
      ['node-c', all],
    ]);
    expect(await reached('PreferSameTrafficDistribution=true')).toEqual([
      ['node-a', ['10.244.1.41:8080']],
      ['node-b', ['10.244.2.41:8080']],
      ['node-c', ['10.244.3.41:8080']],
    ]);
  });

  it('a destination the matrix cannot read is a 400 that names the field', async () => {
    const { get } = await explore('topology.yaml');
    const { status, body } = await get('matrix?destination=10.96.50.10&protocol=tcp');
    expect(status).toBe(400);
    expect((body as { ok: false; error: { _tag: string; message: string } }).error._tag).toBe('ErrExplorerTrace');
    expect((body as { error: { message: string } }).error.message).toMatch(/^destination "10\.96\.50\.10"/);
  });
});

describe('the explorer over a dump without Nodes', () => {
  it('has no Nodes in its model (no picker), and refuses node=NAME and the matrix saying so', async () => {
    const { get } = await explore('cluster.yaml');
    const model = (await get('model')).body as ExplorerModel;
    expect(model.nodes).toBeUndefined();
    expect(await get('model?node=node-a')).toEqual({
      status: 404,
      body: { ok: false, error: { _tag: 'ErrExplorerNode', message: 'node "node-a": cluster.yaml has no Node of that name (it has no Nodes)' } },
    });
    expect(await get('matrix?destination=10.96.100.10%3A80')).toEqual({
      status: 404,
      body: { ok: false, error: { _tag: 'ErrExplorerNode', message: 'the node matrix: cluster.yaml has no Node objects to trace from' } },
    });
  });
});
