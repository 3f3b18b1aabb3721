// Placement of pods on the simulated kubelet's nodes: the nodeSelector filter, the spread, and
// the scheduler's message when no node fits (INV-KUBELET-PLACEMENT, a row in docs/invariants.md).
import { fc, test } from '@fast-check/vitest';
import type { Pod } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { NO_NODES_AVAILABLE, nodeSelectorMatches, placePod, unschedulableMessage, type PlacementNode } from './node-placement.js';

const ZONE = 'topology.kubernetes.io/zone';

function pod(nodeSelector?: Record<string, string>): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [], ...(nodeSelector === undefined ? {} : { nodeSelector }) } } as Pod;
}

const zoned = (zones: readonly string[], pods: readonly number[] = zones.map(() => 0)): PlacementNode[] =>
  zones.map((z, i) => ({ name: `n${i + 1}`, labels: { [ZONE]: z, 'kubernetes.io/hostname': `n${i + 1}` }, pods: pods[i] ?? 0 }));

describe('nodeSelectorMatches', () => {
  it('needs every pair of the selector among the labels, with the same value', () => {
    const labels = { [ZONE]: 'a', 'kubernetes.io/os': 'linux' };
    expect(nodeSelectorMatches(undefined, labels)).toBe(true);
    expect(nodeSelectorMatches({}, labels)).toBe(true);
    expect(nodeSelectorMatches({ [ZONE]: 'a' }, labels)).toBe(true);
    expect(nodeSelectorMatches({ [ZONE]: 'a', 'kubernetes.io/os': 'linux' }, labels)).toBe(true);
    expect(nodeSelectorMatches({ [ZONE]: 'b' }, labels)).toBe(false);
    expect(nodeSelectorMatches({ [ZONE]: 'a', disk: 'ssd' }, labels)).toBe(false);
    // An empty value matches only a label that is there with an empty value.
    expect(nodeSelectorMatches({ disk: '' }, labels)).toBe(false);
    expect(nodeSelectorMatches({ disk: '' }, { disk: '' })).toBe(true);
    // Not an inherited property of a plain object.
    expect(nodeSelectorMatches({ toString: 'x' }, {})).toBe(false);
  });
});

describe('placePod', () => {
  it('takes the node with the fewest pods, the first given on a tie', () => {
    expect(placePod(pod(), zoned(['a', 'b', 'c']))).toEqual({ kind: 'bind', node: 'n1' });
    expect(placePod(pod(), zoned(['a', 'b', 'c'], [1, 0, 0]))).toEqual({ kind: 'bind', node: 'n2' });
    expect(placePod(pod(), zoned(['a', 'b', 'c'], [1, 1, 0]))).toEqual({ kind: 'bind', node: 'n3' });
    expect(placePod(pod(), zoned(['a', 'b', 'c'], [2, 1, 1]))).toEqual({ kind: 'bind', node: 'n2' });
  });

  it('keeps to the nodes its nodeSelector matches, however loaded', () => {
    expect(placePod(pod({ [ZONE]: 'b' }), zoned(['a', 'b', 'c'], [0, 9, 0]))).toEqual({ kind: 'bind', node: 'n2' });
    expect(placePod(pod({ [ZONE]: 'a' }), zoned(['a', 'b', 'a'], [3, 0, 2]))).toEqual({ kind: 'bind', node: 'n3' });
  });

  it('keeps to the nodes its required node affinity matches, as to those of its nodeSelector', () => {
    const inZones = (zones: string[]) =>
      ({
        ...pod(),
        spec: { containers: [], affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: zones }] }] } } } },
      }) as Pod;
    expect(placePod(inZones(['b', 'c']), zoned(['a', 'b', 'c'], [0, 2, 1]))).toEqual({ kind: 'bind', node: 'n3' });
    expect(placePod(inZones(['x']), zoned(['a', 'b', 'c']))).toEqual({
      kind: 'unschedulable',
      message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    });
  });

  // upstream (v1.33): the message a default kube-scheduler writes for a nodeSelector no node
  // matches, as `kubectl describe pod` shows it on a 3-node cluster.
  it("refuses with the scheduler's message when no node matches", () => {
    expect(placePod(pod({ [ZONE]: 'x' }), zoned(['a', 'b', 'c']))).toEqual({
      kind: 'unschedulable',
      message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    });
    expect(placePod(pod({ [ZONE]: 'x' }), zoned(['a']))).toEqual({
      kind: 'unschedulable',
      message: "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
    });
    expect(placePod(pod(), [])).toEqual({ kind: 'unschedulable', message: NO_NODES_AVAILABLE });
  });

  it("sorts the reasons' histogram as strings, as FitError.Error does", () => {
    const reasons = new Map([
      ["node(s) didn't match Pod's node affinity/selector", 2],
      ['node(s) had untolerated taint(s)', 1],
    ]);
    expect(unschedulableMessage(3, reasons)).toBe(
      "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
  });
});

