// The doctor's EndpointsDisagree on small hand-written dumps: stale Endpoints, stale and
// hand-written EndpointSlices, and a Service without a selector that has no endpoints.
import type { KubeObject } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { endpoints, node, pod, reportOf, service } from './doctor.fixtures.js';

const NODES = [node('node-a', '192.168.10.1'), node('node-b', '192.168.10.2')];
const WEB = service('shop', 'web', { clusterIP: '10.96.1.10', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] });
const PODS = [
  pod('shop', 'web-1', { labels: { app: 'web' }, ip: '10.244.1.1', node: 'node-a', ports: [{ containerPort: 8080 }] }),
  pod('shop', 'web-2', { labels: { app: 'web' }, ip: '10.244.2.1', node: 'node-b', ports: [{ containerPort: 8080 }], ready: false }),
];

function slice(name: string, managedBy: string | undefined, eps: readonly { ip: string; ready: boolean }[]): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      namespace: 'shop',
      name,
      labels: { 'kubernetes.io/service-name': 'web', ...(managedBy !== undefined ? { 'endpointslice.kubernetes.io/managed-by': managedBy } : {}) },
    },
    addressType: 'IPv4',
    endpoints: eps.map((e) => ({ addresses: [e.ip], conditions: { ready: e.ready, serving: e.ready, terminating: false } })),
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  } as KubeObject;
}

const disagree = (objects: readonly KubeObject[]) => reportOf(objects).findings.filter((f) => f.code === 'EndpointsDisagree');

describe('EndpointsDisagree', () => {
  it('no finding when the Endpoints and slices are what the controllers write', () => {
    const objects = [
      ...NODES,
      WEB,
      ...PODS,
      endpoints('shop', 'web', [
        { addresses: [{ ip: '10.244.1.1', nodeName: 'node-a' }], notReadyAddresses: [{ ip: '10.244.2.1', nodeName: 'node-b' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] },
      ]),
      slice('web-abcde', 'endpointslice-controller.k8s.io', [
        { ip: '10.244.1.1', ready: true },
        { ip: '10.244.2.1', ready: false },
      ]),
    ];
    expect(disagree(objects)).toEqual([]);
  });

  it('stale Endpoints: an address of a gone pod, a ready pod missing', () => {
    const found = disagree([
      ...NODES,
      WEB,
      ...PODS,
      endpoints('shop', 'web', [{ addresses: [{ ip: '10.244.1.99' }], notReadyAddresses: [{ ip: '10.244.2.1' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }]),
    ]);
    expect(found.map((f) => f.severity)).toEqual(['warning']);
    expect(found[0]?.evidence).toEqual([
      'Endpoints in the input, not computed: 10.244.1.99 8080/TCP (http) ready',
      'Endpoints computed, not in the input: 10.244.1.1 8080/TCP (http) ready',
    ]);
  });

  it('a hand-written slice for a selector Service, and the controller\'s slice missing', () => {
    const found = disagree([...NODES, WEB, ...PODS, slice('web-manual', undefined, [{ ip: '10.244.9.9', ready: true }])]);
    expect(found[0]?.evidence).toEqual([
      'EndpointSlice in the input, not computed: 10.244.9.9 8080/TCP (http) ready',
      'EndpointSlice computed, not in the input: 10.244.1.1 8080/TCP (http) ready',
      'EndpointSlice computed, not in the input: 10.244.2.1 8080/TCP (http) not ready',
      'EndpointSlices not managed by endpointslice-controller.k8s.io (kube-proxy reads them too): web-manual (managed-by none)',
    ]);
  });

  it('a dump without Nodes: the pods are not left out of the computed slices', () => {
    const found = disagree([
      WEB,
      ...PODS,
      slice('web-abcde', 'endpointslice-controller.k8s.io', [
        { ip: '10.244.1.1', ready: true },
        { ip: '10.244.2.1', ready: false },
      ]),
    ]);
    expect(found).toEqual([]);
  });

  it('a Service without a selector and without Endpoints or slices is an error', () => {
    const legacy = service('shop', 'legacy', { clusterIP: '10.96.1.50', ports: [{ port: 5432 }] });
    const found = disagree([...NODES, legacy, ...PODS, endpoints('shop', 'web', [])]);
    expect(found.map((f) => `${f.service} ${f.severity}`)).toEqual(['shop/legacy error']);
    expect(found[0]?.summary).toBe('the Service has no selector and no Endpoints or EndpointSlices: it has no endpoints');
    // With hand-written Endpoints, nothing to say.
    expect(disagree([...NODES, legacy, ...PODS, endpoints('shop', 'legacy', [{ addresses: [{ ip: '192.168.0.5' }], ports: [{ port: 5432 }] }])])).toEqual([]);
  });
});
