// `kubectl get deployments`: NAME READY UP-TO-DATE AVAILABLE AGE [CONTAINERS IMAGES SELECTOR];
// `kubectl get replicasets`: NAME DESIRED CURRENT READY AGE [CONTAINERS IMAGES SELECTOR].
// upstream (v1.33): pkg/printers/internalversion/printers.go (deploymentColumnDefinitions,
//           replicaSetColumnDefinitions, printDeployment, printReplicaSet, layoutContainerCells)
import { labelSelectorString, type Deployment, type PodTemplateSpec, type ReplicaSet } from '@kubesvc/api-types';
import { translateTimestampSince } from './human-duration.js';
import { AGE_COLUMN, asArray, asRecord, asString, column, NAME_COLUMN, type ResourcePrinter } from './printer.js';

const CONTAINERS_COLUMN = column('Containers', 'string', 'Names of each container in the template.', { priority: 1 });
const IMAGES_COLUMN = column('Images', 'string', 'Images referenced by each container in the template.', { priority: 1 });
const SELECTOR_COLUMN = column('Selector', 'string', 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.', {
  priority: 1,
});

/** layoutContainerCells: the template's container names and images, comma-joined. */
function containerCells(template: PodTemplateSpec | undefined): [string, string] {
  const containers = asArray(template?.spec?.['containers']).map(asRecord);
  return [containers.map((c) => asString(c['name'])).join(','), containers.map((c) => asString(c['image'])).join(',')];
}

export const deploymentPrinter: ResourcePrinter<Deployment> = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'Number of the pod with ready state'),
    column('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
    column('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
  ],
  cells: (deployment, now) => {
    const status = deployment.status ?? {};
    const [containers, images] = containerCells(deployment.spec?.template);
    return [
      deployment.metadata.name ?? '',
      `${status.readyReplicas ?? 0}/${deployment.spec?.replicas ?? 0}`,
      status.updatedReplicas ?? 0,
      status.availableReplicas ?? 0,
      translateTimestampSince(deployment.metadata.creationTimestamp, now),
      containers,
      images,
      labelSelectorString(deployment.spec?.selector),
    ];
  },
};

export const replicaSetPrinter: ResourcePrinter<ReplicaSet> = {
  columns: [
    NAME_COLUMN,
    column('Desired', 'integer', 'Replicas is the number of desired pods.'),
    column('Current', 'integer', 'Replicas is the most recently observed number of replicas.'),
    column('Ready', 'integer', 'The number of ready replicas for this replica set.'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR_COLUMN,
  ],
  cells: (replicaSet, now) => {
    const status = replicaSet.status ?? {};
    const [containers, images] = containerCells(replicaSet.spec?.template);
    return [
      replicaSet.metadata.name ?? '',
      replicaSet.spec?.replicas ?? 0,
      status.replicas ?? 0,
      status.readyReplicas ?? 0,
      translateTimestampSince(replicaSet.metadata.creationTimestamp, now),
      containers,
      images,
      labelSelectorString(replicaSet.spec?.selector),
    ];
  },
};
