// apps/v1 Deployment and ReplicaSet and the messages below them, with the v1.33 field numbers
// of upstream's generated.proto and the pointer and omitempty facts of the Go types: kubectl's
// typed clients (`kubectl create deployment`) send these as protobuf.
// upstream (v1.33): staging/src/k8s.io/api/apps/v1/{generated.proto,types.go},
//           staging/src/k8s.io/api/core/v1/generated.proto (PodTemplateSpec)
import { IntOrString, ObjectMeta, Time } from './messages.js';
import { LabelSelector, PodSpec } from './pod-messages.js';
import { list, message, one, type MessageSpec } from './schema.js';

const PTR = { pointer: true } as const;
const KEEP = { keep: true } as const;
const METADATA = { go: 'ObjectMeta' } as const;

const PodTemplateSpec: MessageSpec = message('PodTemplateSpec', [one(1, 'metadata', () => ObjectMeta, METADATA), one(2, 'spec', () => PodSpec)]);

const RollingUpdateDeployment: MessageSpec = message('RollingUpdateDeployment', [one(1, 'maxUnavailable', () => IntOrString, PTR), one(2, 'maxSurge', () => IntOrString, PTR)]);

const DeploymentStrategy: MessageSpec = message('DeploymentStrategy', [one(1, 'type', 'string'), one(2, 'rollingUpdate', () => RollingUpdateDeployment, PTR)]);

const DeploymentSpec: MessageSpec = message('DeploymentSpec', [
  one(1, 'replicas', 'int32', PTR),
  one(2, 'selector', () => LabelSelector, { pointer: true, keep: true }),
  one(3, 'template', () => PodTemplateSpec, KEEP),
  one(4, 'strategy', () => DeploymentStrategy),
  one(5, 'minReadySeconds', 'int32'),
  one(6, 'revisionHistoryLimit', 'int32', PTR),
  one(7, 'paused', 'bool'),
  one(9, 'progressDeadlineSeconds', 'int32', PTR),
]);

const DeploymentCondition: MessageSpec = message('DeploymentCondition', [
  one(1, 'type', 'string', KEEP),
  one(2, 'status', 'string', KEEP),
  one(6, 'lastUpdateTime', () => Time),
  one(7, 'lastTransitionTime', () => Time),
  one(4, 'reason', 'string'),
  one(5, 'message', 'string'),
]);

const DeploymentStatus: MessageSpec = message('DeploymentStatus', [
  one(1, 'observedGeneration', 'int64'),
  one(2, 'replicas', 'int32'),
  one(3, 'updatedReplicas', 'int32'),
  one(7, 'readyReplicas', 'int32'),
  one(4, 'availableReplicas', 'int32'),
  one(5, 'unavailableReplicas', 'int32'),
  one(9, 'terminatingReplicas', 'int32', PTR),
  list(6, 'conditions', () => DeploymentCondition),
  one(8, 'collisionCount', 'int32', PTR),
]);

export const Deployment: MessageSpec = message('Deployment', [one(1, 'metadata', () => ObjectMeta, METADATA), one(2, 'spec', () => DeploymentSpec), one(3, 'status', () => DeploymentStatus)]);

const ReplicaSetSpec: MessageSpec = message('ReplicaSetSpec', [
  one(1, 'replicas', 'int32', PTR),
  one(4, 'minReadySeconds', 'int32'),
  one(2, 'selector', () => LabelSelector, { pointer: true, keep: true }),
  one(3, 'template', () => PodTemplateSpec),
]);

const ReplicaSetCondition: MessageSpec = message('ReplicaSetCondition', [
  one(1, 'type', 'string', KEEP),
  one(2, 'status', 'string', KEEP),
  one(3, 'lastTransitionTime', () => Time),
  one(4, 'reason', 'string'),
  one(5, 'message', 'string'),
]);

const ReplicaSetStatus: MessageSpec = message('ReplicaSetStatus', [
  one(1, 'replicas', 'int32', KEEP),
  one(2, 'fullyLabeledReplicas', 'int32'),
  one(4, 'readyReplicas', 'int32'),
  one(5, 'availableReplicas', 'int32'),
  one(7, 'terminatingReplicas', 'int32', PTR),
  one(3, 'observedGeneration', 'int64'),
  list(6, 'conditions', () => ReplicaSetCondition),
]);

export const ReplicaSet: MessageSpec = message('ReplicaSet', [one(1, 'metadata', () => ObjectMeta, METADATA), one(2, 'spec', () => ReplicaSetSpec), one(3, 'status', () => ReplicaSetStatus)]);
