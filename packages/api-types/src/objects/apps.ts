// apps/v1 Deployment and ReplicaSet, and the autoscaling/v1 Scale their /scale subresource
// speaks, with metav1.LabelSelector. The pod template's spec is kept as it came (a Pod's
// containers are not modelled here either); the controllers copy it into the pods they make.
// upstream (v1.33): staging/src/k8s.io/api/apps/v1/types.go (Deployment, DeploymentSpec,
//           DeploymentStrategy, RollingUpdateDeployment, DeploymentStatus, DeploymentCondition,
//           ReplicaSet, ReplicaSetSpec, ReplicaSetStatus, ReplicaSetCondition),
//           staging/src/k8s.io/api/autoscaling/v1/types.go (Scale, ScaleSpec, ScaleStatus),
//           staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (LabelSelector)
import { z } from 'zod';
import { ObjectMetaSchema } from './meta.js';
import { int32, int64, intOrString, openEnum, stringMap, timestamp } from './schema-helpers.js';

export const APPS_API_VERSION = 'apps/v1';
export const AUTOSCALING_API_VERSION = 'autoscaling/v1';

export const LABEL_SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

export const LabelSelectorRequirementSchema = z.looseObject({
  key: z.string(),
  operator: openEnum(LABEL_SELECTOR_OPERATORS),
  values: z.array(z.string()).nullable().optional(),
});
export type LabelSelectorRequirement = z.infer<typeof LabelSelectorRequirementSchema>;

export const LabelSelectorSchema = z.looseObject({
  matchLabels: stringMap.nullable().optional(),
  matchExpressions: z.array(LabelSelectorRequirementSchema).nullable().optional(),
});
export type LabelSelector = z.infer<typeof LabelSelectorSchema>;

export const PodTemplateSpecSchema = z.looseObject({
  metadata: ObjectMetaSchema.optional(),
  // Containers, volumes and the rest of a PodSpec: kept as they came.
  spec: z.record(z.string(), z.unknown()).optional(),
});
export type PodTemplateSpec = z.infer<typeof PodTemplateSpecSchema>;

export const DEPLOYMENT_STRATEGY_TYPES = ['Recreate', 'RollingUpdate'] as const;
export type DeploymentStrategyType = (typeof DEPLOYMENT_STRATEGY_TYPES)[number];

export const DeploymentStrategySchema = z.looseObject({
  type: openEnum(DEPLOYMENT_STRATEGY_TYPES).optional(),
  rollingUpdate: z
    .looseObject({
      maxUnavailable: intOrString.optional(),
      maxSurge: intOrString.optional(),
    })
    .nullable()
    .optional(),
});
export type DeploymentStrategy = z.infer<typeof DeploymentStrategySchema>;

/** DeploymentCondition and ReplicaSetCondition (a ReplicaSet's has no lastUpdateTime). */
export const AppsConditionSchema = z.looseObject({
  type: z.string(),
  status: z.string(),
  lastUpdateTime: timestamp.optional(),
  lastTransitionTime: timestamp.optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});
export type AppsCondition = z.infer<typeof AppsConditionSchema>;

export const DeploymentSpecSchema = z.looseObject({
  replicas: int32.optional(),
  selector: LabelSelectorSchema.nullable().optional(),
  template: PodTemplateSpecSchema.optional(),
  strategy: DeploymentStrategySchema.optional(),
  minReadySeconds: int32.optional(),
  revisionHistoryLimit: int32.optional(),
  paused: z.boolean().optional(),
  progressDeadlineSeconds: int32.optional(),
});
export type DeploymentSpec = z.infer<typeof DeploymentSpecSchema>;

export const DeploymentStatusSchema = z.looseObject({
  observedGeneration: int64.optional(),
  replicas: int32.optional(),
  updatedReplicas: int32.optional(),
  readyReplicas: int32.optional(),
  availableReplicas: int32.optional(),
  unavailableReplicas: int32.optional(),
  terminatingReplicas: int32.optional(),
  conditions: z.array(AppsConditionSchema).optional(),
  collisionCount: int32.optional(),
});
export type DeploymentStatus = z.infer<typeof DeploymentStatusSchema>;

export const DeploymentSchema = z.looseObject({
  apiVersion: z.literal(APPS_API_VERSION),
  kind: z.literal('Deployment'),
  metadata: ObjectMetaSchema,
  spec: DeploymentSpecSchema.optional(),
  status: DeploymentStatusSchema.optional(),
});
export type Deployment = z.infer<typeof DeploymentSchema>;

export const ReplicaSetSpecSchema = z.looseObject({
  replicas: int32.optional(),
  minReadySeconds: int32.optional(),
  selector: LabelSelectorSchema.nullable().optional(),
  template: PodTemplateSpecSchema.optional(),
});
export type ReplicaSetSpec = z.infer<typeof ReplicaSetSpecSchema>;

export const ReplicaSetStatusSchema = z.looseObject({
  replicas: int32.optional(),
  fullyLabeledReplicas: int32.optional(),
  readyReplicas: int32.optional(),
  availableReplicas: int32.optional(),
  terminatingReplicas: int32.optional(),
  observedGeneration: int64.optional(),
  conditions: z.array(AppsConditionSchema).optional(),
});
export type ReplicaSetStatus = z.infer<typeof ReplicaSetStatusSchema>;

export const ReplicaSetSchema = z.looseObject({
  apiVersion: z.literal(APPS_API_VERSION),
  kind: z.literal('ReplicaSet'),
  metadata: ObjectMetaSchema,
  spec: ReplicaSetSpecSchema.optional(),
  status: ReplicaSetStatusSchema.optional(),
});
export type ReplicaSet = z.infer<typeof ReplicaSetSchema>;

export const ScaleSchema = z.looseObject({
  apiVersion: z.literal(AUTOSCALING_API_VERSION),
  kind: z.literal('Scale'),
  metadata: ObjectMetaSchema,
  spec: z.looseObject({ replicas: int32.optional() }).optional(),
  status: z.looseObject({ replicas: int32, selector: z.string().optional() }).optional(),
});
export type Scale = z.infer<typeof ScaleSchema>;
