// Public API of @kubesvc/controllers: the keyed-controller contract and the controllers that
// implement it.
export type { CacheChange, CacheView, ControllerEvent, KeyedController, ReconcileAction } from './contract.js';
export { endpointsController } from './endpoints-controller.js';
export { DEFAULT_MAX_ENDPOINTS_PER_SLICE, endpointSliceController } from './endpoint-slice-controller.js';
export type { EndpointSliceControllerOptions } from './endpoint-slice-controller.js';
export { DEFAULT_MIRRORING_MAX_ENDPOINTS_PER_SUBSET, endpointSliceMirroringController } from './endpoint-slice-mirroring-controller.js';
export type { EndpointSliceMirroringControllerOptions } from './endpoint-slice-mirroring-controller.js';
export { FINALIZER_FOREGROUND, FINALIZER_ORPHAN, GARBAGE_COLLECTOR_NAME, garbageCollector } from './garbage-collector.js';
export { NAMESPACE_CONTROLLER_NAME, namespaceController } from './namespace-controller.js';
export { DEPLOYMENT_CONTROLLER_NAME, deploymentController } from './deployment-controller.js';
export { BURST_REPLICAS, REPLICASET_CONTROLLER_NAME, replicaSetController } from './replicaset-controller.js';
export { simulatedKubelet } from './simulated-kubelet.js';
export type { SimulatedKubeletOptions, SimulatedNode } from './simulated-kubelet.js';
export { standardControllers } from './standard.js';
export type { StandardControllerOptions } from './standard.js';
export {
  SERVICE_CIDR_CONTROLLER_NAME,
  SERVICE_CIDR_DELETION_GRACE_PERIOD_MS,
  SERVICE_CIDR_READY_MESSAGE,
  SERVICE_CIDR_TERMINATING_MESSAGE,
  applyServiceCIDRAction,
  canDeleteServiceCIDR,
  containingServiceCIDRs,
  overlappingServiceCIDRs,
  serviceCIDRController,
} from './service-cidr-controller.js';
export { serviceCIDRKeyedController } from './service-cidr-keyed-controller.js';
export type {
  ServiceCIDRAction,
  ServiceCIDRChange,
  ServiceCIDRCondition,
  ServiceCIDRController,
  ServiceCIDREvent,
  ServiceCIDRView,
} from './service-cidr-controller.js';
