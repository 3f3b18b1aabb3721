// A simulated kubelet, as kwok simulates one: it registers its Node objects, binds new pods to
// its nodes (the scheduler's job: node-placement.ts), and reports each bound pod as running,
// with an IP from its node's pod CIDR and readiness after a delay. No container runs. A pod no
// node fits stays Pending with the scheduler's PodScheduled=False condition and a
// FailedScheduling event. A pod being deleted keeps running, as ready as it was (its
// containers, told to stop, take their whole grace period, and a readiness probe keeps
// running on a terminating pod), until its deletionTimestamp; then its containers are killed
// (exit code 137, phase Failed, not ready) and the kubelet deletes it with a grace period of 0
// and its UID as precondition, as the status manager does once a deleted pod has stopped.
// upstream: pkg/kubelet/kubelet_node_status.go (the Node a kubelet registers: addresses,
//           the Ready condition, nodeInfo), pkg/kubelet/status/generate.go (GeneratePodReadyCondition,
//           "containers with unready status"), pkg/kubelet/kubelet_pods.go (generateAPIPodStatus:
//           hostIP, podIPs, startTime, containerStatuses), pkg/registry/core/pod/storage/storage.go
//           (the binding subresource sets spec.nodeName), pkg/scheduler/schedule_one.go
//           (handleSchedulingFailure: the Unschedulable condition and the FailedScheduling
//           event); kwok's fake node and pod stages
// upstream (v1.33): pkg/kubelet/kubelet.go (SyncTerminatingPod: killPod with the pod's
//           deletionGracePeriodSeconds), pkg/kubelet/prober/prober_manager.go (UpdatePodStatus:
//           a running container without a failing readiness probe stays ready),
//           pkg/kubelet/kubelet_pods.go (getPhase: a terminal pod with a container that
//           failed is Failed), pkg/kubelet/status/status_manager.go (syncPod, canBeDeleted: the
//           final delete with GracePeriodSeconds 0 and a UID precondition)
import {
  addressAtOffset,
  cidrSize,
  compareCodePoints,
  formatCIDR,
  formatIP,
  parseCIDRSloppy,
  parseIPSloppy,
  type CIDR,
  type KubeObject,
  type Node,
  type Pod,
  type PodCondition,
} from '@kubesvc/api-types';
import type { CacheChange, CacheView, KeyedController, ReconcileAction } from './contract.js';
import { namespacedKey, splitKey } from './keys.js';
import { placePod, type PlacementNode } from './node-placement.js';
import { isPodDeleting, isPodTerminal, podIPs } from './pod-membership.js';

/** One node the kubelet runs. */
export interface SimulatedNode {
  readonly name: string;
  /** The node's pod CIDR. Default: 10.244.0.0/16 for a single node, else 10.244.<i>.0/24. */
  readonly podCIDR?: string;
  /** The node's InternalIP and the pods' hostIP. Default: 127.0.0.1 for a single node, else 127.0.0.<i+1>. */
  readonly internalIP?: string;
  /**
   * Labels registered besides the kubelet's own (`kubernetes.io/hostname`, `kubernetes.io/os`,
   * `kubernetes.io/arch`, `type: kwok`), which they may override: `topology.kubernetes.io/zone`,
   * say. Placement reads the labels of the Node objects, so a `kubectl label node` counts too.
   */
  readonly labels?: Readonly<Record<string, string>>;
  /** status.capacity.cpu and status.allocatable.cpu, a quantity. Default: "32". */
  readonly cpu?: string;
}

export interface SimulatedKubeletOptions {
  /** The host's name: the one node's name when `nodes` is not given. */
  readonly hostName: string;
  readonly nodes?: readonly SimulatedNode[];
  /** How long after a pod starts it turns Ready. Default 0: ready at once. */
  readonly readyAfterMs?: number;
  /** status.nodeInfo.kubeletVersion. Default v1.33.0, the version kubesvc follows. */
  readonly kubeletVersion?: string;
}

interface ResolvedNode {
  readonly name: string;
  readonly cidr: CIDR;
  readonly internalIP: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly cpu: string;
}

