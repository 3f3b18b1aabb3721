// The controllers a kubesvc control plane runs by default, as kube-controller-manager and a
// node's kubelet would: endpoints, EndpointSlice, EndpointSlice mirroring, deployment and
// ReplicaSet, the garbage collector, and the simulated kubelet that gives pods their node, IP
// and readiness.
import type { KeyedController } from './contract.js';
import { deploymentController } from './deployment-controller.js';
import { endpointSliceController, type EndpointSliceControllerOptions } from './endpoint-slice-controller.js';
import { endpointSliceMirroringController } from './endpoint-slice-mirroring-controller.js';
import { endpointsController } from './endpoints-controller.js';
import { garbageCollector } from './garbage-collector.js';
import { replicaSetController } from './replicaset-controller.js';
import { simulatedKubelet, type SimulatedKubeletOptions } from './simulated-kubelet.js';

/** What the controller manager's flags set for the standard controllers. */
export interface StandardControllerOptions {
  /** kube-controller-manager's PreferSameTrafficDistribution gate, for the EndpointSlice controller's hints. */
  readonly preferSameTrafficDistribution?: boolean;
  /** --max-endpoints-per-slice (1 to 1000). Default 100. */
  readonly maxEndpointsPerSlice?: number;
  /** --mirroring-max-endpoints-per-subset (1 to 1000). Default 1000. */
  readonly mirroringMaxEndpointsPerSubset?: number;
}

export function standardControllers(kubelet: SimulatedKubeletOptions, options: StandardControllerOptions = {}): readonly KeyedController[] {
  const slices: EndpointSliceControllerOptions = {
    ...(options.preferSameTrafficDistribution === undefined ? {} : { preferSameTrafficDistribution: options.preferSameTrafficDistribution }),
    ...(options.maxEndpointsPerSlice === undefined ? {} : { maxEndpointsPerSlice: options.maxEndpointsPerSlice }),
  };
  const mirroring = options.mirroringMaxEndpointsPerSubset === undefined ? {} : { maxEndpointsPerSubset: options.mirroringMaxEndpointsPerSubset };
  return [endpointsController(), endpointSliceController(slices), endpointSliceMirroringController(mirroring), deploymentController(), replicaSetController(), garbageCollector(), simulatedKubelet(kubelet)];
}
