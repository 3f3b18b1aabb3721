// Public API of @kubesvc/portallocator.
export type { AllocatorSnapshot, Rng, WithRng } from '@kubesvc/api-types';
export { NUM_REPAIRS_BEFORE_LEAK_CLEANUP, nextInt, seededRng } from '@kubesvc/api-types';
export type {
  ErrAllocated,
  ErrFull,
  ErrInvalidSnapshot,
  ErrMismatchedNetwork,
  ErrNotInRange,
  ErrNotReady,
} from './errors.js';
export { errAllocated, errFull, errInvalidSnapshot, errMismatchedNetwork, errNotInRange, errNotReady } from './errors.js';
export type { ErrPortRange, ParsePortRangeResult, PortAllocatorRange, PortRange } from './port-range.js';
export {
  DEFAULT_NODE_PORT_RANGE,
  calculatePortRangeOffset,
  formatPortRange,
  parsePortRange,
  portAllocatorRangeOf,
  portRangeContains,
} from './port-range.js';
export type { AllocateNextPortResult, AllocatePortResult, PortAllocator } from './port-allocator.js';
export {
  allocateNextPort,
  allocateNextPortDryRun,
  allocateNextPorts,
  allocatePort,
  allocatePortDryRun,
  allocatedPorts,
  forEachPort,
  hasPort,
  newPortAllocator,
  portAllocatorFree,
  portAllocatorFromSnapshot,
  portAllocatorSnapshotData,
  portAllocatorUsed,
  releasePort,
  releasePortDryRun,
  restorePortAllocator,
  snapshotPortAllocator,
} from './port-allocator.js';
export type {
  ErrNodePortRepair,
  NodePortRepair,
  NodePortRepairEvent,
  NodePortRepairInput,
  NodePortRepairReason,
  NodePortRepairResult,
} from './repair.js';
export { PORT_REPAIR_CONTROLLER, collectServiceNodePorts, repairNodePorts } from './repair.js';
