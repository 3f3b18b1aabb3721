// The cluster dump the `cli` bench suite feeds to `kubesvc rules`: kube-proxy's benchmark shape
// (as the proxy-iptables suite: namespace `ns`, Services `svc<i>` with ClusterIP 172.30.0.0 +
// (i+1) and port p80 TCP 80 → 8080, one EndpointSlice `svc<i>-0` of M ready endpoints
// 10.128.0.0 + (i·M + j + 1) on node-<j mod 50>), written as `kubectl get
// svc,endpointslices -A -o json` prints it: a List whose items carry the fields the apiserver
// fills in (uid, resourceVersion, creationTimestamp, the defaulted spec, the slice's owner
// reference, endpoint conditions and target pods), so the parser reads what a real dump holds.

function ipv4(base: number, offset: number): string {
  const v = base + offset;
  return `${(v >>> 24) & 255}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

const CLUSTER_IP_BASE = (172 << 24) + (30 << 16);
const ENDPOINT_BASE = (10 << 24) + (128 << 16);

function uid(kind: number, i: number): string {
  const hex = (kind * 100_000_000 + i).toString(16).padStart(12, '0');
  return `6b1f2c3d-4e5f-4a6b-8c7d-${hex}`;
}

export function serviceItem(i: number): Record<string, unknown> {
  const clusterIP = ipv4(CLUSTER_IP_BASE, i + 1);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      creationTimestamp: '2026-01-01T00:00:00Z',
      labels: { app: `svc${i}` },
      name: `svc${i}`,
      namespace: 'ns',
      resourceVersion: String(1000 + i),
      uid: uid(1, i),
    },
    spec: {
      clusterIP,
      clusterIPs: [clusterIP],
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [{ name: 'p80', port: 80, protocol: 'TCP', targetPort: 8080 }],
      selector: { app: `svc${i}` },
      sessionAffinity: 'None',
      type: 'ClusterIP',
    },
    status: { loadBalancer: {} },
  };
}

export function sliceItem(i: number, endpoints: number): Record<string, unknown> {
  return {
    addressType: 'IPv4',
    apiVersion: 'discovery.k8s.io/v1',
    endpoints: Array.from({ length: endpoints }, (_, j) => ({
      addresses: [ipv4(ENDPOINT_BASE, i * endpoints + j + 1)],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: `node-${j % 50}`,
      targetRef: { kind: 'Pod', name: `svc${i}-pod-${j}`, namespace: 'ns', uid: uid(3, i * endpoints + j) },
    })),
    kind: 'EndpointSlice',
    metadata: {
      creationTimestamp: '2026-01-01T00:00:00Z',
      generateName: `svc${i}-`,
      generation: 1,
      labels: { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', 'kubernetes.io/service-name': `svc${i}` },
      name: `svc${i}-0`,
      namespace: 'ns',
      ownerReferences: [{ apiVersion: 'v1', blockOwnerDeletion: true, controller: true, kind: 'Service', name: `svc${i}`, uid: uid(1, i) }],
      resourceVersion: String(2000 + i),
      uid: uid(2, i),
    },
    ports: [{ name: 'p80', port: 8080, protocol: 'TCP' }],
  };
}

/** `kubectl get svc,endpointslices -A -o json` of N Services with M endpoints each: Services first, then slices, as kubectl lists by resource. */
export function clusterDump(services: number, endpoints: number): Record<string, unknown> {
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < services; i++) items.push(serviceItem(i));
  for (let i = 0; i < services; i++) items.push(sliceItem(i, endpoints));
  return { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } };
}
