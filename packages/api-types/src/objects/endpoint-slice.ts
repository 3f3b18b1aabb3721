// discovery.k8s.io/v1 EndpointSlice.
// upstream: staging/src/k8s.io/api/discovery/v1/types.go
//
// `endpoints` and `ports` have no omitempty upstream, so a slice without them prints
// `null`; the schema keeps that null so that a dump prints back as it came.
import { z } from 'zod';
import { ObjectMetaSchema, ObjectReferenceSchema } from './meta.js';
import { PROTOCOLS } from './service.js';
import { int32, openEnum, stringMap } from './schema-helpers.js';

export const ADDRESS_TYPES = ['IPv4', 'IPv6', 'FQDN'] as const;
export type AddressType = (typeof ADDRESS_TYPES)[number];

/** The label that ties a slice to its Service. upstream: discovery/v1 LabelServiceName */
export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';
/** The label naming the controller that manages a slice. upstream: discovery/v1 LabelManagedBy */
export const LABEL_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';

export const EndpointConditionsSchema = z.looseObject({
  ready: z.boolean().optional(),
  serving: z.boolean().optional(),
  terminating: z.boolean().optional(),
});
export type EndpointConditions = z.infer<typeof EndpointConditionsSchema>;

export const DiscoveryEndpointSchema = z.looseObject({
  addresses: z.array(z.string()),
  conditions: EndpointConditionsSchema.optional(),
  hostname: z.string().optional(),
  targetRef: ObjectReferenceSchema.optional(),
  deprecatedTopology: stringMap.optional(),
  nodeName: z.string().optional(),
  zone: z.string().optional(),
  hints: z
    .looseObject({
      forZones: z.array(z.looseObject({ name: z.string() })).optional(),
      // Alpha in v1.33 (the PreferSameTrafficDistribution gate): the node a PreferSameNode
      // endpoint is meant for.
      forNodes: z.array(z.looseObject({ name: z.string() })).optional(),
    })
    .optional(),
});
export type DiscoveryEndpoint = z.infer<typeof DiscoveryEndpointSchema>;

export const DiscoveryEndpointPortSchema = z.looseObject({
  name: z.string().optional(),
  protocol: openEnum(PROTOCOLS).optional(),
  port: int32.optional(),
  appProtocol: z.string().optional(),
});
export type DiscoveryEndpointPort = z.infer<typeof DiscoveryEndpointPortSchema>;

export const EndpointSliceSchema = z.looseObject({
  apiVersion: z.literal('discovery.k8s.io/v1'),
  kind: z.literal('EndpointSlice'),
  metadata: ObjectMetaSchema,
  addressType: openEnum(ADDRESS_TYPES),
  endpoints: z.array(DiscoveryEndpointSchema).nullable().optional(),
  ports: z.array(DiscoveryEndpointPortSchema).nullable().optional(),
});
export type EndpointSlice = z.infer<typeof EndpointSliceSchema>;
