// Deployments and ReplicaSets: generation 1 and an empty status on create; an update keeps the
// stored status and moves the generation when the spec changed (for a Deployment, its
// annotations too, which are copied to its ReplicaSets); the status subresource keeps the
// stored spec, and for a Deployment its labels. Validation (apps/v1 selector immutability and
// the status checks included) is api-types'.
// upstream (v1.33): pkg/registry/apps/deployment/strategy.go (PrepareForCreate,
//           PrepareForUpdate, deploymentStatusStrategy), pkg/registry/apps/replicaset/strategy.go
import type { KubeObject } from '@kubesvc/api-types';
import { semanticEqual } from '@kubesvc/api-types';
import { metaOf, withMeta } from '../common.js';
import { keepStoredStatus, type RestStrategy } from '../strategy.js';
import { validateGeneric, validateUpdateGeneric } from './generic.js';

function isApps(object: KubeObject): boolean {
  return object.kind === 'Deployment' || object.kind === 'ReplicaSet';
}

function bumpGeneration(object: KubeObject, old: KubeObject): KubeObject {
  if (!isApps(object) || object.kind !== old.kind) return object;
  const spec = (object as { spec?: unknown }).spec;
  const oldSpec = (old as { spec?: unknown }).spec;
  const annotationsMoved = object.kind === 'Deployment' && !semanticEqual(metaOf(object).annotations ?? {}, metaOf(old).annotations ?? {});
  if (semanticEqual(spec, oldSpec) && !annotationsMoved) return object;
  return withMeta(object, { ...metaOf(object), generation: (metaOf(old).generation ?? 0) + 1 });
}

export const appsStrategy: RestStrategy = {
  prepareForCreate(object: KubeObject): KubeObject {
    if (!isApps(object)) return object;
    return { ...withMeta(object, { ...metaOf(object), generation: 1 }), status: {} } as KubeObject;
  },
  validate: validateGeneric,
  prepareForUpdate(object: KubeObject, old: KubeObject): KubeObject {
    return isApps(object) && object.kind === old.kind ? keepStoredStatus(object, old) : object;
  },
  validateUpdate: validateUpdateGeneric,
  // The generation compares the defaulted spec, as upstream's strategy sees the decoded one.
  afterValidateUpdate: bumpGeneration,
  // deploymentStatusStrategy.PrepareForUpdate: the labels are the stored ones too.
  prepareForStatusUpdate(object: KubeObject, old: KubeObject): KubeObject {
    if (object.kind !== 'Deployment' || old.kind !== 'Deployment') return object;
    const { labels: _l, ...meta } = metaOf(object);
    const labels = metaOf(old).labels;
    return withMeta(object, labels === undefined ? meta : { ...meta, labels });
  },
};
