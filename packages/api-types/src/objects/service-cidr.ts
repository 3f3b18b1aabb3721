// networking.k8s.io/v1 ServiceCIDR and IPAddress: since Kubernetes v1.33 (KEP-1880, the
// MultiCIDRServiceAllocator gate locked on) the ranges Service IPs come from are ServiceCIDR
// objects, and every allocated ClusterIP is an IPAddress object named by the IP, whose
// parentRef names the Service holding it.
// upstream (v1.33): staging/src/k8s.io/api/networking/v1/types.go (ServiceCIDR,
//           ServiceCIDRSpec, ServiceCIDRStatus, IPAddress, IPAddressSpec, ParentReference),
//           staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (Condition: the schema
//           Service status uses)
import { z } from 'zod';
import { ObjectMetaSchema } from './meta.js';
import { ConditionSchema } from './service.js';

export const SERVICE_CIDR_API_VERSION = 'networking.k8s.io/v1';

export const ServiceCIDRSchema = z.looseObject({
  apiVersion: z.literal(SERVICE_CIDR_API_VERSION),
  kind: z.literal('ServiceCIDR'),
  metadata: ObjectMetaSchema,
  spec: z.looseObject({ cidrs: z.array(z.string()).optional() }).optional(),
  status: z.looseObject({ conditions: z.array(ConditionSchema).optional() }).optional(),
});
export type ServiceCIDR = z.infer<typeof ServiceCIDRSchema>;

/** IPAddress.spec.parentRef: the object the IP is allocated to (a Service: group "", resource "services"). */
export const ParentReferenceSchema = z.looseObject({
  group: z.string().optional(),
  resource: z.string().optional(),
  namespace: z.string().optional(),
  name: z.string().optional(),
});
export type ParentReference = z.infer<typeof ParentReferenceSchema>;

export const IPAddressSchema = z.looseObject({
  apiVersion: z.literal(SERVICE_CIDR_API_VERSION),
  kind: z.literal('IPAddress'),
  metadata: ObjectMetaSchema,
  spec: z.looseObject({ parentRef: ParentReferenceSchema.nullable().optional() }).optional(),
});
export type IPAddress = z.infer<typeof IPAddressSchema>;

/** The name of the default ServiceCIDR the first apiserver creates from --service-cluster-ip-range. */
export const DEFAULT_SERVICE_CIDR_NAME = 'kubernetes';

/**
 * The message of the Ready=True condition the default ServiceCIDR controller sets on `kubernetes`.
 * upstream: pkg/controlplane/controller/defaultservicecidr/default_servicecidr_controller.go (syncStatus)
 */
export const DEFAULT_SERVICE_CIDR_READY_MESSAGE = 'Kubernetes default Service CIDR is ready';

/** The finalizer the ServiceCIDR controller keeps on a ServiceCIDR while IPAddresses depend on it. */
export const SERVICE_CIDR_FINALIZER = 'networking.k8s.io/service-cidr-finalizer';

/** The condition type the ServiceCIDR controllers set (upstream networkingapiv1.ServiceCIDRConditionReady). */
export const SERVICE_CIDR_CONDITION_READY = 'Ready';

/** The Ready condition's reason while a ServiceCIDR being deleted still holds IPs (ServiceCIDRReasonTerminating). */
export const SERVICE_CIDR_REASON_TERMINATING = 'Terminating';

/** The label the IPAddress allocator puts on every IPAddress it creates, naming the ServiceCIDR's IP family. */
export const IP_ADDRESS_LABEL_FAMILY = 'ipaddress.kubernetes.io/ip-family';

/** The label naming who manages an IPAddress; the allocator writes IP_ALLOCATOR_CONTROLLER_NAME. */
export const IP_ADDRESS_LABEL_MANAGED_BY = 'ipaddress.kubernetes.io/managed-by';

/** The managed-by value of IPAddresses the allocator creates (upstream ipallocator.ControllerName). */
export const IP_ALLOCATOR_CONTROLLER_NAME = 'ipallocator.k8s.io';