/** RFC 3339 in whole seconds, as metav1.Time prints. */
function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function resolveNodes(options: SimulatedKubeletOptions): ResolvedNode[] {
  const given = options.nodes ?? [{ name: options.hostName }];
  if (given.length === 0) throw new RangeError('a simulated kubelet needs at least one node');
  if (given.length > 256) throw new RangeError('at most 256 nodes get default pod CIDRs; give podCIDR for more');
  const names = new Set<string>();
  return given.map((n, i) => {
    if (n.name === '' || n.name.includes('/')) throw new RangeError(`invalid node name ${JSON.stringify(n.name)}`);
    if (names.has(n.name)) throw new RangeError(`node ${n.name} is listed twice`);
    names.add(n.name);
    const cidrText = n.podCIDR ?? (given.length === 1 ? '10.244.0.0/16' : `10.244.${i}.0/24`);
    const parsed = parseCIDRSloppy(cidrText);
    if (!parsed.ok) throw new RangeError(parsed.error.message);
    // Network, bridge and (IPv4) broadcast are not handed out: at least one address must be left.
    if (cidrSize(parsed.value.cidr) < 4n) throw new RangeError(`pod CIDR ${cidrText} of node ${n.name} is too small`);
    const internalIP = n.internalIP ?? (given.length === 1 ? '127.0.0.1' : `127.0.0.${i + 1}`);
    if (!parseIPSloppy(internalIP).ok) throw new RangeError(`invalid internalIP ${JSON.stringify(internalIP)} for node ${n.name}`);
    return { name: n.name, cidr: parsed.value.cidr, internalIP, labels: n.labels ?? {}, cpu: n.cpu ?? '32' };
  });
}

/** The Node a kubelet registers for itself. */
function nodeObject(node: ResolvedNode, kubeletVersion: string, now: number): Node {
  const t = rfc3339(now);
  const cidr = formatCIDR(node.cidr);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: node.name,
      labels: { 'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': node.name, 'kubernetes.io/os': 'linux', type: 'kwok', ...node.labels },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0' },
    },
    spec: { podCIDR: cidr, podCIDRs: [cidr] },
    status: {
      addresses: [
        { type: 'InternalIP', address: node.internalIP },
        { type: 'Hostname', address: node.name },
      ],
      allocatable: { cpu: node.cpu, memory: '256Gi', pods: '110' },
      capacity: { cpu: node.cpu, memory: '256Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: t, lastTransitionTime: t, reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: 'amd64',
        bootID: '',
        containerRuntimeVersion: 'kwok',
        kernelVersion: '',
        kubeProxyVersion: '',
        kubeletVersion,
        machineID: '',
        operatingSystem: 'linux',
        osImage: '',
        systemUUID: '',
      },
    },
  };
}

interface ContainerSpec {
  readonly name?: unknown;
  readonly image?: unknown;
}

function containersOf(pod: Pod): { readonly name: string; readonly image: string }[] {
  const list = (pod.spec as Record<string, unknown> | undefined)?.['containers'];
  if (!Array.isArray(list)) return [];
  return (list as ContainerSpec[]).map((c) => ({ name: typeof c.name === 'string' ? c.name : '', image: typeof c.image === 'string' ? c.image : '' }));
}

function condition(pod: Pod, type: string): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

/** The status a running pod reports: ready or not, from its start. */
function runningStatus(pod: Pod, ip: string, node: ResolvedNode, startTime: string, ready: boolean, readyAt: number): Pod['status'] {
  const containers = containersOf(pod);
  const readyTime = ready ? rfc3339(readyAt) : startTime;
  const notReady = ready ? {} : { reason: 'ContainersNotReady', message: `containers with unready status: [${containers.map((c) => c.name).join(' ')}]` };
  return {
    ...pod.status,
    phase: 'Running',
    conditions: [
      { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: startTime },
      { type: 'Ready', status: ready ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: readyTime, ...notReady },
      { type: 'ContainersReady', status: ready ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: readyTime, ...notReady },
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: startTime },
    ],
    hostIP: node.internalIP,
    hostIPs: [{ ip: node.internalIP }],
    podIP: ip,
    podIPs: [{ ip }],
    startTime,
    containerStatuses: containers.map((c) => ({
      name: c.name,
      image: c.image,
      imageID: '',
      ready,
      restartCount: 0,
      started: true,
      state: { running: { startedAt: startTime } },
    })),
  } as Pod['status'];
}

