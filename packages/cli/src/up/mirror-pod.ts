// The mirror pod each `kubesvc up` apiserver publishes for itself, as the kubelet of a kubeadm
// control-plane node publishes one for its static kube-apiserver pod: `kube-apiserver-<node>` in
// kube-system, labelled component=kube-apiserver and tier=control-plane, on the host network
// with the advertise address as its IP, and the annotations that mark a mirror pod. The HA
// walk-through lists them with `kubectl -n kube-system get pod -l tier=control-plane -o wide`.
// upstream (v1.33): cmd/kubeadm/app/phases/controlplane/manifests.go (the static pod: labels,
//   the advertise-address annotation, priority class), cmd/kubeadm/app/util/staticpod/utils.go
//   (ComponentPod), pkg/kubelet/config/common.go (the config.hash, config.seen and
//   config.source annotations), pkg/kubelet/pod/mirror_client.go (CreateMirrorPod: the
//   config.mirror annotation and the Node as controller owner)
import { createHash } from 'node:crypto';
import type { Node, Pod } from '@kubesvc/api-types';

export const MIRROR_POD_NAMESPACE = 'kube-system';

export interface ApiserverPodOptions {
  readonly nodeName: string;
  readonly advertiseAddress: string;
  readonly bindAddress: string;
  readonly securePort: number;
  readonly serviceClusterIPRange: string;
  readonly etcdServers: readonly string[];
  /** The Node of that name, when the cluster has one: it becomes the pod's controller owner. */
  readonly node?: Node;
  /** ms since the epoch: when the kubelet saw the manifest and started the pod. */
  readonly now: number;
}

/** The image kubeadm v1.33 runs kube-apiserver from. */
const IMAGE = 'registry.k8s.io/kube-apiserver:v1.33.0';

export function apiserverPodName(nodeName: string): string {
  return `kube-apiserver-${nodeName}`;
}

function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** config.seen: Go's RFC3339Nano of the local time, here in UTC. */
function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0*Z$/, 'Z');
}

/** The static pod manifest, as the file in /etc/kubernetes/manifests would hold it. */
function manifest(o: ApiserverPodOptions): Pod {
  const command = [
    'kube-apiserver',
    `--advertise-address=${o.advertiseAddress}`,
    `--bind-address=${o.bindAddress}`,
    `--secure-port=${o.securePort}`,
    `--service-cluster-ip-range=${o.serviceClusterIPRange}`,
    ...(o.etcdServers.length === 0 ? [] : [`--etcd-servers=${o.etcdServers.join(',')}`]),
  ];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'kube-apiserver',
      namespace: MIRROR_POD_NAMESPACE,
      labels: { component: 'kube-apiserver', tier: 'control-plane' },
      annotations: { 'kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint': `${o.advertiseAddress}:${o.securePort}` },
    },
    spec: {
      containers: [{ name: 'kube-apiserver', image: IMAGE, imagePullPolicy: 'IfNotPresent', command }],
      hostNetwork: true,
      priority: 2000001000,
      priorityClassName: 'system-node-critical',
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      tolerations: [{ effect: 'NoExecute', operator: 'Exists' }],
    },
  } as Pod;
}

/**
 * The mirror pod the API holds for the apiserver's static pod. The config hash is an md5 of
 * the manifest as kubesvc writes it (the kubelet's is an md5 of the Go object: the same form,
 * not the same digits).
 */
export function apiserverMirrorPod(o: ApiserverPodOptions): Pod {
  const base = manifest(o);
  const hash = createHash('md5').update(JSON.stringify(base)).digest('hex');
  const nodeUid = o.node?.metadata.uid;
  return {
    ...base,
    metadata: {
      ...base.metadata,
      name: apiserverPodName(o.nodeName),
      annotations: {
        ...base.metadata.annotations,
        'kubernetes.io/config.hash': hash,
        'kubernetes.io/config.mirror': hash,
        'kubernetes.io/config.seen': rfc3339Nano(o.now),
        'kubernetes.io/config.source': 'file',
      },
      ...(nodeUid === undefined ? {} : { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: o.nodeName, uid: nodeUid, controller: true }] }),
    },
    spec: { ...base.spec, nodeName: o.nodeName } as Pod['spec'],
  };
}

/** The status the kubelet reports for it once it runs: on the host network, so the pod's IP is the node's. */
export function apiserverPodStatus(o: ApiserverPodOptions): NonNullable<Pod['status']> {
  const t = rfc3339(o.now);
  const conditions = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: t }));
  return {
    phase: 'Running',
    conditions,
    hostIP: o.advertiseAddress,
    hostIPs: [{ ip: o.advertiseAddress }],
    podIP: o.advertiseAddress,
    podIPs: [{ ip: o.advertiseAddress }],
    startTime: t,
    qosClass: 'Burstable',
    containerStatuses: [{ name: 'kube-apiserver', ready: true, started: true, restartCount: 0, image: IMAGE, imageID: '', state: { running: { startedAt: t } } }],
  } as NonNullable<Pod['status']>;
}
