// metav1.ObjectMeta, ListMeta, OwnerReference and core/v1 ObjectReference.
// upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go,
//           staging/src/k8s.io/api/core/v1/types.go (ObjectReference)
import { z } from 'zod';
import { int64, stringMap, timestamp } from './schema-helpers.js';

export const OwnerReferenceSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  uid: z.string(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});
export type OwnerReference = z.infer<typeof OwnerReferenceSchema>;

export const ObjectMetaSchema = z.looseObject({
  name: z.string().optional(),
  generateName: z.string().optional(),
  namespace: z.string().optional(),
  selfLink: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: int64.optional(),
  creationTimestamp: timestamp.optional(),
  deletionTimestamp: timestamp.optional(),
  deletionGracePeriodSeconds: int64.optional(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
  ownerReferences: z.array(OwnerReferenceSchema).optional(),
  finalizers: z.array(z.string()).optional(),
});
export type ObjectMeta = z.infer<typeof ObjectMetaSchema>;

export const ListMetaSchema = z.looseObject({
  selfLink: z.string().optional(),
  resourceVersion: z.string().optional(),
  continue: z.string().optional(),
  remainingItemCount: int64.optional(),
});
export type ListMeta = z.infer<typeof ListMetaSchema>;

export const ObjectReferenceSchema = z.looseObject({
  kind: z.string().optional(),
  namespace: z.string().optional(),
  name: z.string().optional(),
  uid: z.string().optional(),
  apiVersion: z.string().optional(),
  resourceVersion: z.string().optional(),
  fieldPath: z.string().optional(),
});
export type ObjectReference = z.infer<typeof ObjectReferenceSchema>;
