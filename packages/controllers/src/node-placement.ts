// The scheduler's part of the simulated kubelet: which of its nodes a new pod goes to, or why
// none fits, in the words kube-scheduler writes into the pod's PodScheduled condition.
//
// The one filter is the NodeAffinity plugin's: every pair of `spec.nodeSelector` must be a label
// of the node, and one of the terms of `spec.affinity.nodeAffinity.
// requiredDuringSchedulingIgnoredDuringExecution` (if any) must match it. Among the nodes that pass, the pod goes to the one with the fewest live
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
import { isQualifiedName, isValidLabelValue, type Pod } from '@kubesvc/api-types';

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

interface Requirement {
  readonly key?: unknown;
  readonly operator?: unknown;
  readonly values?: unknown;
}

interface Term {
  readonly matchExpressions?: readonly Requirement[] | null;
  readonly matchFields?: readonly Requirement[] | null;
}

const INT64 = /^[+-]?\d+$/;

function valuesOf(r: Requirement): string[] {
  return Array.isArray(r.values) ? r.values.map((v) => String(v)) : [];
}

/**
 * One label requirement of a term: whether it matches, or undefined when it does not parse (a
 * bad operator, key or value, or the wrong number of values), which fails its whole term.
 * upstream (v1.33): staging/src/k8s.io/apimachinery/pkg/labels/selector.go (NewRequirement, Matches)
 */
function requirementMatches(r: Requirement, labels: Readonly<Record<string, string>>): boolean | undefined {
  const key = typeof r.key === 'string' ? r.key : '';
  if (isQualifiedName(key).length > 0) return undefined;
  const values = valuesOf(r);
  const has = Object.hasOwn(labels, key);
  const value = has ? (labels[key] ?? '') : undefined;
  switch (r.operator) {
    case 'In':
    case 'NotIn': {
      if (values.length === 0 || values.some((v) => isValidLabelValue(v).length > 0)) return undefined;
      const inSet = value !== undefined && values.includes(value);
      return r.operator === 'In' ? inSet : !inSet;
    }
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) return undefined;
      return r.operator === 'Exists' ? has : !has;
    case 'Gt':
    case 'Lt': {
      const [bound] = values;
      if (values.length !== 1 || bound === undefined || !INT64.test(bound)) return undefined;
      if (value === undefined || !INT64.test(value)) return false;
      return r.operator === 'Gt' ? BigInt(value) > BigInt(bound) : BigInt(value) < BigInt(bound);
    }
    default:
      return undefined;
  }
}

/** One field requirement: `metadata.name` In or NotIn exactly one value; undefined when it does not parse. */
function fieldMatches(r: Requirement, nodeName: string): boolean | undefined {
  const values = valuesOf(r);
  if ((r.operator !== 'In' && r.operator !== 'NotIn') || values.length !== 1) return undefined;
  // A field the node does not have is never equal to the value.
  const equal = r.key === 'metadata.name' && nodeName === values[0];
  return r.operator === 'In' ? equal : !equal;
}

/** A term: its label requirements ANDed, then its field requirements ANDed (skipped for a node with no name); an empty term matches nothing. */
function termMatches(term: Term, node: { readonly name: string; readonly labels: Readonly<Record<string, string>> }): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  const labelResults = expressions.map((r) => requirementMatches(r, node.labels));
  const fieldResults = fields.map((r) => fieldMatches(r, node.name));
  if (labelResults.includes(undefined) || fieldResults.includes(undefined)) return false;
  if (labelResults.includes(false)) return false;
  return node.name === '' || !fieldResults.includes(false);
}

/**
 * The NodeAffinity plugin's Filter: the nodeSelector (a label set) and the required node
 * affinity (terms ORed) both match the node. A term that does not parse matches nothing.
 * upstream (v1.33): staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go
 *           (GetRequiredNodeAffinity, RequiredNodeAffinity.Match, LazyErrorNodeSelector.Match)
 */
export function nodeAffinityMatches(pod: Pod, node: { readonly name: string; readonly labels: Readonly<Record<string, string>> }): boolean {
  if (!nodeSelectorMatches(nodeSelectorOf(pod), node.labels)) return false;
  const affinity = (pod.spec as { affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: readonly Term[] | null } | null } | null } | null } | undefined)
    ?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (affinity === undefined || affinity === null) return true;
  return (affinity.nodeSelectorTerms ?? []).some((t) => termMatches(t, node));
}

/** Where the scheduler puts `pod` among `nodes` (in the kubelet's order), or why it cannot. */
export function placePod(pod: Pod, nodes: readonly PlacementNode[]): Placement {
  if (nodes.length === 0) return { kind: 'unschedulable', message: NO_NODES_AVAILABLE };
  let best: PlacementNode | undefined;
  let refused = 0;
  for (const node of nodes) {
    if (!nodeAffinityMatches(pod, node)) {
      refused++;
      continue;
    }
    if (best === undefined || node.pods < best.pods) best = node;
  }
  if (best !== undefined) return { kind: 'bind', node: best.name };
  return { kind: 'unschedulable', message: unschedulableMessage(nodes.length, new Map([[NODE_SELECTOR_MISMATCH, refused]])) };
}
