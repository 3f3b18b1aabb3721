// `kubesvc up`'s node flags: names, zones, pod CIDRs, cpu, and the refusals.
import { describe, expect, it } from 'vitest';
import { nodesText, upNodes, type NodeFlags } from './nodes.js';

const base: NodeFlags = { nodes: '1', nodeName: 'laptop', cpu: '4', clusterCIDR: '10.244.0.0/16' };

function nodesOf(flags: Partial<NodeFlags>) {
  const r = upNodes({ ...base, ...flags });
  if (!r.ok) throw new Error(r.error);
  return r.nodes;
}

function errorOf(flags: Partial<NodeFlags>): string {
  const r = upNodes({ ...base, ...flags });
  return r.ok ? 'accepted' : r.error;
}

describe('upNodes', () => {
  it('keeps one node as before: named --node-name, with the whole --cluster-cidr and no zone', () => {
    expect(nodesOf({})).toEqual([{ name: 'laptop', podCIDR: '10.244.0.0/16', labels: {}, cpu: '4' }]);
  });

  it('names N nodes <name>-1 .. <name>-N, cuts a /24 each, puts node i in zones[i mod k], and gives the others 127.0.0.<i+1>', () => {
    const nodes = nodesOf({ nodes: '4', zones: 'a,b,c', region: 'r1', cpu: '500m' });
    expect(nodes).toEqual([
      { name: 'laptop-1', podCIDR: '10.244.0.0/24', labels: { 'topology.kubernetes.io/zone': 'a', 'topology.kubernetes.io/region': 'r1' }, cpu: '500m' },
      { name: 'laptop-2', podCIDR: '10.244.1.0/24', internalIP: '127.0.0.2', labels: { 'topology.kubernetes.io/zone': 'b', 'topology.kubernetes.io/region': 'r1' }, cpu: '500m' },
      { name: 'laptop-3', podCIDR: '10.244.2.0/24', internalIP: '127.0.0.3', labels: { 'topology.kubernetes.io/zone': 'c', 'topology.kubernetes.io/region': 'r1' }, cpu: '500m' },
      { name: 'laptop-4', podCIDR: '10.244.3.0/24', internalIP: '127.0.0.4', labels: { 'topology.kubernetes.io/zone': 'a', 'topology.kubernetes.io/region': 'r1' }, cpu: '500m' },
    ]);
    expect(nodesText(nodes)).toBe('4 nodes: laptop-1 (zone a), laptop-2 (zone b), laptop-3 (zone c), laptop-4 (zone a); the node agent (cluster DNS, kube-proxy) runs for laptop-1');
    expect(nodesText(nodesOf({}))).toBe('Node: laptop; the node agent (cluster DNS, kube-proxy) runs for laptop');
  });

  it('cuts /64s out of an IPv6 cluster CIDR, and lets a zone repeat', () => {
    const nodes = nodesOf({ nodes: '2', zones: 'a,a', clusterCIDR: 'fd00:10:244::/56' });
    expect(nodes.map((n) => [n.podCIDR, n.labels['topology.kubernetes.io/zone']])).toEqual([
      ['fd00:10:244::/64', 'a'],
      ['fd00:10:244:1::/64', 'a'],
    ]);
  });

  it('refuses what a cluster could not have, saying which flag and why', () => {
    expect(errorOf({ nodes: '0' })).toBe('--nodes must be a whole number from 1 to 100, not "0"');
    expect(errorOf({ nodes: '101' })).toBe('--nodes must be a whole number from 1 to 100, not "101"');
    expect(errorOf({ nodes: 'three' })).toBe('--nodes must be a whole number from 1 to 100, not "three"');
    expect(errorOf({ nodes: '2', zones: 'a,b,c' })).toBe('--node-zones names 3 zones for 2 nodes: every zone needs a node (give --nodes 3 or more, or fewer zones)');
    expect(errorOf({ nodes: '2', zones: 'a,,b' })).toBe('--node-zones takes zone names, comma-separated, with none empty, not "a,,b"');
    expect(errorOf({ nodes: '2', zones: 'a,b c' })).toMatch(/^--node-zones: "b c" is not a valid value of the label topology.kubernetes.io\/zone: a valid label must be an empty string or consist of alphanumeric characters/);
    expect(errorOf({ region: 'eu west' })).toMatch(/^--node-region: "eu west" is not a valid value of the label topology.kubernetes.io\/region: /);
    expect(errorOf({ cpu: '0' })).toBe('--node-cpu must be a cpu quantity above zero, such as 4, 0.5 or 500m, not "0"');
    expect(errorOf({ cpu: 'four' })).toBe('--node-cpu must be a cpu quantity above zero, such as 4, 0.5 or 500m, not "four"');
    expect(errorOf({ nodes: '2', nodeName: 'My_Host' })).toMatch(/^--node-name: "My_Host-1" is not a valid node name: a lowercase RFC 1123 subdomain/);
    expect(errorOf({ nodes: '3', clusterCIDR: '10.244.0.0/23' })).toBe(
      '--cluster-cidr 10.244.0.0/23 has room for 2 node pod CIDRs of /24, and --nodes asks for 3: give a larger --cluster-cidr (a /22 or larger)',
    );
    expect(errorOf({ nodes: '2', clusterCIDR: '10.244.0.0/25' })).toBe(
      '--cluster-cidr 10.244.0.0/25 has room for 0 node pod CIDRs of /24, and --nodes asks for 2: give a larger --cluster-cidr (a /23 or larger)',
    );
  });
});
