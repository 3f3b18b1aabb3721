// core/v1 Event, the form the repair loops and controllers record.
// upstream: staging/src/k8s.io/api/core/v1/types.go (Event, EventSource)
import { z } from 'zod';
import { ObjectMetaSchema, ObjectReferenceSchema } from './meta.js';
import { int32, openEnum, timestamp } from './schema-helpers.js';

export const EVENT_TYPES = ['Normal', 'Warning'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EventSchema = z.looseObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('Event'),
  metadata: ObjectMetaSchema,
  involvedObject: ObjectReferenceSchema,
  reason: z.string().optional(),
  message: z.string().optional(),
  source: z.looseObject({ component: z.string().optional(), host: z.string().optional() }).optional(),
  firstTimestamp: timestamp.optional(),
  lastTimestamp: timestamp.optional(),
  count: int32.optional(),
  type: openEnum(EVENT_TYPES).optional(),
  eventTime: timestamp.optional(),
  reportingComponent: z.string().optional(),
  reportingInstance: z.string().optional(),
  action: z.string().optional(),
});
export type Event = z.infer<typeof EventSchema>;
