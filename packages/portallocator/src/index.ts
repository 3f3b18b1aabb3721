// Public API of @kubesvc/portallocator.
export type { ErrFull, Rng } from '@kubesvc/api-types';
export { errFull, nextInt, seededRng } from '@kubesvc/api-types';
export type { ErrAllocated, ErrInvalidSnapshot, ErrMismatchedNetwork, ErrNotInRange } from './errors.js';
export { errAllocated, errInvalidSnapshot, errMismatchedNetwork, errNotInRange } from './errors.js';
export type { ErrPortRange, ParsePortRangeResult, PortRange } from './port-range.js';
export {
  DEFAULT_NODE_PORT_RANGE,
  calculatePortRangeOffset,
  formatPortRange,
  parsePortRange,
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
export type { NodePortRepairEvent, NodePortRepairInput, NodePortRepairReason, NodePortRepairResult } from './repair.js';
export { PORT_REPAIR_CONTROLLER, collectServiceNodePorts, repairNodePorts } from './repair.js';
