// The doctor's traffic checks on small hand-written dumps: NoLocalEndpoints (traced through
// each Node's iptables rules), ClusterIPNoPing, AffinityTimeoutShort.
import type { KubeObject } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { endpoints, node, pod, reportOf, service } from './doctor.fixtures.js';

const NODES = [node('node-a', '192.168.10.1'), node('node-b', '192.168.10.2'), node('node-c', '192.168.10.3')];
const EDGE_PODS = [
  pod('shop', 'edge-1', { labels: { app: 'edge' }, ip: '10.244.1.1', node: 'node-a', ports: [{ containerPort: 8080 }] }),
  pod('shop', 'edge-2', { labels: { app: 'edge' }, ip: '10.244.2.1', node: 'node-b', ports: [{ containerPort: 8080 }] }),
];
const EDGE_ENDPOINTS = endpoints('shop', 'edge', [
  {
    addresses: [
      { ip: '10.244.1.1', nodeName: 'node-a' },
      { ip: '10.244.2.1', nodeName: 'node-b' },
    ],
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  },
]);

function edge(spec: Record<string, unknown>): KubeObject {
  return service('shop', 'edge', { clusterIP: '10.96.1.40', selector: { app: 'edge' }, ports: [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30080 }], ...spec });
}

describe('NoLocalEndpoints', () => {
  it('externalTrafficPolicy Local: the Nodes without a local endpoint drop the NodePort traffic', () => {
    const report = reportOf([...NODES, edge({ type: 'NodePort', externalTrafficPolicy: 'Local' }), ...EDGE_PODS, EDGE_ENDPOINTS]);
    expect(report.findings.map((f) => f.code)).toEqual(['NoLocalEndpoints']);
    const finding = report.findings[0];
    expect(finding?.severity).toBe('warning');
    expect(finding?.summary).toBe('externalTrafficPolicy Local: 1 of 3 Nodes drop the external traffic for want of a local endpoint (node-c)');
    expect(finding?.evidence).toEqual([
      'spec.externalTrafficPolicy: Local',
      'NodePort 30080/TCP: dropped on node-c DROP (shop/edge:http has no local endpoints)',
      'Nodes that deliver it: node-a, node-b',
    ]);
    expect(finding?.command).toBe('kubesvc trace -f dump.yaml --all-nodes --node-port --to :30080');
  });

  it('externalTrafficPolicy Cluster: every Node forwards, no finding', () => {
    expect(reportOf([...NODES, edge({ type: 'NodePort' }), ...EDGE_PODS, EDGE_ENDPOINTS]).findings).toEqual([]);
  });

  it('a LoadBalancer with Local policy: its ingress IP is dropped on the same Nodes', () => {
    const lb = { ...edge({ type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 32000 }), status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } } } as KubeObject;
    const finding = reportOf([...NODES, lb, ...EDGE_PODS, EDGE_ENDPOINTS]).findings.find((f) => f.code === 'NoLocalEndpoints');
    expect(finding?.evidence).toContain('LoadBalancer 203.0.113.7:80/TCP: dropped on node-c DROP (shop/edge:http has no local endpoints)');
  });

  it('internalTrafficPolicy Local: the ClusterIP traffic of pods on Nodes without an endpoint is dropped; every Node: an error', () => {
    const onlyA = endpoints('shop', 'edge', [{ addresses: [{ ip: '10.244.1.1', nodeName: 'node-a' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }]);
    const report = reportOf([...NODES, edge({ internalTrafficPolicy: 'Local' }), EDGE_PODS[0] as KubeObject, onlyA]);
    const finding = report.findings.find((f) => f.code === 'NoLocalEndpoints');
    expect(finding?.summary).toBe('internalTrafficPolicy Local: 2 of 3 Nodes drop the in-cluster traffic for want of a local endpoint (node-b, node-c)');
    expect(finding?.command).toBe('kubesvc trace -f dump.yaml --all-nodes --to 10.96.1.40:80');
    const none = endpoints('shop', 'edge', []);
    const all = reportOf([...NODES, edge({ internalTrafficPolicy: 'Local' }), none]).findings.find((f) => f.code === 'NoLocalEndpoints');
    expect(all?.severity).toBe('error');
    expect(all?.evidence).toContain('no Node has a local endpoint');
  });
});

describe('ClusterIPNoPing', () => {
  it('only with --include-info, for a Service with a ClusterIP', () => {
    const objects = [...NODES, edge({}), ...EDGE_PODS, EDGE_ENDPOINTS, service('shop', 'db', { clusterIP: 'None', ports: [{ port: 5432 }] }), endpoints('shop', 'db', [])];
    expect(reportOf(objects).findings.filter((f) => f.code === 'ClusterIPNoPing')).toEqual([]);
    const info = reportOf(objects, { includeInfo: true }).findings.filter((f) => f.code === 'ClusterIPNoPing');
    expect(info.map((f) => `${f.service} ${f.severity} ${f.summary}`)).toEqual(["shop/edge info ping 10.96.1.40 gets no answer, by design: test the Service's ports instead"]);
    expect(info[0]?.command).toBe('kubesvc trace -f dump.yaml --proto icmp --to 10.96.1.40');
  });
});

describe('AffinityTimeoutShort', () => {
  it('ClientIP affinity under 60 seconds is a note; 60 and the default are not reported', () => {
    const at = (timeoutSeconds: number) =>
      reportOf([...NODES, edge({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds } } }), ...EDGE_PODS, EDGE_ENDPOINTS]).findings;
    expect(at(30).map((f) => `${f.severity} ${f.code} ${f.summary}`)).toEqual(['note AffinityTimeoutShort ClientIP session affinity lasts only 30s (default 10800s)']);
    expect(at(60)).toEqual([]);
    expect(at(10800)).toEqual([]);
  });
});

describe('NoLocalEndpoints: a Node kube-proxy cannot be configured for', () => {
  it('is named as not traced, and the other Nodes are still traced', () => {
    const bad = node('node-x', 'not-an-ip');
    const finding = reportOf([...NODES, bad, edge({ type: 'NodePort', externalTrafficPolicy: 'Local' }), ...EDGE_PODS, EDGE_ENDPOINTS]).findings.find((f) => f.code === 'NoLocalEndpoints');
    expect(finding?.evidence[1]).toBe('NodePort 30080/TCP: dropped on node-c DROP (shop/edge:http has no local endpoints)');
    expect(finding?.evidence[finding.evidence.length - 1]).toMatch(/^not traced: node-x \(.+\)$/);
  });
});

describe('NoLocalEndpoints: a dump without Nodes', () => {
  it('traces nothing and says so', () => {
    const report = reportOf([edge({ type: 'NodePort', externalTrafficPolicy: 'Local' }), ...EDGE_PODS, EDGE_ENDPOINTS]);
    expect(report.findings.filter((f) => f.code === 'NoLocalEndpoints')).toEqual([]);
    expect(report.notices).toEqual(['dump.yaml holds no Nodes: the Nodes that drop the traffic of a Local traffic policy were not traced (shop/edge)']);
  });
});
