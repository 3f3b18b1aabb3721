// Row cells of each printer. Expected values follow upstream's printers and the cases of
// pkg/printers/internalversion/printers_test.go (TestPrintServiceLoadBalancer, TestPrintPod,
// TestPrintPodwide, TestPrintNodeStatus, TestPrintNodeRole, TestPrintEndpointSlice, ...);
// the server prints wide, so every row also has its priority-1 cells.
import type { Endpoints, EndpointSlice, Event, Namespace, Pod, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { endpointSlicePrinter } from './endpoint-slice-printer.js';
import { endpointsPrinter } from './endpoints-printer.js';
import { eventPrinter } from './event-printer.js';
import { namespacePrinter } from './namespace-printer.js';
import { nodePrinter, type NodeObject } from './node-printer.js';
import { podPrinter } from './pod-printer.js';
import { servicePrinter } from './service-printer.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const ago = (ms: number): string => new Date(NOW - ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const S = 1000;
const M = 60 * S;
const H = 60 * M;

function svc(name: string, spec: NonNullable<Service['spec']>, status?: Service['status']): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec, ...(status === undefined ? {} : { status }) };
}

describe('services', () => {
  it('has upstream\'s columns, SELECTOR only under -o wide', () => {
    expect(servicePrinter.columns.map((c) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['Type', 'string', 0],
      ['Cluster-IP', 'string', 0],
      ['External-IP', 'string', 0],
      ['Port(s)', 'string', 0],
      ['Age', 'string', 0],
      ['Selector', 'string', 1],
    ]);
    expect(servicePrinter.columns[0]?.format).toBe('name');
  });

  it('prints the kubernetes Service as a cluster shows it', () => {
    const s: Service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kubernetes', namespace: 'default', creationTimestamp: ago(5 * M) },
      spec: { type: 'ClusterIP', clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }] },
    };
    expect(servicePrinter.cells(s, NOW)).toEqual(['kubernetes', 'ClusterIP', '10.96.0.1', '<none>', '443/TCP', '5m', '<none>']);
  });

  it('joins load balancer ingress IPs, sorted, and does not clip them (the server prints wide)', () => {
    const s = svc('service4', { clusterIPs: ['1.5.6.7'], type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }, { port: 8090, protocol: 'UDP' }, { port: 8000, protocol: 'TCP' }], selector: { foo: 'bar' } }, {
      loadBalancer: { ingress: [{ ip: '3.4.5.6' }, { ip: '2.3.4.5' }, { ip: '5.6.7.8', hostname: 'host5678' }] },
    });
    expect(servicePrinter.cells(s, NOW)).toEqual(['service4', 'LoadBalancer', '1.5.6.7', '2.3.4.5,3.4.5.6,5.6.7.8', '80/TCP,8090/UDP,8000/TCP', '<unknown>', 'foo=bar']);
  });

  it('shows <pending> for a LoadBalancer without ingress, and puts ingress before external IPs', () => {
    const pending = svc('service2', { clusterIPs: ['1.3.4.5'], type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP' }, { port: 7777, protocol: 'SCTP' }] });
    expect(servicePrinter.cells(pending, NOW)[3]).toBe('<pending>');
    const both = svc('lb', { clusterIPs: ['1.3.4.5'], type: 'LoadBalancer', externalIPs: ['9.9.9.9'] }, { loadBalancer: { ingress: [{ hostname: 'lb.example.com' }] } });
    expect(servicePrinter.cells(both, NOW)[3]).toBe('lb.example.com,9.9.9.9');
    const onlyExternal = svc('lb2', { clusterIPs: ['1.3.4.5'], type: 'LoadBalancer', externalIPs: ['9.9.9.9', '8.8.8.8'] });
    expect(servicePrinter.cells(onlyExternal, NOW)[3]).toBe('9.9.9.9,8.8.8.8');
  });

  it('prints node ports as port:nodePort/protocol, and <none> for no ports', () => {
    const np = svc('np', { type: 'NodePort', clusterIPs: ['10.96.0.20'], externalIPs: ['1.2.3.4', '5.6.7.8'], ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }] });
    expect(servicePrinter.cells(np, NOW).slice(1, 5)).toEqual(['NodePort', '10.96.0.20', '1.2.3.4,5.6.7.8', '80:30080/TCP,53/UDP']);
    const headless = svc('headless', { type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'], selector: { b: '2', a: '1' } });
    expect(servicePrinter.cells(headless, NOW)).toEqual(['headless', 'ClusterIP', 'None', '<none>', '<none>', '<unknown>', 'a=1,b=2']);
  });

  it('prints the external name of an ExternalName Service, and <unknown> for an unknown type', () => {
    const en = svc('en', { type: 'ExternalName', externalName: 'db.example.com' });
    expect(servicePrinter.cells(en, NOW).slice(1, 4)).toEqual(['ExternalName', '<none>', 'db.example.com']);
    const odd = svc('odd', { type: 'Foo', clusterIPs: ['10.0.0.1'] });
    expect(servicePrinter.cells(odd, NOW)[3]).toBe('<unknown>');
  });
});