// --- Properties: pods placed one after another, each counted on its node ----------------------

const ZONES = ['a', 'b', 'c'] as const;

/** Places the pods in turn, as the kubelet binds a stream of new pods; returns each one's node (or undefined) and the final counts. */
function placeAll(nodes: readonly PlacementNode[], selectors: readonly (string | undefined)[]): { placed: (string | undefined)[]; counts: number[] } {
  const counts = nodes.map((n) => n.pods);
  const placed = selectors.map((zone) => {
    const p = placePod(
      pod(zone === undefined ? undefined : { [ZONE]: zone }),
      nodes.map((n, i) => ({ ...n, pods: counts[i] ?? 0 })),
    );
    if (p.kind === 'unschedulable') return undefined;
    const i = nodes.findIndex((n) => n.name === p.node);
    counts[i] = (counts[i] ?? 0) + 1;
    return p.node;
  });
  return { placed, counts };
}

const nodeZones = fc.array(fc.constantFrom(...ZONES), { minLength: 1, maxLength: 6 });

test.prop([nodeZones, fc.array(fc.option(fc.constantFrom(...ZONES, 'x'), { nil: undefined }), { maxLength: 30 })])(
  "INV-KUBELET-PLACEMENT: every placed pod's node matches its nodeSelector, and a pod is refused only when no node does",
  (zones, selectors) => {
    const nodes = zoned(zones);
    const { placed } = placeAll(nodes, selectors);
    selectors.forEach((zone, i) => {
      const node = placed[i];
      const fits = nodes.filter((n) => zone === undefined || n.labels[ZONE] === zone);
      if (node === undefined) expect(fits).toEqual([]);
      else expect(fits.map((n) => n.name)).toContain(node);
    });
  },
);

test.prop([fc.integer({ min: 1, max: 8 }), fc.array(fc.nat({ max: 3 }), { maxLength: 8 }), fc.nat({ max: 40 })])(
  'INV-KUBELET-PLACEMENT: unconstrained pods leave the nodes within one pod of each other once the spread is even, and fill the emptiest first',
  (n, start, count) => {
    // Whatever the nodes held before, each pod goes to a node with the fewest; once the counts
    // are within one of each other they stay so, and pods placed on equal nodes go in node order.
    const nodes = Array.from({ length: n }, (_, i) => ({ name: `n${i + 1}`, labels: {}, pods: start[i] ?? 0 }));
    const counts = nodes.map((x) => x.pods);
    for (let k = 0; k < count; k++) {
      const p = placePod(pod(), nodes.map((x, i) => ({ ...x, pods: counts[i] ?? 0 })));
      if (p.kind !== 'bind') throw new Error('an unconstrained pod was refused');
      const i = nodes.findIndex((x) => x.name === p.node);
      const min = Math.min(...counts);
      expect(counts[i]).toBe(min);
      expect(counts.findIndex((c) => c === min)).toBe(i);
      counts[i] = (counts[i] ?? 0) + 1;
    }
    const evenFromStart = Math.max(...start.slice(0, n), 0) - Math.min(...nodes.map((x) => x.pods)) <= 1;
    if (evenFromStart) expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  },
);

test.prop([fc.integer({ min: 1, max: 8 }), fc.nat({ max: 40 })])('INV-KUBELET-PLACEMENT: on empty nodes, pod k goes to node k mod N (round robin)', (n, count) => {
  const nodes = Array.from({ length: n }, (_, i) => ({ name: `n${i + 1}`, labels: {}, pods: 0 }));
  const { placed } = placeAll(nodes, Array.from({ length: count }, () => undefined));
  expect(placed).toEqual(Array.from({ length: count }, (_, k) => `n${(k % n) + 1}`));
});
