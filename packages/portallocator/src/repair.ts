// One run of the NodePort repair loop as a pure function: from the stored snapshot, the
// Services, the leak counters and the port range to the rebuilt snapshot, the new leak
// counters, the Warning events and, when upstream's run fails, an error.
// upstream: pkg/registry/core/service/portallocator/controller/repair.go (modern: events/v1
//           with action PortAllocation, collectServiceNodePorts with healthCheckNodePort and
//           the per-protocol de-duplication)
import {
  draftClear,
  draftForEach,
  draftOf,
  draftSet,
  draftToBitmap,
  emptyDraft,
  err,
  leakCountersFromMap,
  leakCountersToMap,
  leakHoldoff,
  ok,
  rangeAllocationSnapshot,
  type ErrRepair,
  type LeakCounters,
  type RangeAllocation,
  type RepairEvent,
  type Result,
  type Service,
  describeValue,
  repairServicesShapeProblem,
  snapshotShapeProblem,
} from '@kubesvc/api-types';
import { isPortRangeValue } from './input-shape.js';
import { portAllocatorFromSnapshot } from './port-allocator.js';
import { formatPortRange, portRangeContains, type PortRange } from './port-range.js';

export type NodePortRepairReason = 'PortNotAllocated' | 'PortAlreadyAllocated' | 'PortOutOfRange' | 'PortRangeFull' | 'UnknownError';

export type NodePortRepairEvent = RepairEvent<NodePortRepairReason>;

export interface NodePortRepairInput {
  readonly portRange: PortRange;
  /** The stored RangeAllocation; missing or '' range means none yet. */
  readonly snapshot?: RangeAllocation | undefined;
  /** The Services as the API lists them: only metadata and spec are read (no apiVersion or kind needed). */
  readonly services: readonly Pick<Service, 'metadata' | 'spec'>[];
  /** The counters the previous run returned (keys are ports in decimal); none on the first run. */
  readonly leaks?: LeakCounters;
}

/** What a run that succeeded gives: everything to write, and the counters for the next run. */
export interface NodePortRepair {
  /** The rebuilt RangeAllocation. */
  readonly snapshot: RangeAllocation;
  readonly leaks: LeakCounters;
  readonly events: readonly NodePortRepairEvent[];
}

/**
 * upstream runOnce's error (nothing is written). The counters for the next run ride on it,
 * kept as they were, as upstream keeps its map.
 */
export interface ErrNodePortRepair extends ErrRepair {
  readonly leaks: LeakCounters;
}

export type NodePortRepairResult = Result<NodePortRepair, ErrNodePortRepair>;

export const PORT_REPAIR_CONTROLLER = 'portallocator-repair-controller';

/**
 * upstream collectServiceNodePorts: every non-zero spec.ports[].nodePort, where one nodePort used
 * by ports of different protocols counts once but the same protocol twice counts twice, then
 * healthCheckNodePort unless only non-TCP ports use it.
 */
export function collectServiceNodePorts(service: Pick<Service, 'spec'>): number[] {
  const out: number[] = [];
  const seen = new Map<number, Set<string>>();
  for (const port of service.spec?.ports ?? []) {
    const nodePort = port.nodePort ?? 0;
    if (nodePort === 0) continue;
    const protocol = port.protocol ?? 'TCP'; // the v1 default
    const protocols = seen.get(nodePort);
    if (protocols === undefined) {
      seen.set(nodePort, new Set([protocol]));
      out.push(nodePort);
    } else if (protocols.has(protocol)) {
      out.push(nodePort);
    } else {
      protocols.add(protocol);
    }
  }
  const health = service.spec?.healthCheckNodePort ?? 0;
  if (health !== 0) {
    const protocols = seen.get(health);
    if (protocols === undefined || protocols.has('TCP')) out.push(health);
  }
  return out;
}

/**
 * One repair run (upstream runOnce), as for ClusterIPs: the Services' node ports are allocated
 * in a fresh allocator; what is left in the stored snapshot is a leak, kept for two runs and
 * freed on the third.
 */
export function repairNodePorts(input: NodePortRepairInput): NodePortRepairResult {
  const problem = repairInputProblem(input);
  if (problem !== undefined) return err({ _tag: 'ErrRepair', message: `repairNodePorts: ${problem}`, leaks: {} });
  const rangeText = formatPortRange(input.portRange);
  const range = input.snapshot?.range ? input.snapshot.range : rangeText;
  const restored = portAllocatorFromSnapshot({ range, data: input.snapshot?.data ?? '' });
  if (!restored.ok) {
    return err({ _tag: 'ErrRepair', message: `unable to rebuild allocator from snapshot: ${restored.error.message}`, leaks: input.leaks ?? {} });
  }
  // The run works on private mutable drafts of the bitmaps (api-types BitmapDraft) and returns
  // persistent values at the end; its inputs are untouched.
  const storedRange = restored.value.range;
  const stored = draftOf(restored.value.bitmap);
  const rebuilt = emptyDraft(input.portRange.size);
  const leaks = leakCountersToMap(input.leaks);
  const events: NodePortRepairEvent[] = [];
  // One function for the run, and the event's `service` built only when there is an event.
  const warn = (service: Pick<Service, 'metadata'>, reason: NodePortRepairReason, message: string): void => {
    const regarding = { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' };
    events.push({ type: 'Warning', reason, message, action: 'PortAllocation', reportingController: PORT_REPAIR_CONTROLLER, service: regarding });
  };

  for (const service of input.services) {
    for (const port of collectServiceNodePorts(service)) {
      if (!portRangeContains(input.portRange, port)) {
        warn(service, 'PortOutOfRange', `Port ${port} is not within the port range ${rangeText}; please recreate service`);
        continue;
      }
      if (!draftSet(rebuilt, port - input.portRange.base)) {
        warn(service, 'PortAlreadyAllocated', `Port ${port} was assigned to multiple services; please recreate service`);
        continue;
      }
      // upstream's PortRangeFull and UnknownError branches need Allocate(port) to fail with
      // ErrFull or another error, which the allocator never does for a given port.
      // draftClear is false for an offset outside the stored range too (an older, smaller one).
      if (!draftClear(stored, port - storedRange.base)) warn(service, 'PortNotAllocated', `Port ${port} is not allocated; repairing`);
      if (leaks.size > 0) leaks.delete(String(port));
    }
  }

  draftForEach(stored, (offset) => {
    const port = storedRange.base + offset;
    if (!leakHoldoff(leaks, String(port))) return;
    // upstream logs "may have leaked, but can not be allocated" for a port of an older range.
    if (portRangeContains(input.portRange, port)) draftSet(rebuilt, port - input.portRange.base);
  });

  return ok({
    snapshot: rangeAllocationSnapshot(rangeText, draftToBitmap(rebuilt), input.snapshot),
    leaks: leakCountersFromMap(leaks),
    events,
  });
}

/** Why the input is not a NodePortRepairInput, or undefined: checked once, at the edge. */
function repairInputProblem(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return `expected { portRange, services, snapshot?, leaks? }, got ${describeValue(input)}`;
  const { portRange, snapshot, services, leaks } = input as Record<string, unknown>;
  if (!isPortRangeValue(portRange)) return `portRange: expected { base, size } (parsePortRange's value), got ${describeValue(portRange)}`;
  if (snapshot !== undefined) {
    const bad = snapshotShapeProblem(snapshot);
    if (bad !== undefined) return bad;
  }
  if (leaks !== undefined && (typeof leaks !== 'object' || leaks === null)) return `leaks: expected an object, got ${describeValue(leaks)}`;
  return repairServicesShapeProblem(services);
}
