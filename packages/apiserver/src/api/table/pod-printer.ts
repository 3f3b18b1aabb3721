// `kubectl get pods`: NAME READY STATUS RESTARTS AGE [IP NODE NOMINATED NODE READINESS GATES].
// The STATUS column is a summary: the pod's phase, overridden by its reason, by the state of
// the init containers while they run, then by the state of the app containers.
// upstream: pkg/printers/internalversion/printers.go (podColumnDefinitions, printPod,
//           hasPodReadyCondition, isPodInitializedConditionTrue),
//           pkg/api/pod/util.go (IsRestartableInitContainer), pkg/util/node (NodeUnreachablePodReason)
import type { Pod } from '@kubesvc/api-types';
import { humanDuration, parseTimestamp, translateTimestampSince } from './human-duration.js';
import { AGE_COLUMN, asArray, asNumber, asRecord, asString, column, NAME_COLUMN, type ResourcePrinter } from './printer.js';
import type { TableRowCondition } from './types.js';

/** The reason the node lifecycle controller gives pods on an unreachable node. */
const NODE_UNREACHABLE_POD_REASON = 'NodeLost';

/** A container status as the printer reads it (the api-types Pod keeps these as plain JSON). */
interface ContainerStatusView {
  readonly name: string;
  readonly ready: boolean;
  readonly started: boolean | undefined;
  readonly restartCount: number;
  readonly running: boolean;
  readonly waitingReason: string | undefined;
  readonly terminated: { readonly reason: string; readonly exitCode: number; readonly signal: number } | undefined;
  /** When the last termination finished, in ms; undefined when there was none or its time is zero. */
  readonly lastFinishedAt: number | undefined;
}

function containerStatus(value: unknown): ContainerStatusView {
  const s = asRecord(value);
  const state = asRecord(s['state']);
  const waiting = state['waiting'] === undefined || state['waiting'] === null ? undefined : asRecord(state['waiting']);
  const terminated = state['terminated'] === undefined || state['terminated'] === null ? undefined : asRecord(state['terminated']);
  const lastTerminated = asRecord(s['lastState'])['terminated'];
  return {
    name: asString(s['name']),
    ready: s['ready'] === true,
    started: typeof s['started'] === 'boolean' ? s['started'] : undefined,
    restartCount: asNumber(s['restartCount']),
    running: state['running'] !== undefined && state['running'] !== null,
    waitingReason: waiting === undefined ? undefined : asString(waiting['reason']),
    terminated: terminated === undefined ? undefined : { reason: asString(terminated['reason']), exitCode: asNumber(terminated['exitCode']), signal: asNumber(terminated['signal']) },
    lastFinishedAt: lastTerminated === undefined || lastTerminated === null ? undefined : parseTimestamp(asString(asRecord(lastTerminated)['finishedAt'])),
  };
}

/** An init container with restartPolicy Always is a sidecar: it counts as a container. */
function isRestartable(container: unknown): boolean {
  return asRecord(container)['restartPolicy'] === 'Always';
}

function conditionsOf(pod: Pod): readonly { readonly type: string; readonly status: string; readonly reason?: string | undefined }[] {
  return pod.status?.conditions ?? [];
}

function hasCondition(pod: Pod, type: string): boolean {
  // upstream's isPodInitializedConditionTrue looks at the first Initialized condition only.
  const found = conditionsOf(pod).find((c) => c.type === type);
  return found?.status === 'True';
}

function hasPodReadyCondition(pod: Pod): boolean {
  return conditionsOf(pod).some((c) => c.type === 'Ready' && c.status === 'True');
}

function later(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return b > a ? b : a;
}