describe('endpoints', () => {
  const ep = (subsets: Endpoints['subsets']): Endpoints => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', creationTimestamp: ago(90 * S) }, ...(subsets === undefined ? {} : { subsets }) });

  it('prints <none> without subsets', () => {
    expect(endpointsPrinter.cells(ep(undefined), NOW)).toEqual(['web', '<none>', '90s']);
    expect(endpointsPrinter.cells(ep([]), NOW)[1]).toBe('<none>');
  });

  it('prints ip:port for each ready address and port, and bare IPs for a subset without ports', () => {
    expect(endpointsPrinter.cells(ep([{ addresses: [{ ip: '10.244.0.5' }, { ip: '10.244.1.7' }], ports: [{ port: 8080 }] }]), NOW)[1]).toBe('10.244.0.5:8080,10.244.1.7:8080');
    expect(endpointsPrinter.cells(ep([{ addresses: [{ ip: '10.244.0.5' }] }]), NOW)[1]).toBe('10.244.0.5');
    expect(endpointsPrinter.cells(ep([{ addresses: [{ ip: 'fd00::5' }], ports: [{ port: 80 }] }]), NOW)[1]).toBe('[fd00::5]:80');
  });

  it('shows three and counts the rest: + N more...', () => {
    const subsets = [{ addresses: [{ ip: '1.1.1.1' }, { ip: '2.2.2.2' }], ports: [{ port: 80 }, { port: 443 }] }, { addresses: [{ ip: '3.3.3.3' }] }];
    // 2 addresses x 2 ports + 1 bare address = 5 endpoints, 3 shown.
    expect(endpointsPrinter.cells(ep(subsets), NOW)[1]).toBe('1.1.1.1:80,2.2.2.2:80,1.1.1.1:443 + 2 more...');
  });

  it('leaves the cell empty when subsets hold only not-ready addresses', () => {
    expect(endpointsPrinter.cells(ep([{ notReadyAddresses: [{ ip: '1.1.1.1' }], ports: [{ port: 80 }] }]), NOW)[1]).toBe('');
  });
});

describe('endpointslices', () => {
  const slice = (endpoints: EndpointSlice['endpoints'], ports: EndpointSlice['ports']): EndpointSlice => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'web-abc12', creationTimestamp: ago(3 * H + 5 * M) },
    addressType: 'IPv4',
    endpoints,
    ports,
  });

  it('prints ports and addresses, <unset> when empty', () => {
    expect(endpointSlicePrinter.cells(slice([{ addresses: ['10.1.2.3'] }, { addresses: ['2001:db8::1234:5678'] }], [{ port: 80, protocol: 'TCP' }, { name: 'http' }, {}]), NOW)).toEqual([
      'web-abc12',
      'IPv4',
      '80,http,*',
      '10.1.2.3,2001:db8::1234:5678',
      '3h5m',
    ]);
    expect(endpointSlicePrinter.cells(slice(null, null), NOW).slice(2, 4)).toEqual(['<unset>', '<unset>']);
  });

  it('counts every address beyond three, not-ready ones included', () => {
    const endpoints = [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3'], conditions: { ready: false } }, { addresses: ['10.0.0.4'] }, { addresses: ['10.0.0.5'] }];
    const ports = [{ port: 1 }, { port: 2 }, { port: 3 }, { port: 4 }];
    expect(endpointSlicePrinter.cells(slice(endpoints, ports), NOW).slice(2, 4)).toEqual(['1,2,3 + 1 more...', '10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...']);
  });
});

