// The simulated kubelet: node registration, binding, pod IPs from the node's pod CIDR,
// readiness after a delay, and a readiness flip that sticks.
import type { Node, Pod } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { ClusterModel, ControllerLoop } from './cluster-model.fixtures.js';
import { NOW } from './objects.fixtures.js';
import { simulatedKubelet, type SimulatedKubeletOptions } from './simulated-kubelet.js';

function newPod(name: string, nodeName?: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: 'web' } },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'app', image: 'nginx:1.27' }] },
    status: { phase: 'Pending' },
  } as Pod;
}

function setup(options: SimulatedKubeletOptions, pods: readonly Pod[] = []): { model: ClusterModel; loop: ControllerLoop } {
  const model = new ClusterModel();
  for (const p of pods) model.put('pods', p, NOW);
  const loop = new ControllerLoop(model, [simulatedKubelet(options)], NOW);
  loop.start();
  loop.run();
  expect(model.invalidWrites).toEqual([]);
  return { model, loop };
}

const getPod = (model: ClusterModel, name: string): Pod | undefined => model.get<Pod>('pods', 'default', name);

describe('simulated kubelet', () => {
  it('registers a node named after the host with a Ready condition, addresses and pod CIDR', () => {
    const { model } = setup({ hostName: 'laptop' });
    const node = model.get<Node>('nodes', '', 'laptop');
    expect(node?.spec).toEqual({ podCIDR: '10.244.0.0/16', podCIDRs: ['10.244.0.0/16'] });
    expect(node?.status?.addresses).toEqual([
      { type: 'InternalIP', address: '127.0.0.1' },
      { type: 'Hostname', address: 'laptop' },
    ]);
    expect(node?.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([['Ready', 'True', 'KubeletReady']]);
    expect(node?.status?.nodeInfo?.kubeletVersion).toBe('v1.33.0');
    expect(node?.metadata.labels?.['kubernetes.io/hostname']).toBe('laptop');
  });

  it('gives several nodes a /24 each out of 10.244.0.0/16 and registers a deleted node again', () => {
    const { model, loop } = setup({ hostName: 'h', nodes: [{ name: 'n1' }, { name: 'n2', internalIP: '192.168.0.12' }] });
    expect(model.list<Node>('nodes').map((n) => [n.metadata.name, n.spec?.podCIDR, n.status?.addresses?.[0]?.address])).toEqual([
      ['n1', '10.244.0.0/24', '127.0.0.1'],
      ['n2', '10.244.1.0/24', '192.168.0.12'],
    ]);
    loop.remove('nodes', '', 'n2');
    loop.run();
    expect(model.get<Node>('nodes', '', 'n2')).toBeDefined();
  });

  it('binds new pods to the node with the fewest pods, then the first in the order the nodes are given (not by name), and starts them', () => {
    const { model } = setup({ hostName: 'h', nodes: [{ name: 'b' }, { name: 'a' }] }, [newPod('p1'), newPod('p2'), newPod('p3'), newPod('p4', 'b')]);
    // p4 is on b: p1 goes to a (0 < 1), p2 to b (1 = 1, b first), p3 to a (1 < 2).
    expect(['p1', 'p2', 'p3', 'p4'].map((n) => getPod(model, n)?.spec?.nodeName)).toEqual(['a', 'b', 'a', 'b']);
    const p1 = getPod(model, 'p1');
    expect(p1?.status?.phase).toBe('Running');
    expect(p1?.status?.hostIP).toBe('127.0.0.2');
    expect(p1?.status?.hostIPs).toEqual([{ ip: '127.0.0.2' }]);
  });

  it('hands out the lowest free IP past the network address and the bridge, and reuses freed ones', () => {
    const { model, loop } = setup({ hostName: 'h', nodes: [{ name: 'n', podCIDR: '10.244.3.0/24' }] }, [newPod('a'), newPod('b')]);
    expect(getPod(model, 'a')?.status?.podIPs).toEqual([{ ip: '10.244.3.2' }]);
    expect(getPod(model, 'b')?.status?.podIP).toBe('10.244.3.3');
    loop.remove('pods', 'default', 'a');
    loop.put('pods', newPod('c'));
    loop.run();
    expect(getPod(model, 'c')?.status?.podIP).toBe('10.244.3.2');
  });

  it('leaves a pod Pending when its node has no address left, never the broadcast address', () => {
    // A /29 has 8 addresses: network, bridge, 5 for pods, broadcast.
    const pods = ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => newPod(n));
    const { model } = setup({ hostName: 'h', nodes: [{ name: 'n', podCIDR: '10.0.0.0/29' }] }, pods);
    expect(pods.map((p) => getPod(model, p.metadata.name ?? '')?.status?.podIP)).toEqual(['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6', undefined]);
    expect(getPod(model, 'f')?.status?.phase).toBe('Pending');
  });

  it('reports Ready only readyAfterMs after the start, with upstream\'s not-ready reason meanwhile', () => {
    const { model, loop } = setup({ hostName: 'h', readyAfterMs: 5000 }, [newPod('a')]);
    const before = getPod(model, 'a');
    expect(before?.status?.startTime).toBe('2025-01-02T03:04:05Z');
    expect(before?.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['Initialized', 'True'],
      ['Ready', 'False'],
      ['ContainersReady', 'False'],
      ['PodScheduled', 'True'],
    ]);
    expect(before?.status?.conditions?.[1]).toMatchObject({ reason: 'ContainersNotReady', message: 'containers with unready status: [app]' });
    expect((before?.status as Record<string, unknown>)['containerStatuses']).toEqual([
      { name: 'app', image: 'nginx:1.27', imageID: '', ready: false, restartCount: 0, started: true, state: { running: { startedAt: '2025-01-02T03:04:05Z' } } },
    ]);
    // Not yet: 4.9 s later nothing changes.
    loop.run({ until: NOW + 4900 });
    expect(getPod(model, 'a')?.status?.conditions?.[1]?.status).toBe('False');
    loop.run({ until: NOW + 5000 });
    const after = getPod(model, 'a');
    expect(after?.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['Initialized', 'True'],
      ['Ready', 'True'],
      ['ContainersReady', 'True'],
      ['PodScheduled', 'True'],
    ]);
    expect(after?.status?.conditions?.[1]?.lastTransitionTime).toBe('2025-01-02T03:04:10Z');
    expect(after?.status?.podIP).toBe(before?.status?.podIP);
  });

  it('keeps a readiness flip made on the status subresource after it made the pod ready', () => {
    const { model, loop } = setup({ hostName: 'h' }, [newPod('a')]);
    const pod = getPod(model, 'a');
    if (pod?.status?.conditions === undefined) throw new Error('not started');
    const flipped = { ...pod, status: { ...pod.status, conditions: pod.status.conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' } : c)) } };
    loop.put('pods', flipped);
    expect(loop.run({ until: NOW + 60_000 }).writes).toBe(0);
    expect(getPod(model, 'a')?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
  });

  it('leaves pods on other nodes and terminal pods alone', () => {
    const done = { ...newPod('done', 'h'), status: { phase: 'Succeeded' } } as Pod;
    const { model } = setup({ hostName: 'h' }, [newPod('elsewhere', 'other-node'), done]);
    expect(getPod(model, 'elsewhere')?.status).toEqual({ phase: 'Pending' });
    expect(getPod(model, 'done')?.status).toEqual({ phase: 'Succeeded' });
  });

  it('leaves a mirror pod (a static pod its apiserver publishes) to its publisher, and does not count it when placing pods', () => {
    const mirror = { ...newPod('kube-apiserver-a', 'a'), metadata: { name: 'kube-apiserver-a', namespace: 'default', annotations: { 'kubernetes.io/config.mirror': '0f3e' } } } as Pod;
    const { model } = setup({ hostName: 'h', nodes: [{ name: 'a' }, { name: 'b' }] }, [mirror, newPod('p1'), newPod('p2')]);
    expect(getPod(model, 'kube-apiserver-a')?.status).toEqual({ phase: 'Pending' });
    // Counted, the mirror pod would have sent p1 to b; not counted, p1 goes to a, p2 to b.
    expect(['p1', 'p2'].map((n) => getPod(model, n)?.spec?.nodeName)).toEqual(['a', 'b']);
  });

  it('keeps a pod being deleted running and ready, and its IP, until its deletionTimestamp; then reports it killed and deletes it with grace 0 and its UID', () => {
    const kubelet = simulatedKubelet({ hostName: 'h' });
    const model = new ClusterModel();
    model.put('pods', newPod('a', 'h'), NOW);
    const loop = new ControllerLoop(model, [kubelet], NOW);
    loop.start();
    loop.run();
    const running = getPod(model, 'a') as Pod;
    expect(running.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    // kubectl delete: the apiserver sets deletionTimestamp = now + 3 s.
    loop.put('pods', { ...running, metadata: { ...running.metadata, deletionTimestamp: '2025-01-02T03:04:08Z', deletionGracePeriodSeconds: 3 } });
    loop.put('pods', newPod('b', 'h'));
    const during = loop.run({ until: NOW + 2999 });
    expect(during.timers).toEqual(new Map([['simulated-kubelet:h', Date.parse('2025-01-02T03:04:08Z')]]));
    const terminating = getPod(model, 'a');
    expect(terminating?.status?.phase).toBe('Running');
    expect(terminating?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    // The new pod does not get the address the terminating one still holds.
    expect(getPod(model, 'b')?.status?.podIP).toBe('10.244.0.3');
    // At the deletionTimestamp: the killed status, then the final delete.
    expect(kubelet.reconcile('h', model, Date.parse('2025-01-02T03:04:08Z'))).toEqual([
      {
        kind: 'update',
        resource: 'pods',
        namespace: 'default',
        subresource: 'status',
        object: expect.objectContaining({
          status: expect.objectContaining({
            phase: 'Failed',
            conditions: [
              expect.objectContaining({ type: 'Initialized', status: 'True' }),
              { type: 'Ready', status: 'False', lastProbeTime: null, lastTransitionTime: '2025-01-02T03:04:08Z', reason: 'ContainersNotReady', message: 'containers with unready status: [app]' },
              { type: 'ContainersReady', status: 'False', lastProbeTime: null, lastTransitionTime: '2025-01-02T03:04:08Z', reason: 'ContainersNotReady', message: 'containers with unready status: [app]' },
              expect.objectContaining({ type: 'PodScheduled', status: 'True' }),
            ],
            containerStatuses: [
              {
                name: 'app',
                image: 'nginx:1.27',
                imageID: '',
                ready: false,
                restartCount: 0,
                started: false,
                state: { terminated: { exitCode: 137, reason: 'Error', startedAt: '2025-01-02T03:04:05Z', finishedAt: '2025-01-02T03:04:08Z' } },
              },
            ],
          }),
        }),
      },
      { kind: 'delete', resource: 'pods', namespace: 'default', name: 'a', uid: running.metadata.uid, gracePeriodSeconds: 0 },
    ]);
    loop.run({ until: NOW + 3000 });
    expect(model.invalidWrites).toEqual([]);
    expect(getPod(model, 'a')).toBeUndefined();
    expect(getPod(model, 'b')?.status?.phase).toBe('Running');
  });

  it('deletes at once a pod whose deletionTimestamp has passed, with no status write for one that never started or has finished', () => {
    const past = { deletionTimestamp: '2025-01-02T03:04:00Z', deletionGracePeriodSeconds: 30 };
    const pending = { ...newPod('pending', 'h'), metadata: { ...newPod('pending', 'h').metadata, ...past } } as Pod;
    const done = { ...newPod('done', 'h'), metadata: { ...newPod('done', 'h').metadata, ...past }, status: { phase: 'Succeeded', startTime: '2025-01-02T03:00:00Z' } } as Pod;
    const model = new ClusterModel();
    for (const p of [pending, done]) model.put('pods', p, NOW);
    const actions = simulatedKubelet({ hostName: 'h' }).reconcile('h', model, NOW);
    expect(actions.map((a) => (a.kind === 'delete' ? `delete ${a.name}` : a.kind === 'update' ? `update ${a.object.metadata.name ?? ''}` : a.kind))).toEqual(['create', 'delete done', 'delete pending']);
    const { model: after } = setup({ hostName: 'h' }, [pending, done]);
    expect(after.list('pods')).toEqual([]);
  });

  it('registers the labels and cpu it is given: zones, and the allocatable cpu the topology hints read', () => {
    const { model } = setup({ hostName: 'h', nodes: [{ name: 'n1', labels: { 'topology.kubernetes.io/zone': 'a' }, cpu: '4' }, { name: 'n2' }] });
    const n1 = model.get<Node>('nodes', '', 'n1');
    expect(n1?.metadata.labels).toEqual({ 'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': 'n1', 'kubernetes.io/os': 'linux', type: 'kwok', 'topology.kubernetes.io/zone': 'a' });
    expect(n1?.status?.allocatable).toEqual({ cpu: '4', memory: '256Gi', pods: '110' });
    expect(n1?.status?.capacity).toEqual({ cpu: '4', memory: '256Gi', pods: '110' });
    expect(model.get<Node>('nodes', '', 'n2')?.status?.allocatable).toEqual({ cpu: '32', memory: '256Gi', pods: '110' });
  });

  it("places a pod with a nodeSelector on a node whose labels match, and leaves one no node fits Pending with the scheduler's condition and one FailedScheduling event", () => {
    const zones = ['a', 'b', 'c'];
    const nodes = zones.map((z, i) => ({ name: `n${i + 1}`, labels: { 'topology.kubernetes.io/zone': z } }));
    const inZone = (name: string, zone: string) => ({ ...newPod(name), spec: { ...newPod(name).spec, nodeSelector: { 'topology.kubernetes.io/zone': zone } } }) as Pod;
    const { model, loop } = setup({ hostName: 'h', nodes }, [newPod('p1'), inZone('pb', 'b'), inZone('px', 'x')]);
    expect(getPod(model, 'pb')?.spec?.nodeName).toBe('n2');
    expect(getPod(model, 'pb')?.status?.phase).toBe('Running');
    const px = getPod(model, 'px');
    expect(px?.spec?.nodeName).toBeUndefined();
    expect(px?.status?.phase).toBe('Pending');
    const message = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
    expect(px?.status?.conditions).toEqual([{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: '2025-01-02T03:04:05Z', reason: 'Unschedulable', message }]);
    expect(model.v1Events).toEqual([
      {
        recorder: 'events/v1',
        type: 'Warning',
        reason: 'FailedScheduling',
        action: 'Scheduling',
        message,
        reportingController: 'default-scheduler',
        regarding: { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'px', resource: 'pods' },
      },
    ]);
    // Reconciled again (its own status write, a node change): no new write, no new event.
    loop.put('nodes', { ...(model.get<Node>('nodes', '', 'n3') as Node) });
    expect(loop.run().writes).toBe(0);
    expect(model.v1Events).toHaveLength(1);
    // A node labelled into zone x (kubectl label node) takes it, as the scheduler retries on a node update.
    const n3 = model.get<Node>('nodes', '', 'n3') as Node;
    loop.put('nodes', { ...n3, metadata: { ...n3.metadata, labels: { ...n3.metadata.labels, 'topology.kubernetes.io/zone': 'x' } } });
    loop.run();
    expect(getPod(model, 'px')?.spec?.nodeName).toBe('n3');
    expect(getPod(model, 'px')?.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status).toBe('True');
  });

  it('honours spec.nodeName as given, even on a node its nodeSelector does not match (the scheduler never sees such a pod)', () => {
    const pinned = { ...newPod('pinned', 'n1'), spec: { ...newPod('pinned', 'n1').spec, nodeSelector: { 'topology.kubernetes.io/zone': 'b' } } } as Pod;
    const { model } = setup({ hostName: 'h', nodes: [{ name: 'n1', labels: { 'topology.kubernetes.io/zone': 'a' } }, { name: 'n2' }] }, [pinned]);
    expect(getPod(model, 'pinned')?.spec?.nodeName).toBe('n1');
    expect(getPod(model, 'pinned')?.status?.phase).toBe('Running');
  });

  it('refuses a configuration it cannot run', () => {
    expect(() => simulatedKubelet({ hostName: 'h', nodes: [] })).toThrow('a simulated kubelet needs at least one node');
    expect(() => simulatedKubelet({ hostName: 'h', nodes: [{ name: 'n', podCIDR: '10.0.0.0/33' }] })).toThrow('invalid CIDR address: 10.0.0.0/33');
    expect(() => simulatedKubelet({ hostName: 'h', nodes: [{ name: 'n' }, { name: 'n' }] })).toThrow('node n is listed twice');
    expect(() => simulatedKubelet({ hostName: 'h', readyAfterMs: -1 })).toThrow(RangeError);
  });
});
