// The scheduler's part of the simulated kubelet: which of its nodes a new pod goes to, or why
// none fits, in the words kube-scheduler writes into the pod's PodScheduled condition.
//
// The one filter is the NodeAffinity plugin's check of `spec.nodeSelector`: every pair of it must
// be a label of the node. Among the nodes that pass, the pod goes to the one with the fewest live
// pods, the earliest in the kubelet's node order on a tie: a stream of pods takes the nodes in
// turn (round robin), and the choice depends on nothing but the pods and the nodes.
// upstream (v1.33): pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go (Filter,
//           ErrReasonPod), staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity
//           (GetRequiredNodeAffinity: the nodeSelector matched as a label set),
//           pkg/scheduler/framework/types.go (FitError.Error: the reasons' histogram),
//           pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go (PostFilter:
//           the "preemption: " message), pkg/scheduler/framework/preemption/preemption.go (a node
//           refused as UnschedulableAndUnresolvable is one where preemption is not helpful),
//           pkg/scheduler/schedule_one.go (ErrNoNodesAvailable when the cluster has no node)
import type { Pod } from '@kubesvc/api-types';

/** A node as placement sees it: its labels and how many live pods it runs now. */
export interface PlacementNode {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly pods: number;
}

export type Placement =
  | { readonly kind: 'bind'; readonly node: string }
  /** No node fits: the PodScheduled=False condition's message, as kube-scheduler writes it. */
  | { readonly kind: 'unschedulable'; readonly message: string };

/** The NodeAffinity plugin's reason for a node whose labels the pod's nodeSelector does not match. */
export const NODE_SELECTOR_MISMATCH = "node(s) didn't match Pod's node affinity/selector";

/** What the scheduler says when the cluster has no node at all. */
export const NO_NODES_AVAILABLE = 'no nodes available to schedule pods';

/** Whether a node's labels satisfy a nodeSelector: every pair is a label of the node (an empty or absent selector matches every node). */
export function nodeSelectorMatches(selector: Readonly<Record<string, string>> | undefined, labels: Readonly<Record<string, string>>): boolean {
  if (selector === undefined) return true;
  return Object.entries(selector).every(([key, value]) => Object.hasOwn(labels, key) && labels[key] === value);
}

/** The pod's nodeSelector, as far as it is a map of strings. */
function nodeSelectorOf(pod: Pod): Readonly<Record<string, string>> | undefined {
  const selector = (pod.spec as { nodeSelector?: unknown } | undefined)?.nodeSelector;
  if (selector === undefined || selector === null || typeof selector !== 'object') return undefined;
  return Object.fromEntries(Object.entries(selector as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
}

/**
 * kube-scheduler's FitError message when every node was refused: `0/N nodes are available:`, the
 * reasons counted and sorted, then the default preemption plugin's own FitError (prefixed
 * `preemption: `), which counts every node refused for good as one where preemption does not help.
 */
export function unschedulableMessage(numAllNodes: number, reasons: ReadonlyMap<string, number>): string {
  const histogram = (counts: ReadonlyMap<string, number>): string =>
    [...counts]
      .map(([reason, n]) => `${n} ${reason}`)
      .sort()
      .join(', ');
  const head = `0/${numAllNodes} nodes are available:`;
  const preemption = `${head} ${numAllNodes} Preemption is not helpful for scheduling.`;
  return `${head} ${histogram(reasons)}. preemption: ${preemption}`;
}

/** Where the scheduler puts `pod` among `nodes` (in the kubelet's order), or why it cannot. */
export function placePod(pod: Pod, nodes: readonly PlacementNode[]): Placement {
  if (nodes.length === 0) return { kind: 'unschedulable', message: NO_NODES_AVAILABLE };
  const selector = nodeSelectorOf(pod);
  let best: PlacementNode | undefined;
  let refused = 0;
  for (const node of nodes) {
    if (!nodeSelectorMatches(selector, node.labels)) {
      refused++;
      continue;
    }
    if (best === undefined || node.pods < best.pods) best = node;
  }
  if (best !== undefined) return { kind: 'bind', node: best.name };
  return { kind: 'unschedulable', message: unschedulableMessage(nodes.length, new Map([[NODE_SELECTOR_MISMATCH, refused]])) };
}
