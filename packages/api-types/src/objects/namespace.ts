// core/v1 Namespace.
// upstream: staging/src/k8s.io/api/core/v1/types.go (Namespace, NamespaceSpec, NamespaceStatus)
import { z } from 'zod';
import { ObjectMetaSchema } from './meta.js';
import { openEnum } from './schema-helpers.js';

export const NAMESPACE_PHASES = ['Active', 'Terminating'] as const;

export const NamespaceSchema = z.looseObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('Namespace'),
  metadata: ObjectMetaSchema,
  spec: z.looseObject({ finalizers: z.array(z.string()).optional() }).optional(),
  status: z.looseObject({ phase: openEnum(NAMESPACE_PHASES).optional() }).optional(),
});
export type Namespace = z.infer<typeof NamespaceSchema>;
