// CategorizeEndpoints' vectors. upstream: pkg/proxy/topology_test.go (TestCategorizeEndpoints)
// at kubernetes/kubernetes 6c039d9075ef18d200bb0ba7dbdb362f4d0deef0, the newest version stored
// here (zone hints only; v1.33's file adds node-hint cases, which are not stored: the cases
// under "node hints (v1.33 topology.go)" below are ours, read off topologyModeFromHints).
// The service ports are BaseServicePortInfo's fields as each case sets them. Upstream compares
// the lists as sets and tells nil ("not used") from empty; this model returns [] for both.
import { LABEL_TOPOLOGY_ZONE } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { endpointInfo, type EndpointHints, type EndpointInfo } from './endpoints.js';
import type { ServicePortInfo } from './service-ports.js';
import { categorizeEndpoints, nodeTopology } from './topology.js';

interface Ep {
  readonly endpoint: string;
  readonly zoneHints?: readonly string[];
  readonly nodeHints?: readonly string[];
  readonly ready?: boolean;
  readonly serving?: boolean;
  readonly terminating?: boolean;
  readonly isLocal?: boolean;
}

interface Port {
  readonly internalPolicyLocal?: boolean;
  readonly externalPolicyLocal?: boolean;
  readonly nodePort?: number;
}

interface Case {
  readonly name: string;
  readonly nodeName?: string;
  readonly nodeLabels?: Readonly<Record<string, string>>;
  readonly preferSameEnabled?: boolean;
  readonly serviceInfo: Port;
  readonly endpoints: readonly Ep[];
  /** undefined: the service does not use this kind (upstream's nil). */
  readonly clusterEndpoints: readonly string[] | undefined;
  readonly localEndpoints: readonly string[] | undefined;
  /** Needed when both lists are given. */
  readonly allEndpoints?: readonly string[];
  readonly onlyRemoteEndpoints?: boolean;
}

const zoneA = { [LABEL_TOPOLOGY_ZONE]: 'zone-a' };