/** The annotation that marks a mirror pod. upstream: pkg/kubelet/types/pod_update.go (ConfigMirrorAnnotationKey) */
const ANNOTATION_CONFIG_MIRROR = 'kubernetes.io/config.mirror';

function isMirrorPod(pod: Pod): boolean {
  return pod.metadata.annotations?.[ANNOTATION_CONFIG_MIRROR] !== undefined;
}

function isLive(pod: Pod): boolean {
  return !isPodTerminal(pod) && !isPodDeleting(pod);
}

function byAge(a: Pod, b: Pod): number {
  return (
    compareCodePoints(a.metadata.creationTimestamp ?? '', b.metadata.creationTimestamp ?? '') ||
    compareCodePoints(a.metadata.namespace ?? '', b.metadata.namespace ?? '') ||
    compareCodePoints(a.metadata.name ?? '', b.metadata.name ?? '')
  );
}

/** The lowest address of the CIDR not in `used`, past the network address and the bridge (offset 1); never the IPv4 broadcast. */
function lowestFreeIP(cidr: CIDR, used: ReadonlySet<string>): string | undefined {
  const size = cidrSize(cidr);
  const last = cidr.network.family === 4 ? size - 1n : size;
  // A pod CIDR of a node is at most a few thousand pods; the scan stops at the first free one.
  for (let offset = 2n; offset < last; offset++) {
    const ip = addressAtOffset(cidr, offset);
    if (!ip.ok) return undefined;
    const text = formatIP(ip.value);
    if (!used.has(text)) return text;
  }
  return undefined;
}

function canonical(ip: string): string {
  const parsed = parseIPSloppy(ip);
  return parsed.ok ? formatIP(parsed.value) : ip;
}

/**
 * The status of a pod whose containers were killed at the end of its grace period: each one
 * terminated by SIGKILL (exit code 137), none ready, and the pod Failed, as a kubelet reports a
 * deleted pod that did not stop by itself.
 */
function killedStatus(pod: Pod, now: number): Pod['status'] {
  const containers = containersOf(pod);
  const at = rfc3339(now);
  const startedAt = pod.status?.startTime ?? at;
  const notReady = { reason: 'ContainersNotReady', message: `containers with unready status: [${containers.map((c) => c.name).join(' ')}]` };
  const transition = (type: string): string => {
    const old = condition(pod, type);
    return old?.status === 'False' && typeof old.lastTransitionTime === 'string' ? old.lastTransitionTime : at;
  };
  return {
    ...pod.status,
    phase: 'Failed',
    conditions: (pod.status?.conditions ?? []).map((c) =>
      c.type === 'Ready' || c.type === 'ContainersReady' ? { type: c.type, status: 'False', lastProbeTime: null, lastTransitionTime: transition(c.type), ...notReady } : c,
    ),
    containerStatuses: containers.map((c) => ({
      name: c.name,
      image: c.image,
      imageID: '',
      ready: false,
      restartCount: 0,
      started: false,
      state: { terminated: { exitCode: 137, reason: 'Error', startedAt, finishedAt: at } },
    })),
  } as Pod['status'];
}

/**
 * A pod being deleted, once its deletionTimestamp has come: its containers killed (a status
 * write, when it ran and has not been reported stopped yet), then the final delete.
 */
function finishDeletion(pod: Pod, now: number): ReconcileAction[] {
  const actions: ReconcileAction[] = [];
  const started = pod.status?.startTime !== undefined && pod.status.startTime !== null;
  if (started && !isPodTerminal(pod)) actions.push(updateStatus(pod, killedStatus(pod, now)));
  actions.push({ kind: 'delete', resource: 'pods', namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '', gracePeriodSeconds: 0 });
  return actions;
}

function updateStatus(pod: Pod, status: Pod['status']): ReconcileAction {
  return { kind: 'update', resource: 'pods', namespace: pod.metadata.namespace ?? '', object: { ...pod, status } as KubeObject, subresource: 'status' };
}

