// One run of the ClusterIP repair loop as a pure function: from the stored snapshots, the
// Services, the leak counters and the service CIDRs to the rebuilt snapshots, the new leak
// counters, the Warning events and, when upstream's run fails, an error.
// upstream: pkg/registry/core/service/ipallocator/controller/repair.go (the dual-stack
//           version: one allocator and one leak map per family, events with "[IPv4]:<ip>")
import { isCIDRValue } from './input-shape.js';
import {
  draftClear,
  draftForEach,
  draftOf,
  draftSet,
  draftToBitmap,
  emptyDraft,
  err,
  familyName,
  formatIP,
  isServiceIPSet,
  leakCountersFromMap,
  leakCountersToMap,
  leakHoldoff,
  ok,
  parseIPSloppy,
  type BitmapDraft,
  type CIDR,
  type ErrRepair,
  type IPFamily,
  type LeakCounters,
  type RangeAllocation,
  type RepairEvent,
  type Result,
  type Service,
  describeValue,
  repairServicesShapeProblem,
  snapshotShapeProblem,
} from '@kubesvc/api-types';
import { ipAllocatorFromSnapshot, snapshotIPAllocator } from './ip-allocator.js';
import { ipAtOffset, ipOffset, ipRangeOf, type IPRange } from './ip-range.js';

export type ClusterIPRepairReason =
  | 'ClusterIPNotValid'
  | 'ClusterIPNotAllocated'
  | 'ClusterIPAlreadyAllocated'
  | 'ClusterIPOutOfRange'
  | 'ServiceCIDRFull'
  | 'UnknownError';

export type ClusterIPRepairEvent = RepairEvent<ClusterIPRepairReason>;

/** Leak counters per family, keyed by the IP as formatIP prints it. */
export type ClusterIPLeaks = Readonly<Partial<Record<IPFamily, LeakCounters>>>;

export interface ClusterIPRepairInput {
  /** The service CIDRs, primary first (one per family). */
  readonly networks: readonly CIDR[];
  /** The stored RangeAllocation of each network, in the same order; missing or '' range means none yet. */
  readonly snapshots?: readonly (RangeAllocation | undefined)[];
  /** The Services as the API lists them: only metadata and spec are read (no apiVersion or kind needed). */
  readonly services: readonly Pick<Service, 'metadata' | 'spec'>[];
  /** The counters the previous run returned; none on the first run. */
  readonly leaks?: ClusterIPLeaks;
}

/** What a run that succeeded gives: everything to write, and the counters for the next run. */
export interface ClusterIPRepair {
  /** The rebuilt RangeAllocation of each network, in the input's order. */
  readonly snapshots: readonly RangeAllocation[];
  /** The counters for the next run. */
  readonly leaks: ClusterIPLeaks;
  readonly events: readonly ClusterIPRepairEvent[];
}

/**
 * upstream runOnce's error (nothing is written). The counters for the next run ride on it,
 * kept as they were, as upstream keeps its map.
 */
export interface ErrClusterIPRepair extends ErrRepair {
  readonly leaks: ClusterIPLeaks;
}

export type ClusterIPRepairResult = Result<ClusterIPRepair, ErrClusterIPRepair>;

export const IP_REPAIR_CONTROLLER = 'ipallocator-repair-controller';

// The run changes both sides many times, so it works on private mutable drafts of the bitmaps
// (api-types BitmapDraft) and returns persistent values at the end; its inputs are untouched.
interface FamilyState {
  readonly family: IPFamily;
  /** The stored snapshot's range, which may be an older one than `rebuiltRange`. */
  readonly storedRange: IPRange;
  readonly stored: BitmapDraft;
  /** The range of the configured service CIDR. */
  readonly rebuiltRange: IPRange;
  readonly rebuilt: BitmapDraft;
  readonly leaks: Map<string, number>;
}

function clusterIPsOf(service: Pick<Service, 'spec'>): readonly string[] {
  const ips = service.spec?.clusterIPs ?? [];
  return ips.length > 0 ? ips : [service.spec?.clusterIP ?? ''];
}

function leaksOf(states: readonly FamilyState[]): ClusterIPLeaks {
  const out: Partial<Record<IPFamily, LeakCounters>> = {};
  for (const state of states) out[state.family] = leakCountersFromMap(state.leaks);
  return out;
}

/**
 * One repair run (upstream runOnce). Every Service's cluster IPs are allocated in a fresh
 * allocator per family; one already in the stored snapshot is removed from it, one that is not
 * gives ClusterIPNotAllocated. What is left in the stored snapshots is held by no Service: a
 * leak, kept for two runs and freed on the third (numRepairsBeforeLeakCleanup = 3).
 */
