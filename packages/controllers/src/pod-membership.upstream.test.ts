// Upstream's vectors for whether and how a pod is an endpoint, terminating pods among them:
// ShouldPodBeInEndpoints (the endpoints controller passes publishNotReadyAddresses as
// includeTerminating, the EndpointSlice controller true) and podToEndpoint's conditions.
// upstream (v1.33): staging/src/k8s.io/endpointslice/util/controller_utils_test.go
//           (TestShouldPodBeInEndpoints), staging/src/k8s.io/endpointslice/utils_test.go
//           (TestPodToEndpoint, newPod)
import type { Node, Pod, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { podToEndpoint } from './endpoint-slice-controller.js';
import { shouldPodBeInEndpoints } from './pod-membership.js';

const NOW = '2025-01-02T03:04:05Z';

function bare(phase: string, ips: { podIP?: string; podIPs?: { ip: string }[] }, restartPolicy?: string, deleting = false): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: deleting ? { deletionTimestamp: NOW } : {},
    spec: restartPolicy === undefined ? {} : { restartPolicy },
    status: { phase, ...ips },
  } as Pod;
}

const SHOULD_BE_IN_ENDPOINTS: readonly { name: string; pod: Pod; includeTerminating: boolean; expected: boolean }[] = [
  { name: 'Failed pod with Never RestartPolicy', pod: bare('Failed', { podIP: '1.2.3.4' }, 'Never'), includeTerminating: false, expected: false },
  { name: 'Succeeded pod with Never RestartPolicy', pod: bare('Succeeded', { podIP: '1.2.3.4' }, 'Never'), includeTerminating: false, expected: false },
  { name: 'Succeeded pod with OnFailure RestartPolicy', pod: bare('Succeeded', { podIP: '1.2.3.4' }, 'OnFailure'), includeTerminating: false, expected: false },
  { name: 'Empty Pod IPs, Running pod with OnFailure RestartPolicy', pod: bare('Running', { podIP: '', podIPs: [] }, 'Never'), includeTerminating: false, expected: false },
  { name: 'Terminating Pod with includeTerminating=false', pod: bare('Running', { podIP: '1.2.3.4' }, undefined, true), includeTerminating: false, expected: false },
  { name: 'Failed pod with Always RestartPolicy', pod: bare('Failed', { podIP: '1.2.3.4' }, 'Always'), includeTerminating: false, expected: false },
  { name: 'Pending pod with Never RestartPolicy', pod: bare('Pending', { podIP: '1.2.3.4' }, 'Never'), includeTerminating: false, expected: true },
  { name: 'Unknown pod with OnFailure RestartPolicy', pod: bare('Unknown', { podIP: '1.2.3.4' }, 'OnFailure'), includeTerminating: false, expected: true },
  { name: 'Running pod with Never RestartPolicy', pod: bare('Running', { podIP: '1.2.3.4' }, 'Never'), includeTerminating: false, expected: true },
  {
    name: 'Multiple Pod IPs, Running pod with OnFailure RestartPolicy',
    pod: bare('Running', { podIPs: [{ ip: '1.2.3.4' }, { ip: '1234::5678:0000:0000:9abc:def0' }] }, 'Never'),
    includeTerminating: false,
    expected: true,
  },
  { name: 'Terminating Pod with includeTerminating=true', pod: bare('Running', { podIP: '1.2.3.4' }, undefined, true), includeTerminating: true, expected: true },
];

describe('ShouldPodBeInEndpoints (upstream TestShouldPodBeInEndpoints)', () => {
  it.each(SHOULD_BE_IN_ENDPOINTS)('$name', ({ pod, includeTerminating, expected }) => {
    expect(shouldPodBeInEndpoints(pod, includeTerminating)).toBe(expected);
  });
});

/** upstream newPod(1, "test", ready, 1, terminating): pod1 on node-1 at 1.2.3.5. */
function newPod(ready: boolean, terminating: boolean, spec: Record<string, unknown> = {}, ips?: { ip: string }[]): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: 'test', name: 'pod1', labels: { foo: 'bar' }, resourceVersion: '1', ...(terminating ? { deletionTimestamp: NOW } : {}) },
    spec: { containers: [{ name: 'container-1' }], nodeName: 'node-1', ...spec },
    status: { podIP: '1.2.3.5', podIPs: ips ?? [{ ip: '1.2.3.5' }], conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  } as Pod;
}

function service(name: string, publishNotReadyAddresses = false): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'test' }, spec: { selector: { foo: 'bar' }, ports: [{ port: 80 }], ...(publishNotReadyAddresses ? { publishNotReadyAddresses } : {}) } };
}

const NODE1: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { 'topology.kubernetes.io/zone': 'us-central1-a', 'topology.kubernetes.io/region': 'us-central1' } } };
const SVC = service('foo');
const SVC_PUBLISH_NOT_READY = service('publishnotready', true);
const TARGET = { kind: 'Pod', namespace: 'test', name: 'pod1', uid: '' };

const POD_TO_ENDPOINT: readonly {
  name: string;
  pod: Pod;
  node?: Node;
  svc: Service;
  expected: { ready: boolean; serving: boolean; terminating: boolean; addresses?: string[]; zone?: string; hostname?: string };
}[] = [
  { name: 'Ready pod', pod: newPod(true, false), svc: SVC, expected: { ready: true, serving: true, terminating: false } },
  { name: 'Ready pod + publishNotReadyAddresses', pod: newPod(true, false), svc: SVC_PUBLISH_NOT_READY, expected: { ready: true, serving: true, terminating: false } },
  { name: 'Unready pod', pod: newPod(false, false), svc: SVC, expected: { ready: false, serving: false, terminating: false } },
  { name: 'Unready pod + publishNotReadyAddresses', pod: newPod(false, false), svc: SVC_PUBLISH_NOT_READY, expected: { ready: true, serving: false, terminating: false } },
  { name: 'Ready pod + node labels', pod: newPod(true, false), node: NODE1, svc: SVC, expected: { ready: true, serving: true, terminating: false, zone: 'us-central1-a' } },
  {
    name: 'Multi IP Ready pod + node labels',
    pod: newPod(true, false, {}, [{ ip: '1.2.3.4' }, { ip: '1234::5678:0000:0000:9abc:def0' }]),
    node: NODE1,
    svc: SVC,
    expected: { ready: true, serving: true, terminating: false, addresses: ['1.2.3.4'], zone: 'us-central1-a' },
  },
  {
    name: 'Ready pod + hostname',
    pod: newPod(true, false, { subdomain: 'foo', hostname: 'example-hostname' }),
    node: NODE1,
    svc: SVC,
    expected: { ready: true, serving: true, terminating: false, zone: 'us-central1-a', hostname: 'example-hostname' },
  },
  { name: 'Ready terminating pod', pod: newPod(true, true), svc: SVC, expected: { ready: false, serving: true, terminating: true } },
  { name: 'Not ready terminating pod', pod: newPod(false, true), svc: SVC, expected: { ready: false, serving: false, terminating: true } },
];

describe('podToEndpoint (upstream TestPodToEndpoint)', () => {
  it.each(POD_TO_ENDPOINT)('$name', ({ pod, node, svc, expected }) => {
    const { ready, serving, terminating, addresses = ['1.2.3.5'], zone, hostname } = expected;
    expect(podToEndpoint(pod, node, svc, 'IPv4')).toEqual({
      addresses,
      conditions: { ready, serving, terminating },
      ...(hostname === undefined ? {} : { hostname }),
      targetRef: TARGET,
      nodeName: 'node-1',
      ...(zone === undefined ? {} : { zone }),
    });
  });
});
