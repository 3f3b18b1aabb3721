// `kubectl get nodes`: NAME STATUS ROLES AGE VERSION [INTERNAL-IP EXTERNAL-IP OS-IMAGE
// KERNEL-VERSION CONTAINER-RUNTIME]. kubesvc has no Node kind of its own yet, so the printer
// reads the parts of a core/v1 Node it needs from plain JSON.
// upstream: pkg/printers/internalversion/printers.go (nodeColumnDefinitions, printNode,
//           findNodeRoles, getNodeInternalIP, getNodeExternalIP)
import type { ObjectMeta } from '@kubesvc/api-types';
import { translateTimestampSince } from './human-duration.js';
import { AGE_COLUMN, asArray, asRecord, asString, column, NAME_COLUMN, type ResourcePrinter } from './printer.js';

/** A core/v1 Node, as loosely as the printer needs it. */
export interface NodeObject {
  readonly metadata: ObjectMeta;
  readonly spec?: unknown;
  readonly status?: unknown;
  readonly [field: string]: unknown;
}

const LABEL_NODE_ROLE_PREFIX = 'node-role.kubernetes.io/';
const NODE_LABEL_ROLE = 'kubernetes.io/role';

/** Roles from `node-role.kubernetes.io/<role>` labels and the `kubernetes.io/role` label, sorted. */
export function nodeRoles(labels: Readonly<Record<string, string>> | undefined): readonly string[] {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith(LABEL_NODE_ROLE_PREFIX)) {
      const role = k.slice(LABEL_NODE_ROLE_PREFIX.length);
      if (role !== '') roles.add(role);
    } else if (k === NODE_LABEL_ROLE && v !== '') {
      roles.add(v);
    }
  }
  return [...roles].sort();
}

/** Ready, NotReady or Unknown (no Ready condition), then SchedulingDisabled when cordoned. */
export function nodeStatus(node: NodeObject): string {
  // The last Ready condition wins, as upstream's condition map keeps the last of each type.
  let ready: string | undefined;
  for (const c of asArray(asRecord(node.status)['conditions'])) {
    const condition = asRecord(c);
    if (condition['type'] === 'Ready') ready = asString(condition['status']);
  }
  const status = [ready === undefined ? 'Unknown' : ready === 'True' ? 'Ready' : 'NotReady'];
  if (asRecord(node.spec)['unschedulable'] === true) status.push('SchedulingDisabled');
  return status.join(',');
}

function nodeAddress(node: NodeObject, type: 'InternalIP' | 'ExternalIP'): string {
  for (const a of asArray(asRecord(node.status)['addresses'])) {
    const address = asRecord(a);
    if (address['type'] === type) return asString(address['address']);
  }
  return '<none>';
}

function orUnknown(value: string): string {
  return value === '' ? '<unknown>' : value;
}

export const nodePrinter: ResourcePrinter<NodeObject> = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'The status of the node.'),
    column('Roles', 'string', 'The roles of the node.'),
    AGE_COLUMN,
    column('Version', 'string', 'The kubelet version the node reports.'),
    column('Internal-IP', 'string', 'The node\'s first InternalIP address.', { priority: 1 }),
    column('External-IP', 'string', 'The node\'s first ExternalIP address.', { priority: 1 }),
    column('OS-Image', 'string', 'The OS image the node reports.', { priority: 1 }),
    column('Kernel-Version', 'string', 'The kernel version the node reports.', { priority: 1 }),
    column('Container-Runtime', 'string', 'The container runtime and version the node reports.', { priority: 1 }),
  ],
  cells: (node, now) => {
    const info = asRecord(asRecord(node.status)['nodeInfo']);
    const roles = nodeRoles(node.metadata.labels).join(',');
    return [
      node.metadata.name ?? '',
      nodeStatus(node),
      roles === '' ? '<none>' : roles,
      translateTimestampSince(node.metadata.creationTimestamp, now),
      asString(info['kubeletVersion']),
      nodeAddress(node, 'InternalIP'),
      nodeAddress(node, 'ExternalIP'),
      orUnknown(asString(info['osImage'])),
      orUnknown(asString(info['kernelVersion'])),
      orUnknown(asString(info['containerRuntimeVersion'])),
    ];
  },
};