const UPSTREAM_CASES: readonly Case[] = [
  {
    name: "should use topology since all endpoints have hints, node has a zone label and and there are endpoints for the node's zone",
    nodeLabels: zoneA,
    serviceInfo: {},
    endpoints: [
      { endpoint: '10.1.2.3:80', zoneHints: ['zone-a'], ready: true },
      { endpoint: '10.1.2.4:80', zoneHints: ['zone-b'], ready: true },
      { endpoint: '10.1.2.5:80', zoneHints: ['zone-c'], ready: true },
      { endpoint: '10.1.2.6:80', zoneHints: ['zone-a'], ready: true },
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.6:80'],
    localEndpoints: undefined,
  },
  {
    name: 'externalTrafficPolicy: Local, topology ignored for Local endpoints',
    nodeLabels: zoneA,
    serviceInfo: { externalPolicyLocal: true, nodePort: 8080 },
    endpoints: [
      { endpoint: '10.1.2.3:80', zoneHints: ['zone-a'], ready: true, isLocal: true },
      { endpoint: '10.1.2.4:80', zoneHints: ['zone-b'], ready: true, isLocal: true },
      { endpoint: '10.1.2.5:80', zoneHints: ['zone-c'], ready: true },
      { endpoint: '10.1.2.6:80', zoneHints: ['zone-a'], ready: true },
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.6:80'],
    localEndpoints: ['10.1.2.3:80', '10.1.2.4:80'],
    allEndpoints: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'],
  },
  {
    name: 'internalTrafficPolicy: Local, topology ignored for Local endpoints',
    nodeLabels: zoneA,
    serviceInfo: { internalPolicyLocal: true, externalPolicyLocal: false, nodePort: 8080 },
    endpoints: [
      { endpoint: '10.1.2.3:80', zoneHints: ['zone-a'], ready: true, isLocal: true },
      { endpoint: '10.1.2.4:80', zoneHints: ['zone-b'], ready: true, isLocal: true },
      { endpoint: '10.1.2.5:80', zoneHints: ['zone-c'], ready: true },
      { endpoint: '10.1.2.6:80', zoneHints: ['zone-a'], ready: true },
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.6:80'],
    localEndpoints: ['10.1.2.3:80', '10.1.2.4:80'],
    allEndpoints: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'],
  },
  {
    name: 'empty node labels',
    nodeLabels: {},
    serviceInfo: {},
    endpoints: [{ endpoint: '10.1.2.3:80', zoneHints: ['zone-a'], ready: true }],
    clusterEndpoints: ['10.1.2.3:80'],
    localEndpoints: undefined,
  },
  {
    name: 'empty zone label',
    nodeLabels: { [LABEL_TOPOLOGY_ZONE]: '' },
    serviceInfo: {},
    endpoints: [{ endpoint: '10.1.2.3:80', zoneHints: ['zone-a'], ready: true }],
    clusterEndpoints: ['10.1.2.3:80'],
    localEndpoints: undefined,
  },
  {
    name: 'node in different zone, no endpoint filtering',
    nodeLabels: { [LABEL_TOPOLOGY_ZONE]: 'zone-b' },
    serviceInfo: {},
    endpoints: [{ endpoint: '10.1.2.3:80', zoneHints: ['zone-a'], ready: true }],
    clusterEndpoints: ['10.1.2.3:80'],
    localEndpoints: undefined,
  },
  {
    name: 'unready endpoint',
    nodeLabels: zoneA,
    serviceInfo: {},
    endpoints: [
      { endpoint: '10.1.2.3:80', zoneHints: ['zone-a'], ready: true },
      { endpoint: '10.1.2.4:80', zoneHints: ['zone-b'], ready: true },
      { endpoint: '10.1.2.5:80', zoneHints: ['zone-c'], ready: true },
      { endpoint: '10.1.2.6:80', zoneHints: ['zone-a'], ready: false },
    ],
    clusterEndpoints: ['10.1.2.3:80'],
    localEndpoints: undefined,
  },
  {
    name: 'only unready endpoints in same zone (should not filter)',
    nodeLabels: zoneA,
    serviceInfo: {},
    endpoints: [
      { endpoint: '10.1.2.3:80', zoneHints: ['zone-a'], ready: false },
      { endpoint: '10.1.2.4:80', zoneHints: ['zone-b'], ready: true },
      { endpoint: '10.1.2.5:80', zoneHints: ['zone-c'], ready: true },
      { endpoint: '10.1.2.6:80', zoneHints: ['zone-a'], ready: false },
    ],
    clusterEndpoints: ['10.1.2.4:80', '10.1.2.5:80'],
    localEndpoints: undefined,
  },
  {
    name: 'missing hints, no filtering applied',
    nodeLabels: zoneA,
    serviceInfo: {},
    endpoints: [
      { endpoint: '10.1.2.3:80', zoneHints: ['zone-a'], ready: true },
      { endpoint: '10.1.2.4:80', zoneHints: ['zone-b'], ready: true },
      { endpoint: '10.1.2.5:80', ready: true },
      { endpoint: '10.1.2.6:80', zoneHints: ['zone-a'], ready: true },
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.5:80', '10.1.2.6:80'],
    localEndpoints: undefined,
  },
  {
    name: 'multiple hints per endpoint, filtering includes any endpoint with zone included',
    nodeLabels: { [LABEL_TOPOLOGY_ZONE]: 'zone-c' },
    serviceInfo: {},
    endpoints: [
      { endpoint: '10.1.2.3:80', zoneHints: ['zone-a', 'zone-b', 'zone-c'], ready: true },
      { endpoint: '10.1.2.4:80', zoneHints: ['zone-b', 'zone-c'], ready: true },
      { endpoint: '10.1.2.5:80', zoneHints: ['zone-b', 'zone-d'], ready: true },
      { endpoint: '10.1.2.6:80', zoneHints: ['zone-c'], ready: true },
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'],
    localEndpoints: undefined,
  },
  {
    name: 'conflicting topology and localness require merging allEndpoints',
    nodeLabels: zoneA,
    serviceInfo: { internalPolicyLocal: false, externalPolicyLocal: true, nodePort: 8080 },
    endpoints: [
      { endpoint: '10.0.0.0:80', zoneHints: ['zone-a'], ready: true, isLocal: true },
      { endpoint: '10.0.0.1:80', zoneHints: ['zone-b'], ready: true, isLocal: true },
      { endpoint: '10.0.0.2:80', zoneHints: ['zone-a'], ready: true, isLocal: false },
      { endpoint: '10.0.0.3:80', zoneHints: ['zone-b'], ready: true, isLocal: false },
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.2:80'],
    localEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    allEndpoints: ['10.0.0.0:80', '10.0.0.1:80', '10.0.0.2:80'],
  },
  {
    name: 'internalTrafficPolicy: Local, with empty endpoints',
    serviceInfo: { internalPolicyLocal: true },
    endpoints: [],
    clusterEndpoints: undefined,
    localEndpoints: [],
  },
  {
    name: 'internalTrafficPolicy: Local, but all endpoints are remote',
    serviceInfo: { internalPolicyLocal: true },
    endpoints: [
      { endpoint: '10.0.0.0:80', ready: true, isLocal: false },
      { endpoint: '10.0.0.1:80', ready: true, isLocal: false },
    ],
    clusterEndpoints: undefined,
    localEndpoints: [],
    onlyRemoteEndpoints: true,
  },
  {
    name: 'internalTrafficPolicy: Local, all endpoints are local',
    serviceInfo: { internalPolicyLocal: true },
    endpoints: [
      { endpoint: '10.0.0.0:80', ready: true, isLocal: true },
      { endpoint: '10.0.0.1:80', ready: true, isLocal: true },
    ],
    clusterEndpoints: undefined,
    localEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'internalTrafficPolicy: Local, some endpoints are local',
    serviceInfo: { internalPolicyLocal: true },
    endpoints: [
      { endpoint: '10.0.0.0:80', ready: true, isLocal: true },
      { endpoint: '10.0.0.1:80', ready: true, isLocal: false },
    ],
    clusterEndpoints: undefined,
    localEndpoints: ['10.0.0.0:80'],
  },
  {
    name: 'Cluster traffic policy, endpoints not Ready',
    serviceInfo: {},
    endpoints: [
      { endpoint: '10.0.0.0:80', ready: false },
      { endpoint: '10.0.0.1:80', ready: false },
    ],
    clusterEndpoints: [],
    localEndpoints: undefined,
  },
  {
    name: 'Cluster traffic policy, some endpoints are Ready',
    serviceInfo: {},
    endpoints: [
      { endpoint: '10.0.0.0:80', ready: false },
      { endpoint: '10.0.0.1:80', ready: true },
    ],
    clusterEndpoints: ['10.0.0.1:80'],
    localEndpoints: undefined,
  },
  {
    name: 'Cluster traffic policy, all endpoints are terminating',
    serviceInfo: {},
    endpoints: [
      { endpoint: '10.0.0.0:80', ready: false, serving: true, terminating: true, isLocal: true },
      { endpoint: '10.0.0.1:80', ready: false, serving: true, terminating: true, isLocal: false },
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    localEndpoints: undefined,
  },
  {
    name: 'iTP: Local, eTP: Cluster, some endpoints local',
    serviceInfo: { internalPolicyLocal: true, externalPolicyLocal: false, nodePort: 8080 },
    endpoints: [
      { endpoint: '10.0.0.0:80', ready: true, isLocal: true },
      { endpoint: '10.0.0.1:80', ready: true, isLocal: false },
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    localEndpoints: ['10.0.0.0:80'],
    allEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Cluster, eTP: Local, some endpoints local',
    serviceInfo: { internalPolicyLocal: false, externalPolicyLocal: true, nodePort: 8080 },
    endpoints: [
      { endpoint: '10.0.0.0:80', ready: true, isLocal: true },
      { endpoint: '10.0.0.1:80', ready: true, isLocal: false },
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    localEndpoints: ['10.0.0.0:80'],
    allEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Local, eTP: Local, some endpoints local',
    serviceInfo: { internalPolicyLocal: true, externalPolicyLocal: true, nodePort: 8080 },
    endpoints: [
      { endpoint: '10.0.0.0:80', ready: true, isLocal: true },
      { endpoint: '10.0.0.1:80', ready: true, isLocal: false },
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    localEndpoints: ['10.0.0.0:80'],
    allEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Local, eTP: Local, all endpoints remote',
    serviceInfo: { internalPolicyLocal: true, externalPolicyLocal: true, nodePort: 8080 },
    endpoints: [
      { endpoint: '10.0.0.0:80', ready: true, isLocal: false },
      { endpoint: '10.0.0.1:80', ready: true, isLocal: false },
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    localEndpoints: [],
    allEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Local, eTP: Local, all endpoints remote and terminating',
    serviceInfo: { internalPolicyLocal: true, externalPolicyLocal: true, nodePort: 8080 },
    endpoints: [
      { endpoint: '10.0.0.0:80', ready: false, serving: true, terminating: true, isLocal: false },
      { endpoint: '10.0.0.1:80', ready: false, serving: true, terminating: true, isLocal: false },
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    localEndpoints: [],
    allEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    onlyRemoteEndpoints: true,
  },
  {
    name: 'iTP: Cluster, eTP: Local, with terminating endpoints',
    serviceInfo: { internalPolicyLocal: false, externalPolicyLocal: true, nodePort: 8080 },
    endpoints: [
      { endpoint: '10.0.0.0:80', ready: true, isLocal: false },
      { endpoint: '10.0.0.1:80', ready: false, serving: false, isLocal: true },
      { endpoint: '10.0.0.2:80', ready: false, serving: true, terminating: true, isLocal: true },
      { endpoint: '10.0.0.3:80', ready: false, serving: true, terminating: true, isLocal: false },
    ],
    clusterEndpoints: ['10.0.0.0:80'],
    localEndpoints: ['10.0.0.2:80'],
    allEndpoints: ['10.0.0.0:80', '10.0.0.2:80'],
  },
  {
    name: 'externalTrafficPolicy ignored if not externally accessible',
    serviceInfo: { externalPolicyLocal: true },
    endpoints: [
      { endpoint: '10.0.0.0:80', ready: true, isLocal: false },
      { endpoint: '10.0.0.1:80', ready: true, isLocal: true },
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    localEndpoints: undefined,
    allEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'no cluster endpoints for iTP:Local internal-only service',
    serviceInfo: { internalPolicyLocal: true },
    endpoints: [
      { endpoint: '10.0.0.0:80', ready: true, isLocal: false },
      { endpoint: '10.0.0.1:80', ready: true, isLocal: true },
    ],
    clusterEndpoints: undefined,
    localEndpoints: ['10.0.0.1:80'],
    allEndpoints: ['10.0.0.1:80'],
  },
];

// Ours: the node-hint branch of v1.33's topologyModeFromHints, and the fallback from it to zone hints.
const NODE_HINT_CASES: readonly Case[] = [
  {
    name: 'PreferSameTrafficDistribution on, every ready endpoint has node hints, some for this node: only those',
    nodeName: 'node-1',
    nodeLabels: zoneA,
    preferSameEnabled: true,
    serviceInfo: {},
    endpoints: [
      { endpoint: '10.1.2.3:80', nodeHints: ['node-1'], zoneHints: ['zone-a'], ready: true },
      { endpoint: '10.1.2.4:80', nodeHints: ['node-2'], zoneHints: ['zone-a'], ready: true },
      { endpoint: '10.1.2.5:80', nodeHints: ['node-3'], zoneHints: ['zone-b'], ready: true },
    ],
    clusterEndpoints: ['10.1.2.3:80'],
    localEndpoints: undefined,
  },
  {
    name: 'PreferSameTrafficDistribution off: node hints are not looked at, zone hints are',
    nodeName: 'node-1',
    nodeLabels: zoneA,
    serviceInfo: {},
    endpoints: [
      { endpoint: '10.1.2.3:80', nodeHints: ['node-1'], zoneHints: ['zone-a'], ready: true },
      { endpoint: '10.1.2.4:80', nodeHints: ['node-2'], zoneHints: ['zone-a'], ready: true },
      { endpoint: '10.1.2.5:80', nodeHints: ['node-3'], zoneHints: ['zone-b'], ready: true },
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.4:80'],
    localEndpoints: undefined,
  },
  {
    name: 'no endpoint hinted for this node: zone hints',
    nodeName: 'node-9',
    nodeLabels: zoneA,
    preferSameEnabled: true,
    serviceInfo: {},
    endpoints: [
      { endpoint: '10.1.2.3:80', nodeHints: ['node-1'], zoneHints: ['zone-a'], ready: true },
      { endpoint: '10.1.2.4:80', nodeHints: ['node-2'], zoneHints: ['zone-b'], ready: true },
    ],
    clusterEndpoints: ['10.1.2.3:80'],
    localEndpoints: undefined,
  },
  {
    name: 'a ready endpoint without a node hint: zone hints',
    nodeName: 'node-1',
    nodeLabels: zoneA,
    preferSameEnabled: true,
    serviceInfo: {},
    endpoints: [
      { endpoint: '10.1.2.3:80', nodeHints: ['node-1'], zoneHints: ['zone-b'], ready: true },
      { endpoint: '10.1.2.4:80', zoneHints: ['zone-a'], ready: true },
    ],
    clusterEndpoints: ['10.1.2.4:80'],
    localEndpoints: undefined,
  },
  {
    name: 'node hints without zone hints, node not hinted: no filtering',
    nodeName: 'node-9',
    nodeLabels: zoneA,
    preferSameEnabled: true,
    serviceInfo: {},
    endpoints: [
      { endpoint: '10.1.2.3:80', nodeHints: ['node-1'], ready: true },
      { endpoint: '10.1.2.4:80', nodeHints: ['node-2'], ready: true },
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.4:80'],
    localEndpoints: undefined,
  },
  {
    name: 'an unready endpoint without hints does not stop node hints',
    nodeName: 'node-2',
    preferSameEnabled: true,
    serviceInfo: {},
    endpoints: [
      { endpoint: '10.1.2.3:80', nodeHints: ['node-1'], ready: true },
      { endpoint: '10.1.2.4:80', nodeHints: ['node-2'], ready: true },
      { endpoint: '10.1.2.5:80', ready: false },
    ],
    clusterEndpoints: ['10.1.2.4:80'],
    localEndpoints: undefined,
  },
  {
    name: 'node hints and eTP Local: the local terminating endpoint and this node\'s are merged',
    nodeName: 'node-1',
    preferSameEnabled: true,
    serviceInfo: { externalPolicyLocal: true, nodePort: 30080 },
    endpoints: [
      { endpoint: '10.0.0.1:80', nodeHints: ['node-1'], ready: true },
      { endpoint: '10.0.0.2:80', nodeHints: ['node-2'], ready: true },
      { endpoint: '10.0.0.3:80', ready: false, serving: true, terminating: true, isLocal: true },
    ],
    clusterEndpoints: ['10.0.0.1:80'],
    localEndpoints: ['10.0.0.3:80'],
    allEndpoints: ['10.0.0.1:80', '10.0.0.3:80'],
  },
];

function servicePort(port: Port): ServicePortInfo {
  return {
    namespace: 'ns',
    name: 'svc',
    portName: '',
    nameString: 'ns/svc',
    protocol: 'tcp',
    clusterIP: '172.30.0.1',
    port: 80,
    nodePort: port.nodePort ?? 0,
    externalIPs: [],
    loadBalancerVIPs: [],
    loadBalancerSourceRanges: [],
    healthCheckNodePort: 0,
    clientIPAffinity: false,
    stickyMaxAgeSeconds: 0,
    externalPolicyLocal: port.externalPolicyLocal ?? false,
    internalPolicyLocal: port.internalPolicyLocal ?? false,
    chains: undefined,
  };
}

function endpoint(ep: Ep): EndpointInfo {
  const [ip = '', port = '0'] = ep.endpoint.split(':');
  const hints: EndpointHints | undefined =
    ep.zoneHints === undefined && ep.nodeHints === undefined ? undefined : { zones: ep.zoneHints ?? [], nodes: ep.nodeHints ?? [] };
  return endpointInfo(ip, Number(port), ep.isLocal ?? false, ep.ready ?? false, ep.serving ?? false, ep.terminating ?? false, hints);
}

const texts = (list: readonly EndpointInfo[]): string[] => list.map((ep) => ep.hostPort).sort();

describe.each([
  ['TestCategorizeEndpoints', UPSTREAM_CASES],
  ['node hints (v1.33 topology.go)', NODE_HINT_CASES],
])('%s', (_, cases) => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, tc) => {
    const topology = nodeTopology(tc.nodeName ?? 'test-node', tc.nodeLabels ?? {}, tc.preferSameEnabled ?? false);
    const got = categorizeEndpoints(tc.endpoints.map(endpoint), servicePort(tc.serviceInfo), topology);
    expect(texts(got.clusterEndpoints)).toEqual([...(tc.clusterEndpoints ?? [])].sort());
    expect(texts(got.localEndpoints)).toEqual([...(tc.localEndpoints ?? [])].sort());
    let expectedAll: readonly string[] | undefined;
    if (tc.clusterEndpoints !== undefined && tc.localEndpoints === undefined) expectedAll = tc.clusterEndpoints;
    else if (tc.localEndpoints !== undefined && tc.clusterEndpoints === undefined) expectedAll = tc.localEndpoints;
    else expectedAll = tc.allEndpoints;
    expect(texts(got.allReachableEndpoints)).toEqual([...(expectedAll ?? [])].sort());
    expect(got.hasAnyEndpoints).toBe((expectedAll ?? []).length > 0 || tc.onlyRemoteEndpoints === true);
  });
});