describe('pods', () => {
  const pod = (spec: Record<string, unknown>, status: Record<string, unknown>, meta: Partial<Pod['metadata']> = {}): Pod =>
    ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', ...meta }, spec, status }) as Pod;
  const two = { containers: [{ name: 'a' }, { name: 'b' }] };
  const running = { running: {} };

  it('counts ready running containers and sums restarts (test1)', () => {
    const p = pod(two, { phase: 'podPhase', containerStatuses: [{ ready: true, restartCount: 3, state: running }, { restartCount: 3 }] });
    expect(podPrinter.cells(p, NOW).slice(0, 5)).toEqual(['p', '1/2', 'podPhase', '6', '<unknown>']);
  });

  it('lets a waiting or terminated reason override the phase, the first container last (test2, test3)', () => {
    const p2 = pod(two, { phase: 'podPhase', containerStatuses: [{ ready: true, restartCount: 3, state: running }, { state: { waiting: { reason: 'ContainerWaitingReason' } }, restartCount: 3 }] });
    expect(podPrinter.cells(p2, NOW).slice(1, 4)).toEqual(['1/2', 'ContainerWaitingReason', '6']);
    const p3 = pod(two, { phase: 'podPhase', containerStatuses: [{ state: { waiting: { reason: 'ContainerWaitingReason' } }, restartCount: 3 }, { state: { terminated: { reason: 'ContainerTerminatedReason' } }, restartCount: 3 }] });
    expect(podPrinter.cells(p3, NOW).slice(1, 4)).toEqual(['0/2', 'ContainerWaitingReason', '6']);
  });

  it('prints the pod reason over the phase (test5), and ExitCode/Signal for terminations without reason', () => {
    const p5 = pod(two, { reason: 'podReason', phase: 'podPhase', containerStatuses: [{ ready: true, restartCount: 3, state: running }, { ready: true, restartCount: 3 }] });
    expect(podPrinter.cells(p5, NOW)[2]).toBe('podReason');
    const exit = pod({ containers: [{ name: 'a' }] }, { phase: 'Failed', containerStatuses: [{ state: { terminated: { exitCode: 137 } } }] });
    expect(podPrinter.cells(exit, NOW)[2]).toBe('ExitCode:137');
    const sig = pod({ containers: [{ name: 'a' }] }, { phase: 'Failed', containerStatuses: [{ state: { terminated: { exitCode: 0, signal: 9 } } }] });
    expect(podPrinter.cells(sig, NOW)[2]).toBe('Signal:9');
  });

  it('turns Completed back into NotReady or Running while a container still runs (test6)', () => {
    const statuses = [{ ready: true, restartCount: 3, state: { terminated: { reason: 'Completed', exitCode: 0 } } }, { ready: true, restartCount: 3, state: running }];
    expect(podPrinter.cells(pod(two, { phase: 'Running', containerStatuses: statuses }), NOW).slice(1, 4)).toEqual(['1/2', 'NotReady', '6']);
    const ready = pod(two, { phase: 'Running', containerStatuses: statuses, conditions: [{ type: 'Ready', status: 'True' }] });
    expect(podPrinter.cells(ready, NOW).slice(1, 4)).toEqual(['1/2', 'Running', '6']);
  });

  it('reports init progress and the last restart\'s age (test7, test9, test10)', () => {
    const tenSecondsAgo = { terminated: { finishedAt: ago(10 * S) } };
    const p7 = pod(
      { initContainers: [{ name: 'i' }], containers: [{ name: 'a' }] },
      { phase: 'podPhase', initContainerStatuses: [{ name: 'i', restartCount: 3, state: running, lastState: tenSecondsAgo }], containerStatuses: [{ state: { waiting: {} } }] },
    );
    expect(podPrinter.cells(p7, NOW).slice(1, 4)).toEqual(['0/1', 'Init:0/1', '3 (10s ago)']);
    const p10 = pod(
      { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'a' }] },
      {
        phase: 'podPhase',
        initContainerStatuses: [
          { name: 'i1', restartCount: 2, state: { terminated: {} }, lastState: { terminated: { finishedAt: ago(2 * M) } } },
          { name: 'i2', restartCount: 3, state: running, lastState: tenSecondsAgo },
        ],
        containerStatuses: [{ state: { waiting: {} } }],
      },
    );
    expect(podPrinter.cells(p10, NOW).slice(1, 4)).toEqual(['0/1', 'Init:1/2', '5 (10s ago)']);
  });

  it('prints Init:<reason> for a failing or waiting init container', () => {
    const crash = pod({ initContainers: [{ name: 'i' }], containers: [{ name: 'a' }] }, { phase: 'Pending', initContainerStatuses: [{ name: 'i', state: { waiting: { reason: 'CrashLoopBackOff' } } }] });
    expect(podPrinter.cells(crash, NOW)[2]).toBe('Init:CrashLoopBackOff');
    const failed = pod({ initContainers: [{ name: 'i' }], containers: [{ name: 'a' }] }, { phase: 'Pending', initContainerStatuses: [{ name: 'i', state: { terminated: { exitCode: 1 } } }] });
    expect(podPrinter.cells(failed, NOW)[2]).toBe('Init:ExitCode:1');
  });

  it('counts a started sidecar (restartable init container) as a container, and only its restarts once initialized', () => {
    const p = pod(
      { initContainers: [{ name: 'side', restartPolicy: 'Always' }], containers: [{ name: 'a' }] },
      {
        phase: 'Running',
        conditions: [{ type: 'Initialized', status: 'True' }],
        initContainerStatuses: [{ name: 'side', ready: true, started: true, restartCount: 2, state: running, lastState: { terminated: { finishedAt: ago(20 * S) } } }],
        containerStatuses: [{ name: 'a', ready: true, restartCount: 1, state: running, lastState: { terminated: { finishedAt: ago(5 * M) } } }],
      },
    );
    expect(podPrinter.cells(p, NOW).slice(1, 4)).toEqual(['2/2', 'Running', '3 (20s ago)']);
  });

  it('prints Terminating while deleting a non-terminal pod, and Unknown for a pod lost with its node', () => {
    const del = pod({ containers: [{ name: 'a' }] }, { phase: 'Running' }, { deletionTimestamp: ago(10 * S) });
    expect(podPrinter.cells(del, NOW)[2]).toBe('Terminating');
    const lost = pod({ containers: [{ name: 'a' }] }, { phase: 'Running', reason: 'NodeLost' }, { deletionTimestamp: ago(10 * S) });
    expect(podPrinter.cells(lost, NOW)[2]).toBe('Unknown');
    const done = pod({ containers: [{ name: 'a' }] }, { phase: 'Succeeded' }, { deletionTimestamp: ago(10 * S) });
    expect(podPrinter.cells(done, NOW)[2]).toBe('Succeeded');
  });

  it('prints SchedulingGated for a gated pod', () => {
    const gated = pod({ containers: [{ name: 'a' }] }, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] });
    expect(podPrinter.cells(gated, NOW)[2]).toBe('SchedulingGated');
  });

  it('fills the wide columns: first pod IP, node, nominated node, readiness gates (TestPrintPodwide)', () => {
    const p = pod(
      { containers: [{ name: 'a' }], nodeName: 'test1', readinessGates: [{ conditionType: 'condition1' }, { conditionType: 'condition2' }] },
      { phase: 'podPhase', podIP: '1.1.1.1', podIPs: [{ ip: '1.1.1.1' }, { ip: '2001:db8::' }], nominatedNodeName: 'node1', conditions: [{ type: 'condition1', status: 'True' }], containerStatuses: [{ ready: true, restartCount: 3, state: running }] },
      { creationTimestamp: ago(42 * S) },
    );
    expect(podPrinter.cells(p, NOW)).toEqual(['p', '1/1', 'podPhase', '3', '42s', '1.1.1.1', 'test1', 'node1', '1/2']);
    const bare = pod({ containers: [{ name: 'a' }] }, { phase: 'Pending' });
    expect(podPrinter.cells(bare, NOW).slice(5)).toEqual(['<none>', '<none>', '<none>', '<none>']);
  });

  it('marks finished pods with a Completed row condition', () => {
    expect(podPrinter.conditions?.(pod({}, { phase: 'Succeeded' }))).toEqual([{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
    expect(podPrinter.conditions?.(pod({}, { phase: 'Failed' }))?.[0]?.reason).toBe('Failed');
    expect(podPrinter.conditions?.(pod({}, { phase: 'Running' }))).toBeUndefined();
  });
});

describe('namespaces', () => {
  it('prints name, phase and age', () => {
    const ns: Namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system', creationTimestamp: ago(26 * H) }, status: { phase: 'Active' } };
    expect(namespacePrinter.cells(ns, NOW)).toEqual(['kube-system', 'Active', '26h']);
    expect(namespacePrinter.columns.map((c) => c.name)).toEqual(['Name', 'Status', 'Age']);
  });
});

describe('nodes', () => {
  const node = (status: Record<string, unknown>, opts: { labels?: Record<string, string>; unschedulable?: boolean } = {}): NodeObject => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'node-1', creationTimestamp: ago(9 * 24 * H), ...(opts.labels === undefined ? {} : { labels: opts.labels }) },
    spec: opts.unschedulable === true ? { unschedulable: true } : {},
    status,
  });

  it('prints Ready, NotReady, Unknown and SchedulingDisabled (TestPrintNodeStatus)', () => {
    expect(nodePrinter.cells(node({ conditions: [{ type: 'Ready', status: 'True' }] }), NOW)[1]).toBe('Ready');
    expect(nodePrinter.cells(node({ conditions: [{ type: 'Ready', status: 'True' }] }, { unschedulable: true }), NOW)[1]).toBe('Ready,SchedulingDisabled');
    expect(nodePrinter.cells(node({ conditions: [{ type: 'Ready', status: 'False' }] }), NOW)[1]).toBe('NotReady');
    expect(nodePrinter.cells(node({ conditions: [{ type: 'Ready', status: 'Unknown' }] }), NOW)[1]).toBe('NotReady');
    expect(nodePrinter.cells(node({}), NOW)[1]).toBe('Unknown');
    expect(nodePrinter.cells(node({ conditions: [{ type: 'MemoryPressure', status: 'True' }] }, { unschedulable: true }), NOW)[1]).toBe('Unknown,SchedulingDisabled');
  });

  it('collects roles from both label forms, sorted, or <none> (TestPrintNodeRole)', () => {
    expect(nodePrinter.cells(node({}, { labels: { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'node' } }), NOW)[2]).toBe('control-plane,node,worker');
    expect(nodePrinter.cells(node({}, { labels: { 'node-role.kubernetes.io/': '', 'kubernetes.io/role': '' } }), NOW)[2]).toBe('<none>');
  });

  it('fills version and the wide columns, <none> and <unknown> where missing', () => {
    const full = node({
      conditions: [{ type: 'Ready', status: 'True' }],
      addresses: [{ type: 'Hostname', address: 'node-1' }, { type: 'InternalIP', address: '172.18.0.2' }, { type: 'InternalIP', address: '172.18.0.9' }],
      nodeInfo: { kubeletVersion: 'v1.33.0', osImage: 'Debian GNU/Linux 12 (bookworm)', kernelVersion: '6.1.0', containerRuntimeVersion: 'containerd://1.7.0' },
    });
    expect(nodePrinter.cells(full, NOW)).toEqual(['node-1', 'Ready', '<none>', '9d', 'v1.33.0', '172.18.0.2', '<none>', 'Debian GNU/Linux 12 (bookworm)', '6.1.0', 'containerd://1.7.0']);
    expect(nodePrinter.cells(node({}), NOW).slice(4)).toEqual(['', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
  });
});

