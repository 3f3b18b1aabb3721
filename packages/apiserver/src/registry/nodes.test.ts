// Nodes through the registry: a kubelet-shaped Node body decodes under strict field
// validation, is stored under upstream's `/registry/minions/` key, and is cluster-scoped.
import type { Node } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { openMemoryStore, virtualClock } from '@kubesvc/store';
import { decodeBody } from './decode.js';
import { createRegistry } from './registry.js';
import { RESOURCES } from './resources.js';

// What a kubelet reports for itself (fields as `kubectl get node -o json` prints them).
const KUBELET_NODE = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'kind-worker', labels: { 'kubernetes.io/hostname': 'kind-worker', 'kubernetes.io/os': 'linux' } },
  spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'], providerID: 'kind://docker/kind/kind-worker' },
  status: {
    addresses: [
      { type: 'InternalIP', address: '172.18.0.3' },
      { type: 'Hostname', address: 'kind-worker' },
    ],
    allocatable: { cpu: '8', memory: '16318884Ki', pods: '110' },
    capacity: { cpu: '8', memory: '16318884Ki', pods: '110' },
    conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2025-01-02T03:04:05Z', lastTransitionTime: '2025-01-02T03:04:05Z', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    images: [{ names: ['registry.k8s.io/pause:3.10'], sizeBytes: 320368 }],
    nodeInfo: { architecture: 'amd64', kubeletVersion: 'v1.33.1', operatingSystem: 'linux', osImage: 'Debian GNU/Linux 12 (bookworm)' },
  },
};

describe('nodes', () => {
  it('decodes a kubelet-shaped Node under Strict field validation', () => {
    const decoded = decodeBody(RESOURCES.nodes, JSON.stringify(KUBELET_NODE), 'Strict');
    expect(decoded.ok).toBe(true);
  });

  it('reports a field a Node does not have', () => {
    const decoded = decodeBody(RESOURCES.nodes, JSON.stringify({ ...KUBELET_NODE, spec: { ...KUBELET_NODE.spec, podCidr: 'x' } }), 'Strict');
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.error.status.message).toBe('Node in version "v1" cannot be handled as a Node: strict decoding error: unknown field "spec.podCidr"');
  });

  it('stores a Node cluster-scoped under /registry/minions/', async () => {
    const clock = virtualClock(Date.UTC(2025, 0, 2));
    const store = openMemoryStore({ clock });
    const r = createRegistry({ store, clock, seed: 1 });
    if (!r.ok) throw new Error(r.error.message);
    const decoded = decodeBody(RESOURCES.nodes, JSON.stringify(KUBELET_NODE));
    if (!decoded.ok) throw new Error('decode');
    const created = await r.value.create('nodes', 'ignored', decoded.value.object as Node);
    expect(created.ok).toBe(true);
    const { kv } = await store.get('/registry/minions/kind-worker');
    expect(kv).toBeDefined();
    const got = await r.value.get<Node>('nodes', '', 'kind-worker');
    expect(got.ok && got.value.metadata.namespace).toBeUndefined();
    expect(got.ok && got.value.spec?.podCIDRs).toEqual(['10.244.1.0/24']);
  });

  it('refuses two pod CIDRs of one family with upstream\'s message', async () => {
    const clock = virtualClock(Date.UTC(2025, 0, 2));
    const r = createRegistry({ store: openMemoryStore({ clock }), clock, seed: 1 });
    if (!r.ok) throw new Error(r.error.message);
    const bad: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, spec: { podCIDRs: ['10.244.0.0/24', '10.245.0.0/24'] } };
    const created = await r.value.create('nodes', '', bad);
    expect(created.ok).toBe(false);
    if (!created.ok) {
      expect(created.error.status.message).toBe('Node "n1" is invalid: spec.podCIDRs: Invalid value: []string{"10.244.0.0/24", "10.245.0.0/24"}: may specify no more than one CIDR for each IP family');
    }
  });
});

describe('node status', () => {
  it('a plain update keeps the stored status and /status keeps the stored spec (nodeStrategy and nodeStatusStrategy PrepareForUpdate)', async () => {
    const clock = virtualClock(Date.UTC(2025, 0, 2));
    const created = createRegistry({ store: openMemoryStore({ clock }), clock, seed: 1 });
    if (!created.ok) throw new Error(created.error.message);
    const registry = created.value;
    const node = KUBELET_NODE as unknown as Node;
    const stored = await registry.create('nodes', '', node);
    if (!stored.ok) throw new Error(stored.error.message);
    const cordoned = await registry.update('nodes', '', 'kind-worker', { ...stored.value, spec: { ...stored.value.spec, unschedulable: true }, status: { ...stored.value.status, addresses: [] } });
    if (!cordoned.ok) throw new Error(cordoned.error.message);
    expect(cordoned.value.spec?.unschedulable).toBe(true);
    expect(cordoned.value.status?.addresses).toEqual(KUBELET_NODE.status.addresses);
    const reported = await registry.updateStatus('nodes', '', 'kind-worker', { ...cordoned.value, spec: { ...cordoned.value.spec, podCIDR: '10.244.9.0/24', unschedulable: false }, status: { ...cordoned.value.status, addresses: [{ type: 'InternalIP', address: '172.18.0.9' }] } });
    if (!reported.ok) throw new Error(reported.error.message);
    expect(reported.value.spec?.podCIDR).toBe('10.244.1.0/24');
    expect(reported.value.spec?.unschedulable).toBe(true);
    expect(reported.value.status?.addresses).toEqual([{ type: 'InternalIP', address: '172.18.0.9' }]);
  });
});
