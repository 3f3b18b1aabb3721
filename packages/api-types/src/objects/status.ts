// metav1.Status: what the API returns for a failed (or some successful) request.
// upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (Status, StatusDetails, StatusCause)
import { z } from 'zod';
import { ListMetaSchema, ObjectMetaSchema } from './meta.js';
import { int32, openEnum } from './schema-helpers.js';

export const StatusCauseSchema = z.looseObject({
  reason: z.string().optional(),
  message: z.string().optional(),
  field: z.string().optional(),
});
export type StatusCause = z.infer<typeof StatusCauseSchema>;

/**
 * A Status carries ListMeta. Its schema also declares ObjectMeta's fields (the apiserver
 * never sets them on a Status), so that every KubeObject's `metadata.name`, `namespace`,
 * `labels` and the rest have one type without narrowing by kind.
 */
export const StatusMetaSchema = ObjectMetaSchema.extend(ListMetaSchema.shape);
export type StatusMeta = z.infer<typeof StatusMetaSchema>;

export const StatusSchema = z.looseObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('Status'),
  // Go prints an empty ListMeta as {}, so a decoded Status always has one.
  metadata: StatusMetaSchema.default({}),
  status: openEnum(['Success', 'Failure'] as const).optional(),
  message: z.string().optional(),
  reason: z.string().optional(),
  details: z
    .looseObject({
      name: z.string().optional(),
      group: z.string().optional(),
      kind: z.string().optional(),
      uid: z.string().optional(),
      causes: z.array(StatusCauseSchema).optional(),
      retryAfterSeconds: int32.optional(),
    })
    .optional(),
  code: int32.optional(),
});
export type Status = z.infer<typeof StatusSchema>;
