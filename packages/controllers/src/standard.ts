// The controllers a kubesvc control plane runs by default, as kube-controller-manager and a
// node's kubelet would: endpoints, EndpointSlice, EndpointSlice mirroring, deployment and
// ReplicaSet, the garbage collector's deletion of their dependents, and the simulated kubelet
// that gives pods their node, IP and readiness.
import { appsGarbageCollector } from './apps-garbage-collector.js';
import type { KeyedController } from './contract.js';
import { deploymentController } from './deployment-controller.js';
import { endpointSliceController, type EndpointSliceControllerOptions } from './endpoint-slice-controller.js';
import { endpointSliceMirroringController } from './endpoint-slice-mirroring-controller.js';
import { endpointsController } from './endpoints-controller.js';
import { replicaSetController } from './replicaset-controller.js';
import { simulatedKubelet, type SimulatedKubeletOptions } from './simulated-kubelet.js';

/** What the controller manager's flags set for the standard controllers. */
export interface StandardControllerOptions {
  /** kube-controller-manager's PreferSameTrafficDistribution gate, for the EndpointSlice controller's hints. */
  readonly preferSameTrafficDistribution?: boolean;
}

export function standardControllers(kubelet: SimulatedKubeletOptions, options: StandardControllerOptions = {}): readonly KeyedController[] {
  const slices: EndpointSliceControllerOptions = options.preferSameTrafficDistribution === undefined ? {} : { preferSameTrafficDistribution: options.preferSameTrafficDistribution };
  return [endpointsController(), endpointSliceController(slices), endpointSliceMirroringController(), deploymentController(), replicaSetController(), appsGarbageCollector(), simulatedKubelet(kubelet)];
}
