// The apiserver's mirror pod, as a kubeadm control-plane node's kubelet publishes one for its
// static kube-apiserver pod (v1.33: the labels and annotations kubeadm and the kubelet write).
import type { Node } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { apiserverMirrorPod, apiserverPodStatus, type ApiserverPodOptions } from './mirror-pod.js';

const OPTIONS: ApiserverPodOptions = {
  nodeName: 'cp-1',
  advertiseAddress: '192.0.2.10',
  bindAddress: '127.0.0.2',
  securePort: 6443,
  serviceClusterIPRange: '10.96.0.0/12',
  etcdServers: ['http://127.0.0.1:2379'],
  now: Date.UTC(2026, 11, 3, 0, 10, 5, 250),
};

describe('the apiserver mirror pod', () => {
  it('is kube-apiserver-<node> in kube-system, on the host network, labelled and annotated as kubeadm and the kubelet mark it', () => {
    const pod = apiserverMirrorPod(OPTIONS);
    expect(pod.metadata.name).toBe('kube-apiserver-cp-1');
    expect(pod.metadata.namespace).toBe('kube-system');
    expect(pod.metadata.labels).toEqual({ component: 'kube-apiserver', tier: 'control-plane' });
    const annotations = pod.metadata.annotations ?? {};
    expect(annotations['kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint']).toBe('192.0.2.10:6443');
    expect(annotations['kubernetes.io/config.source']).toBe('file');
    expect(annotations['kubernetes.io/config.seen']).toBe('2026-12-03T00:10:05.25Z');
    expect(annotations['kubernetes.io/config.hash']).toMatch(/^[0-9a-f]{32}$/);
    expect(annotations['kubernetes.io/config.mirror']).toBe(annotations['kubernetes.io/config.hash']);
    expect(pod.spec?.nodeName).toBe('cp-1');
    expect(pod.spec?.hostNetwork).toBe(true);
    expect(pod.spec?.priorityClassName).toBe('system-node-critical');
    expect((pod.spec?.containers as { command?: string[] }[] | undefined)?.[0]?.command).toEqual([
      'kube-apiserver',
      '--advertise-address=192.0.2.10',
      '--bind-address=127.0.0.2',
      '--secure-port=6443',
      '--service-cluster-ip-range=10.96.0.0/12',
      '--etcd-servers=http://127.0.0.1:2379',
    ]);
    // No Node of that name: no owner.
    expect(pod.metadata.ownerReferences).toBeUndefined();
  });

  it('names its Node as controller owner when the Node exists, and hashes only the manifest (the same pod seen later has the same hash)', () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'cp-1', uid: 'u-1' } } as Node;
    const owned = apiserverMirrorPod({ ...OPTIONS, node, now: OPTIONS.now + 60_000 });
    expect(owned.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'cp-1', uid: 'u-1', controller: true }]);
    expect(owned.metadata.annotations?.['kubernetes.io/config.hash']).toBe(apiserverMirrorPod(OPTIONS).metadata.annotations?.['kubernetes.io/config.hash']);
    const otherPort = apiserverMirrorPod({ ...OPTIONS, securePort: 6444 });
    expect(otherPort.metadata.annotations?.['kubernetes.io/config.hash']).not.toBe(owned.metadata.annotations?.['kubernetes.io/config.hash']);
  });

  it("runs with the node's address as its IP, Ready", () => {
    const status = apiserverPodStatus(OPTIONS);
    expect(status.phase).toBe('Running');
    expect([status.podIP, status.hostIP]).toEqual(['192.0.2.10', '192.0.2.10']);
    expect(status.startTime).toBe('2026-12-03T00:10:05Z');
    expect(status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  });
});