export function repairClusterIPs(input: ClusterIPRepairInput): ClusterIPRepairResult {
  const problem = repairInputProblem(input);
  if (problem !== undefined) return err({ _tag: 'ErrRepair', message: `repairClusterIPs: ${problem}`, leaks: {} });
  const states: FamilyState[] = [];
  for (const [i, network] of input.networks.entries()) {
    const family = familyName(network.network.family);
    const rebuiltRange = ipRangeOf(network);
    const snapshot = input.snapshots?.[i];
    const range = snapshot?.range ? snapshot.range : rebuiltRange.rangeSpec;
    const stored = ipAllocatorFromSnapshot({ range, data: snapshot?.data ?? '' });
    if (!stored.ok) {
      return err({
        _tag: 'ErrRepair',
        message: `unable to rebuild allocator from snapshots for family:${family} with error:${stored.error.message}`,
        leaks: input.leaks ?? {},
      });
    }
    states.push({
      family,
      storedRange: stored.value.range,
      stored: draftOf(stored.value.bitmap),
      rebuiltRange,
      rebuilt: emptyDraft(rebuiltRange.max),
      leaks: leakCountersToMap(input.leaks?.[family]),
    });
  }

  const events: ClusterIPRepairEvent[] = [];
  // One function for the run, and the event's `service` built only when there is an event.
  const warn = (service: Pick<Service, 'metadata'>, reason: ClusterIPRepairReason, message: string): void => {
    const regarding = { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' };
    events.push({ type: 'Warning', reason, message, action: 'ClusterIPAllocation', reportingController: IP_REPAIR_CONTROLLER, service: regarding });
  };
  for (const service of input.services) {
    if (!isServiceIPSet(service.spec)) continue;
    for (const text of clusterIPsOf(service)) {
      const parsed = parseIPSloppy(text);
      if (!parsed.ok) {
        warn(service, 'ClusterIPNotValid', `Cluster IP ${text} is not a valid IP; please recreate service`);
        continue;
      }
      const ip = parsed.value;
      const family = familyName(ip.family);
      const state = states.find((s) => s.family === family);
      if (state === undefined) {
        warn(service, 'ClusterIPNotValid', `Cluster IP ${formatIP(ip)}(${family}) is of ip family that is no longer configured on cluster; please recreate service`);
        continue;
      }
      const offset = ipOffset(state.rebuiltRange, ip);
      if (offset < 0) {
        warn(
          service,
          'ClusterIPOutOfRange',
          `Cluster IP [${family}]:${formatIP(ip)} is not within the service CIDR ${state.rebuiltRange.rangeSpec}; please recreate service`,
        );
        continue;
      }
      if (!draftSet(state.rebuilt, offset)) {
        warn(service, 'ClusterIPAlreadyAllocated', `Cluster IP [${family}]:${formatIP(ip)} was assigned to multiple services; please recreate service`);
        continue;
      }
      // upstream's ServiceCIDRFull and UnknownError branches need Allocate(ip) to fail with
      // ErrFull or another error, which the modern allocator never does for a given IP.
      if (!draftClear(state.stored, ipOffset(state.storedRange, ip))) {
        warn(service, 'ClusterIPNotAllocated', `Cluster IP [${family}]:${formatIP(ip)} is not allocated; repairing`);
      }
      if (state.leaks.size > 0) state.leaks.delete(formatIP(ip));
    }
  }

  for (const state of states) {
    draftForEach(state.stored, (offset) => {
      const ip = ipAtOffset(state.storedRange, offset);
      if (!leakHoldoff(state.leaks, formatIP(ip))) return;
      // upstream logs "may have leaked, but can not be allocated" when this fails (an IP of an
      // older, different range); the IP is then dropped from the rebuilt snapshot.
      const kept = ipOffset(state.rebuiltRange, ip);
      if (kept >= 0) draftSet(state.rebuilt, kept);
    });
  }

  return ok({
    snapshots: states.map((state, i) =>
      snapshotIPAllocator({ family: state.family, range: state.rebuiltRange, bitmap: draftToBitmap(state.rebuilt) }, input.snapshots?.[i]),
    ),
    leaks: leaksOf(states),
    events,
  });
}

/** Why the input is not a ClusterIPRepairInput, or undefined: checked once, at the edge. */
function repairInputProblem(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return `expected { networks, services, snapshots?, leaks? }, got ${describeValue(input)}`;
  const { networks, snapshots, services, leaks } = input as Record<string, unknown>;
  if (!Array.isArray(networks)) return `networks: expected an array of CIDRs, got ${describeValue(networks)}`;
  for (const [i, network] of (networks as unknown[]).entries()) if (!isCIDRValue(network)) return `networks[${i}] is not a CIDR value (parseCIDR's), got ${describeValue(network)}`;
  if (snapshots !== undefined) {
    if (!Array.isArray(snapshots)) return `snapshots: expected an array, got ${describeValue(snapshots)}`;
    for (const [i, snapshot] of (snapshots as unknown[]).entries()) {
      const bad = snapshot === undefined ? undefined : snapshotShapeProblem(snapshot);
      if (bad !== undefined) return `snapshots[${i}]: ${bad}`;
    }
  }
  if (leaks !== undefined && (typeof leaks !== 'object' || leaks === null)) return `leaks: expected an object, got ${describeValue(leaks)}`;
  return repairServicesShapeProblem(services);
}
