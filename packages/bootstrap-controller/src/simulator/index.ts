export type { Cluster, ClusterResult } from './cluster.js';
export { applyWrite, createService, deleteObject, newCluster, observe } from './cluster.js';
export type { Apiserver, FailureTarget, InjectedFailure, SimRecord, Simulation, SimulationOptions, UserService } from './simulation.js';
export {
  addApiserver,
  advance,
  clearFailures,
  crashApiserver,
  createUserService,
  deleteUserObject,
  editUserService,
  injectFailure,
  leakIP,
  leakNodePort,
  markReady,
  newSimulation,
  startApiserver,
  stopApiserver,
} from './simulation.js';
export { endpointsIn, kubernetesEndpointIPs, namespaceNames, recordsSince, serviceIn } from './views.js';