describe('events', () => {
  const event = (fields: Partial<Event>): Event => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'kubernetes.17f0', namespace: 'default' },
    involvedObject: { kind: 'Service', name: 'kubernetes', namespace: 'default' },
    ...fields,
  });

  it('puts the wide columns between the default ones, in upstream\'s order', () => {
    expect(eventPrinter.columns.map((c) => `${c.name}:${c.priority}`)).toEqual(['Last Seen:0', 'Type:0', 'Reason:0', 'Object:0', 'Subobject:1', 'Source:1', 'Message:0', 'First Seen:1', 'Count:1', 'Name:1']);
  });

  it('prints last seen, type, reason, kind/name and the trimmed message', () => {
    const e = event({
      type: 'Warning',
      reason: 'ClusterIPOutOfRange',
      message: ' Cluster IP 10.0.0.1 is not within the service CIDR \n',
      firstTimestamp: ago(10 * M),
      lastTimestamp: ago(30 * S),
      count: 4,
      source: { component: 'ipallocator-repair-controller' },
    });
    expect(eventPrinter.cells(e, NOW)).toEqual([
      '30s',
      'Warning',
      'ClusterIPOutOfRange',
      'service/kubernetes',
      '',
      'ipallocator-repair-controller',
      'Cluster IP 10.0.0.1 is not within the service CIDR',
      '10m',
      4,
      'kubernetes.17f0',
    ]);
  });

  it('falls back to eventTime, reporting controller and instance, and a count of 1', () => {
    const e = event({ eventTime: ago(3 * M), reportingComponent: 'kubesvc', reportingInstance: 'node-1', involvedObject: { kind: 'Node' } });
    const cells = eventPrinter.cells(e, NOW);
    expect(cells[0]).toBe('3m');
    expect(cells[3]).toBe('node');
    expect(cells[5]).toBe('kubesvc, node-1');
    expect(cells[7]).toBe('3m');
    expect(cells[8]).toBe(1);
    expect(eventPrinter.cells(event({}), NOW)[0]).toBe('<unknown>');
  });

  it('reads an events.k8s.io series for last seen and count', () => {
    const e = { ...event({ firstTimestamp: ago(2 * H) }), series: { count: 7, lastObservedTime: ago(15 * S) } } as Event;
    const cells = eventPrinter.cells(e, NOW);
    // two hours is still under HumanDuration's three-hour minute band
    expect([cells[0], cells[7], cells[8]]).toEqual(['15s', '120m', 7]);
  });
});
