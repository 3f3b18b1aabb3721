// Public API of @kubesvc/ipallocator.
export type { AllocatorSnapshot, Rng, WithRng } from '@kubesvc/api-types';
export { NUM_REPAIRS_BEFORE_LEAK_CLEANUP, seededRng, nextInt } from '@kubesvc/api-types';
export type {
  ErrAllocated,
  ErrFull,
  ErrInvalidSnapshot,
  ErrMismatchedNetwork,
  ErrNotInRange,
  ErrNotReady,
  ErrServiceCIDRList,
  ErrServiceCIDRTooLarge,
} from './errors.js';
export {
  errAllocated,
  errFull,
  errInvalidSnapshot,
  errMismatchedNetwork,
  errNotInRange,
  errNotReady,
  errServiceCIDRTooLarge,
} from './errors.js';
export type { IPRange } from './ip-range.js';
export { IPV6_RANGE_CAP, calculateIPRangeOffset, ipAtOffset, ipOffset, ipRangeOf } from './ip-range.js';
export type { AllocateIPResult, AllocateNextIPResult, IPAllocator } from './ip-allocator.js';
export {
  allocateIP,
  allocateIPDryRun,
  allocateNextIP,
  allocateNextIPDryRun,
  allocateNextIPs,
  allocatedIPs,
  forEachIP,
  hasIP,
  ipAllocatorFree,
  ipAllocatorFromSnapshot,
  ipAllocatorSnapshotData,
  ipAllocatorUsed,
  newIPAllocator,
  releaseIP,
  releaseIPDryRun,
  restoreIPAllocator,
  snapshotIPAllocator,
} from './ip-allocator.js';
export type { ErrServiceIPRange, ServiceIPRangeResult } from './service-ip-range.js';
export { DEFAULT_SERVICE_IP_CIDR, serviceIPRange } from './service-ip-range.js';
export type { ErrFamilyNotConfigured, IPAllocators } from './dual-stack.js';
export {
  ERR_SERVICE_CIDRS_SAME_FAMILY,
  ERR_TOO_MANY_SERVICE_CIDRS,
  allocateIPInFamily,
  allocateNextIPInFamily,
  allocatorIndexForFamily,
  hasIPInFamily,
  newIPAllocators,
  releaseIPInFamily,
} from './dual-stack.js';
export type {
  ClusterIPLeaks,
  ClusterIPRepair,
  ClusterIPRepairEvent,
  ClusterIPRepairInput,
  ClusterIPRepairReason,
  ClusterIPRepairResult,
  ErrClusterIPRepair,
} from './repair.js';
export { IP_REPAIR_CONTROLLER, repairClusterIPs } from './repair.js';
export type {
  IPAddressRepairEvent,
  IPAddressRepairEventAction,
  IPAddressRepairIPAddress,
  IPAddressRepairListers,
  IPAddressRepairPass,
  IPAddressRepairReason,
  IPAddressRepairRegarding,
  IPAddressRepairResult,
  IPAddressRepairService,
  IPAddressRepairStep,
  IPAddressRepairView,
  IPAddressRequeue,
  IPAddressWrite,
} from './repair-ip.js';
export {
  IP_ADDRESS_REPAIR_GRACE_PERIOD_MS,
  applyIPAddressWrites,
  hasDefaultServiceCIDR,
  ipAddressRepairListers,
  isManagedByIPAllocator,
  newServiceIPAddress,
  repairIPAddresses,
  serviceClusterIPs,
  serviceKey,
  syncIPAddress,
  syncServiceIPAddresses,
} from './repair-ip.js';
export type {
  IPAddressAllocator,
  IPAddressCandidate,
  IPAddressNextResult,
  IPAddressScan,
  IPAddressToCreate,
  IPAddressView,
  ServiceRef,
} from './ipaddress-allocator.js';
export {
  allocateIPAddress,
  allocateIPAddressDryRun,
  allocateNextIPAddress,
  allocateNextIPAddressDryRun,
  allocatedIPAddresses,
  hasIPAddress,
  hostsPerNetwork,
  ipAddressName,
  ipAddressNames,
  ipAddressObject,
  ipAddressesFree,
  ipAddressesUsed,
  managedIPAddressNames,
  newIPAddressAllocator,
  nextIPAddressCandidate,
  releaseIPAddress,
  startIPAddressScan,
} from './ipaddress-allocator.js';
export type {
  MetaAllocator,
  ServiceCIDRAllocator,
  ServiceCIDRScan,
  ServiceIPAllocation,
  ServiceIPCandidate,
  ServiceIPNextResult,
  ServiceIPRelease,
  UnusableServiceCIDR,
} from './cidr-allocator.js';
export {
  DISABLE_ALLOCATOR_DUAL_WRITE_DEFAULT,
  allocateNextServiceIP,
  allocateServiceIP,
  dryRunAllocatorOf,
  dualWriteAllocate,
  dualWriteRelease,
  hasServiceIP,
  isNotContained,
  isServiceCIDRReady,
  newMetaAllocator,
  nextServiceIPAfterCreateFailed,
  nextServiceIPInNextServiceCIDR,
  releaseServiceIP,
  serviceCIDRAllocatorFor,
  serviceIPsFree,
  serviceIPsUsed,
} from './cidr-allocator.js';
