// The controllers a kubesvc control plane runs by default, as kube-controller-manager and a
// node's kubelet would: endpoints, EndpointSlice, EndpointSlice mirroring, and the simulated
// kubelet that gives pods their node, IP and readiness.
import type { KeyedController } from './contract.js';
import { endpointSliceController } from './endpoint-slice-controller.js';
import { endpointSliceMirroringController } from './endpoint-slice-mirroring-controller.js';
import { endpointsController } from './endpoints-controller.js';
import { simulatedKubelet, type SimulatedKubeletOptions } from './simulated-kubelet.js';

export function standardControllers(kubelet: SimulatedKubeletOptions): readonly KeyedController[] {
  return [endpointsController(), endpointSliceController(), endpointSliceMirroringController(), simulatedKubelet(kubelet)];
}
