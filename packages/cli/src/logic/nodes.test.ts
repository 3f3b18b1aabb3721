// What kube-proxy on a Node of the dump runs with: its name, its zone label alone (as
// NodeTopologyConfig passes the labels on), its InternalIPs; and the Nodes by name.
import type { KubeObject, Node } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { allDumpNodes, dumpNodeOf, findDumpNode } from './nodes.js';

const node = (name: string, labels: Record<string, string>, addresses: Array<{ type: string; address: string }>): Node =>
  ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, status: { addresses } }) as Node;

describe('nodes of a dump', () => {
  it('keeps the zone label only, and the InternalIP addresses in their order', () => {
    const n = node('n1', { 'topology.kubernetes.io/zone': 'z', 'topology.kubernetes.io/region': 'r', 'kubernetes.io/hostname': 'n1' }, [
      { type: 'Hostname', address: 'n1' },
      { type: 'InternalIP', address: '192.168.0.2' },
      { type: 'ExternalIP', address: '203.0.113.2' },
      { type: 'InternalIP', address: 'fd00::2' },
    ]);
    expect(dumpNodeOf(n)).toEqual({ nodeName: 'n1', topologyLabels: { 'topology.kubernetes.io/zone': 'z' }, nodeIPs: ['192.168.0.2', 'fd00::2'] });
    expect(dumpNodeOf(node('n2', {}, [])).topologyLabels).toEqual({});
  });

  it('sorts the Nodes by name, the last listing of a name winning, and says which exist when one is missing', () => {
    const dump = { source: 'd.yaml', objects: [node('b', {}, []), node('a', { 'topology.kubernetes.io/zone': 'old' }, []), node('a', {}, [])] as KubeObject[] };
    const all = allDumpNodes(dump);
    expect(all.ok ? all.value.map((n) => [n.nodeName, n.topologyLabels]) : []).toEqual([
      ['a', {}],
      ['b', {}],
    ]);
    const missing = findDumpNode(dump, 'c', '--node');
    expect(missing.ok ? '' : missing.error.message).toBe('--node "c": d.yaml has no Node of that name (its Nodes: a, b)');
    const none = allDumpNodes({ source: 'e.yaml', objects: [] });
    expect(none.ok ? '' : none.error.message).toBe('--all-nodes: e.yaml has no Node objects to trace from');
  });
});