export function podCells(pod: Pod, now: number): readonly string[] {
  const spec = asRecord(pod.spec);
  const status = asRecord(pod.status);
  const containers = asArray(spec['containers']);
  const initContainers = asArray(spec['initContainers']);
  const initByName = new Map<string, unknown>();
  let totalContainers = containers.length;
  for (const c of initContainers) {
    initByName.set(asString(asRecord(c)['name']), c);
    if (isRestartable(c)) totalContainers++;
  }

  const phase = asString(status['phase']);
  let reason = asString(status['reason']) !== '' ? asString(status['reason']) : phase;
  if (conditionsOf(pod).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';

  let restarts = 0;
  let restartableRestarts = 0;
  let readyContainers = 0;
  let lastRestart: number | undefined;
  let lastRestartableRestart: number | undefined;

  let initializing = false;
  const initStatuses = asArray(status['initContainerStatuses']).map(containerStatus);
  for (const [i, c] of initStatuses.entries()) {
    restarts += c.restartCount;
    lastRestart = later(lastRestart, c.lastFinishedAt);
    const restartable = isRestartable(initByName.get(c.name));
    if (restartable) {
      restartableRestarts += c.restartCount;
      lastRestartableRestart = later(lastRestartableRestart, c.lastFinishedAt);
    }
    if (c.terminated !== undefined && c.terminated.exitCode === 0) continue;
    if (restartable && c.started === true) {
      if (c.ready) readyContainers++;
      continue;
    }
    if (c.terminated !== undefined) {
      // initialization failed
      if (c.terminated.reason === '') reason = c.terminated.signal !== 0 ? `Init:Signal:${c.terminated.signal}` : `Init:ExitCode:${c.terminated.exitCode}`;
      else reason = `Init:${c.terminated.reason}`;
    } else if (c.waitingReason !== undefined && c.waitingReason !== '' && c.waitingReason !== 'PodInitializing') {
      reason = `Init:${c.waitingReason}`;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(pod, 'Initialized')) {
    restarts = restartableRestarts;
    lastRestart = lastRestartableRestart;
    let hasRunning = false;
    const statuses = asArray(status['containerStatuses']).map(containerStatus);
    // Backwards, so that the first container's state has the last word.
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i];
      if (c === undefined) continue;
      restarts += c.restartCount;
      lastRestart = later(lastRestart, c.lastFinishedAt);
      if (c.waitingReason !== undefined && c.waitingReason !== '') reason = c.waitingReason;
      else if (c.terminated !== undefined && c.terminated.reason !== '') reason = c.terminated.reason;
      else if (c.terminated !== undefined) reason = c.terminated.signal !== 0 ? `Signal:${c.terminated.signal}` : `ExitCode:${c.terminated.exitCode}`;
      else if (c.ready && c.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // A pod whose containers report Completed while one still runs is Running (or NotReady).
    if (reason === 'Completed' && hasRunning) reason = hasPodReadyCondition(pod) ? 'Running' : 'NotReady';
  }

  const deleting = pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
  if (deleting && asString(status['reason']) === NODE_UNREACHABLE_POD_REASON) reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  const restartsCell = restarts !== 0 && lastRestart !== undefined ? `${restarts} (${humanDuration(now - lastRestart)} ago)` : String(restarts);

  const podIPs = asArray(status['podIPs']);
  const podIP = asString(asRecord(podIPs[0])['ip']);
  const nodeName = asString(spec['nodeName']);
  const nominated = asString(status['nominatedNodeName']);
  const gates = asArray(spec['readinessGates']);
  let readinessGates = '<none>';
  if (gates.length > 0) {
    let trueConditions = 0;
    for (const gate of gates) {
      const condition = conditionsOf(pod).find((c) => c.type === asString(asRecord(gate)['conditionType']));
      if (condition?.status === 'True') trueConditions++;
    }
    readinessGates = `${trueConditions}/${gates.length}`;
  }

  return [
    pod.metadata.name ?? '',
    `${readyContainers}/${totalContainers}`,
    reason,
    restartsCell,
    translateTimestampSince(pod.metadata.creationTimestamp, now),
    podIP === '' ? '<none>' : podIP,
    nodeName === '' ? '<none>' : nodeName,
    nominated === '' ? '<none>' : nominated,
    readinessGates,
  ];
}

const SUCCEEDED: readonly TableRowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
const FAILED: readonly TableRowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];

export const podPrinter: ResourcePrinter<Pod> = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'Ready containers out of all containers of the pod.'),
    column('Status', 'string', 'A summary of the pod\'s phase and the state of its containers.'),
    column('Restarts', 'string', 'How many times the pod\'s containers restarted, and how long ago the last restart was.'),
    AGE_COLUMN,
    column('IP', 'string', 'The pod\'s first IP address.', { priority: 1 }),
    column('Node', 'string', 'The node the pod is bound to.', { priority: 1 }),
    column('Nominated Node', 'string', 'The node the scheduler nominated for the pod, if any.', { priority: 1 }),
    column('Readiness Gates', 'string', 'True readiness gate conditions out of all readiness gates.', { priority: 1 }),
  ],
  cells: podCells,
  conditions: (pod) => {
    const phase = pod.status?.phase;
    return phase === 'Succeeded' ? SUCCEEDED : phase === 'Failed' ? FAILED : undefined;
  },
};
