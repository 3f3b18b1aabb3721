// The NodeAffinity plugin's Filter cases, transcribed from upstream as a table: a pod, the
// labels (and name) of one node, and whether the node passes.
// upstream (v1.33): pkg/scheduler/framework/plugins/nodeaffinity/node_affinity_test.go (TestNodeAffinity;
//           the cases whose outcome is the Filter's, before the scheduler-enforced addedAffinity ones)
import type { Pod } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { nodeAffinityMatches } from './node-placement.js';

interface Case {
  readonly name: string;
  readonly spec: Record<string, unknown>;
  readonly labels?: Record<string, string>;
  readonly nodeName?: string;
  /** false: the Filter answers UnschedulableAndUnresolvable with ErrReasonPod. */
  readonly fits: boolean;
}

type Requirement = { key: string; operator: string; values?: string[] };

const required = (...terms: { matchExpressions?: Requirement[]; matchFields?: Requirement[] }[]) => ({
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } },
});

const CASES: readonly Case[] = [
  { name: 'missing labels', spec: { nodeSelector: { foo: 'bar' } }, fits: false },
  { name: 'same labels', spec: { nodeSelector: { foo: 'bar' } }, labels: { foo: 'bar' }, fits: true },
  { name: 'node labels are superset', spec: { nodeSelector: { foo: 'bar' } }, labels: { foo: 'bar', baz: 'blah' }, fits: true },
  { name: 'node labels are subset', spec: { nodeSelector: { foo: 'bar', baz: 'blah' } }, labels: { foo: 'bar' }, fits: false },
  {
    name: 'Pod with matchExpressions using In operator that matches the existing node',
    spec: required({ matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar', 'value2'] }] }),
    labels: { foo: 'bar' },
    fits: true,
  },
  {
    name: 'Pod with matchExpressions using Gt operator that matches the existing node',
    spec: required({ matchExpressions: [{ key: 'kernel-version', operator: 'Gt', values: ['0204'] }] }),
    labels: { 'kernel-version': '0206' },
    fits: true,
  },
  {
    name: 'Pod with matchExpressions using NotIn operator that matches the existing node',
    spec: required({ matchExpressions: [{ key: 'mem-type', operator: 'NotIn', values: ['DDR', 'DDR2'] }] }),
    labels: { 'mem-type': 'DDR3' },
    fits: true,
  },
  {
    name: 'Pod with matchExpressions using Exists operator that matches the existing node',
    spec: required({ matchExpressions: [{ key: 'GPU', operator: 'Exists' }] }),
    labels: { GPU: 'NVIDIA-GRID-K1' },
    fits: true,
  },
  {
    name: "Pod with affinity that don't match node's labels won't schedule onto the node",
    spec: required({ matchExpressions: [{ key: 'foo', operator: 'In', values: ['value1', 'value2'] }] }),
    labels: { foo: 'bar' },
    fits: false,
  },
  {
    name: 'Pod with empty MatchExpressions is not a valid value will match no objects and won\'t schedule onto the node',
    spec: required({ matchExpressions: [] }),
    labels: { foo: 'bar' },
    fits: false,
  },
  { name: 'Pod with no Affinity will schedule onto a node', spec: {}, labels: { foo: 'bar' }, fits: true },
  {
    name: 'Pod with Affinity but nil NodeSelector will schedule onto a node',
    spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: null } } },
    labels: { foo: 'bar' },
    fits: true,
  },
  {
    name: 'Pod with multiple matchExpressions ANDed that matches the existing node',
    spec: required({
      matchExpressions: [
        { key: 'GPU', operator: 'Exists' },
        { key: 'GPU', operator: 'NotIn', values: ['AMD', 'INTER'] },
      ],
    }),
    labels: { GPU: 'NVIDIA-GRID-K1' },
    fits: true,
  },
  {
    name: "Pod with multiple matchExpressions ANDed that doesn't match the existing node",
    spec: required({
      matchExpressions: [
        { key: 'GPU', operator: 'Exists' },
        { key: 'GPU', operator: 'In', values: ['AMD', 'INTER'] },
      ],
    }),
    labels: { GPU: 'NVIDIA-GRID-K1' },
    fits: false,
  },
  {
    name: "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will schedule onto the node",
    spec: required(
      { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar', 'value2'] }] },
      { matchExpressions: [{ key: 'diffkey', operator: 'In', values: ['wrong', 'value2'] }] },
    ),
    labels: { foo: 'bar' },
    fits: true,
  },
  {
    name: 'Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) both are satisfied, will schedule onto the node',
    spec: { nodeSelector: { foo: 'bar' }, ...required({ matchExpressions: [{ key: 'foo', operator: 'Exists' }] }) },
    labels: { foo: 'bar' },
    fits: true,
  },
  {
    name: "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing that we are deprecating) is not satisfied, won't schedule onto the node",
    spec: { nodeSelector: { foo: 'bar' }, ...required({ matchExpressions: [{ key: 'foo', operator: 'Exists' }] }) },
    labels: { foo: 'barrrrrr' },
    fits: false,
  },
  {
    name: "Pod with an invalid value in Affinity term won't be scheduled onto the node",
    spec: required({ matchExpressions: [{ key: 'foo', operator: 'NotIn', values: ['invalid value: ___@#$%^'] }] }),
    labels: { foo: 'bar' },
    fits: false,
  },
  {
    name: 'Pod with matchFields using In operator that matches the existing node',
    spec: required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] }),
    nodeName: 'node1',
    fits: true,
  },
  {
    name: 'Pod with matchFields using In operator that does not match the existing node',
    spec: required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node1'] }] }),
    nodeName: 'node2',
    fits: false,
  },
  {
    name: 'Pod with two terms: matchFields does not match, but matchExpressions matches',
    spec: required(
      {
        matchFields: [
          { key: 'metadata.name', operator: 'In', values: ['node1'] },
          { key: 'metadata.name', operator: 'In', values: ['node2'] },
        ],
      },
      { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] },
    ),
    nodeName: 'node2',
    labels: { foo: 'bar' },
    fits: true,
  },
];

describe('NodeAffinity Filter (upstream TestNodeAffinity)', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: c.spec } as Pod;
    expect(nodeAffinityMatches(pod, { name: c.nodeName ?? '', labels: c.labels ?? {} })).toBe(c.fits);
  });
});
