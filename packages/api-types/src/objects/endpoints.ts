// core/v1 Endpoints.
// upstream: staging/src/k8s.io/api/core/v1/types.go (Endpoints, EndpointSubset, EndpointAddress, EndpointPort)
import { z } from 'zod';
import { ObjectMetaSchema, ObjectReferenceSchema } from './meta.js';
import { PROTOCOLS } from './service.js';
import { int32, openEnum } from './schema-helpers.js';

export const EndpointAddressSchema = z.looseObject({
  ip: z.string(),
  hostname: z.string().optional(),
  nodeName: z.string().optional(),
  targetRef: ObjectReferenceSchema.optional(),
});
export type EndpointAddress = z.infer<typeof EndpointAddressSchema>;

export const EndpointPortSchema = z.looseObject({
  name: z.string().optional(),
  port: int32,
  protocol: openEnum(PROTOCOLS).optional(),
  appProtocol: z.string().optional(),
});
export type EndpointPort = z.infer<typeof EndpointPortSchema>;

export const EndpointSubsetSchema = z.looseObject({
  addresses: z.array(EndpointAddressSchema).optional(),
  notReadyAddresses: z.array(EndpointAddressSchema).optional(),
  ports: z.array(EndpointPortSchema).optional(),
});
export type EndpointSubset = z.infer<typeof EndpointSubsetSchema>;

export const EndpointsSchema = z.looseObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('Endpoints'),
  metadata: ObjectMetaSchema,
  subsets: z.array(EndpointSubsetSchema).optional(),
});
export type Endpoints = z.infer<typeof EndpointsSchema>;