function syncNode(node: ResolvedNode, cache: CacheView, now: number, readyAfterMs: number, kubeletVersion: string): ReconcileAction[] {
  const actions: ReconcileAction[] = [];
  if (cache.get<Node>('nodes', '', node.name) === undefined) actions.push({ kind: 'create', resource: 'nodes', namespace: '', object: nodeObject(node, kubeletVersion, now) });

  // A mirror pod stands for a static pod the kubelet runs from a file; its status and its end
  // come from there (the apiserver that published it), not from this loop.
  const onNode = cache
    .list<Pod>('pods')
    .filter((p) => p.spec?.nodeName === node.name && !isMirrorPod(p))
    .sort(byAge);
  const pods = onNode.filter(isLive);
  // A pod being deleted holds its address until it is gone.
  const used = new Set<string>();
  for (const p of onNode) if (!isPodTerminal(p)) for (const ip of podIPs(p)) used.add(canonical(ip));

  let nextCheck = Infinity;
  for (const pod of onNode) {
    if (!isPodDeleting(pod)) continue;
    const due = Date.parse(pod.metadata.deletionTimestamp ?? '');
    if (Number.isNaN(due) || now >= due) actions.push(...finishDeletion(pod, now));
    else nextCheck = Math.min(nextCheck, due);
  }
  for (const pod of pods) {
    const startTime = pod.status?.startTime ?? rfc3339(now);
    const readyAt = Date.parse(startTime) + readyAfterMs;
    const ready = now >= readyAt;
    const started = podIPs(pod).length > 0 && (pod.status?.hostIP ?? '') !== '' && pod.status?.startTime !== undefined && pod.status.startTime !== null;
    if (!started) {
      // Start the pod: an IP (the one it has, or the lowest free), Running, ready or not yet.
      let ip = podIPs(pod)[0];
      if (ip === undefined) {
        ip = lowestFreeIP(node.cidr, used);
        // No address left: the pod stays Pending, as a real node's IPAM would leave it.
        if (ip === undefined) continue;
        used.add(ip);
      }
      actions.push(updateStatus(pod, runningStatus(pod, ip, node, startTime, ready, readyAt)));
      if (!ready) nextCheck = Math.min(nextCheck, readyAt);
      continue;
    }
    // Once the containers are ready the kubelet is done: a Ready condition set by someone else
    // afterwards (a readiness flip on the status subresource) stays as it was set.
    if (condition(pod, 'ContainersReady')?.status === 'True') continue;
    if (ready) actions.push(updateStatus(pod, runningStatus(pod, podIPs(pod)[0] ?? '', node, startTime, true, readyAt)));
    else nextCheck = Math.min(nextCheck, readyAt);
  }
  if (nextCheck !== Infinity) actions.push({ kind: 'requeue-after', key: node.name, afterMs: Math.max(0, nextCheck - now) });
  return actions;
}

/**
 * The scheduler's step for an unscheduled pod, once every node of the kubelet is registered:
 * bind it to the node placement picks (by the labels the Node objects carry now), or leave it Pending with
 * PodScheduled=False, reason Unschedulable, and a FailedScheduling event when that condition is
 * new or says something new.
 */
function bindPod(key: string, nodes: readonly ResolvedNode[], cache: CacheView, now: number): ReconcileAction[] {
  const { namespace, name } = splitKey(key);
  const pod = cache.get<Pod>('pods', namespace, name);
  if (pod === undefined || (pod.spec?.nodeName ?? '') !== '' || !isLive(pod)) return [];
  const counts = new Map(nodes.map((n) => [n.name, 0]));
  // Pods the scheduler placed; a mirror pod (an apiserver's) was never scheduled and is not
  // counted, so user pods keep their round robin whatever runs on the control-plane node.
  for (const p of cache.list<Pod>('pods')) {
    const n = p.spec?.nodeName ?? '';
    if (counts.has(n) && isLive(p) && !isMirrorPod(p)) counts.set(n, (counts.get(n) ?? 0) + 1);
  }
  const registered: PlacementNode[] = [];
  for (const n of nodes) {
    const object = cache.get<Node>('nodes', '', n.name);
    // A node not registered yet (at the first start, or just deleted and about to be made
    // again): wait for it, since its ADDED event brings this pod back, rather than report a
    // failure about a cluster that is still coming up.
    if (object === undefined) return [];
    registered.push({ name: n.name, labels: object.metadata.labels ?? {}, pods: counts.get(n.name) ?? 0 });
  }
  const placement = placePod(pod, registered);
  if (placement.kind === 'bind') {
    // Upstream binds through the pods/binding subresource; a plain update of spec.nodeName
    // stands for it (docs/deviations.md).
    return [{ kind: 'update', resource: 'pods', namespace, object: { ...pod, spec: { ...pod.spec, nodeName: placement.node } } }];
  }
  const old = condition(pod, 'PodScheduled');
  if (old?.status === 'False' && old.reason === 'Unschedulable' && old.message === placement.message) return [];
  // The transition time moves only when the status does, as podutil.UpdatePodCondition keeps it.
  const lastTransitionTime = old?.status === 'False' && old.lastTransitionTime !== undefined ? old.lastTransitionTime : rfc3339(now);
  const scheduled: PodCondition = { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime, reason: 'Unschedulable', message: placement.message };
  const others = (pod.status?.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
  return [
    updateStatus(pod, { ...pod.status, phase: pod.status?.phase ?? 'Pending', conditions: [...others, scheduled] } as Pod['status']),
    {
      kind: 'event',
      event: {
        recorder: 'events/v1',
        type: 'Warning',
        reason: 'FailedScheduling',
        action: 'Scheduling',
        message: placement.message,
        reportingController: 'default-scheduler',
        regarding: { apiVersion: 'v1', kind: 'Pod', namespace, name, resource: 'pods' },
      },
    },
  ];
}

/** The pods waiting for a node: a node that appears or changes may now fit them, as the scheduler requeues them. */
function unscheduledPodKeys(cache: CacheView): string[] {
  return cache
    .list<Pod>('pods')
    .filter((p) => (p.spec?.nodeName ?? '') === '' && isLive(p))
    .map((p) => namespacedKey(p.metadata.namespace ?? '', p.metadata.name ?? ''));
}

/** The simulated kubelet as a keyed controller: `namespace/name` keys bind pods, node-name keys run a node. */
export function simulatedKubelet(options: SimulatedKubeletOptions): KeyedController {
  const nodes = resolveNodes(options);
  const readyAfterMs = options.readyAfterMs ?? 0;
  if (!Number.isFinite(readyAfterMs) || readyAfterMs < 0) throw new RangeError(`readyAfterMs must be a non-negative number, got ${readyAfterMs}`);
  const kubeletVersion = options.kubeletVersion ?? 'v1.33.0';
  const byName = new Map(nodes.map((n) => [n.name, n]));

  const keysFor = (change: CacheChange, cache: CacheView): string[] => {
    const { object, old } = change;
    if (change.resource === 'nodes') return byName.has(object.metadata.name ?? '') ? [object.metadata.name ?? '', ...unscheduledPodKeys(cache)] : [];
    if (change.resource !== 'pods' || object.kind !== 'Pod') return [];
    const keys = new Set<string>();
    const nodeName = object.spec?.nodeName ?? '';
    if (nodeName === '' && change.type !== 'DELETED') keys.add(namespacedKey(object.metadata.namespace ?? '', object.metadata.name ?? ''));
    if (byName.has(nodeName)) keys.add(nodeName);
    const oldNode = old?.kind === 'Pod' ? (old.spec?.nodeName ?? '') : '';
    if (byName.has(oldNode)) keys.add(oldNode);
    return [...keys];
  };

  return {
    name: 'simulated-kubelet',
    watches: ['pods', 'nodes'],
    keysFor,
    initialKeys: () => nodes.map((n) => n.name),
    reconcile: (key, cache, now) => {
      if (key.includes('/')) return bindPod(key, nodes, cache, now);
      const node = byName.get(key);
      return node === undefined ? [] : syncNode(node, cache, now, readyAfterMs, kubeletVersion);
    },
  };
}

