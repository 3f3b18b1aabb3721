// EndpointSlices: generation 1 on create; an update moves the generation when anything but
// metadata (or the labels) changed.
// upstream: pkg/registry/discovery/endpointslice/strategy.go (PrepareForCreate, PrepareForUpdate)
import type { EndpointSlice, KubeObject } from '@kubesvc/api-types';
import { semanticEqual } from '@kubesvc/api-types';
import { metaOf, withMeta } from '../common.js';
import type { RestStrategy } from '../strategy.js';
import { unchanged, validateGeneric, validateUpdateGeneric } from './generic.js';

/**
 * EndpointSlice PrepareForUpdate: the generation moves when anything but metadata (or the
 * labels) changed, by apiequality.Semantic.DeepEqual.
 */
function bumpSliceGeneration(slice: EndpointSlice, old: EndpointSlice): EndpointSlice {
  const { metadata: m, ...body } = slice;
  const { metadata: om, ...oldBody } = old;
  const changed = !semanticEqual(body, oldBody) || !semanticEqual(m.labels, om.labels);
  if (!changed) return slice;
  return { ...slice, metadata: { ...m, generation: (om.generation ?? 0) + 1 } };
}

export const endpointSliceStrategy: RestStrategy = {
  prepareForCreate(object: KubeObject): KubeObject {
    return object.kind === 'EndpointSlice' ? withMeta(object, { ...metaOf(object), generation: 1 }) : object;
  },
  validate: validateGeneric,
  prepareForUpdate: unchanged,
  validateUpdate: validateUpdateGeneric,
  // The generation compares the defaulted object, as upstream's strategy sees the decoded one.
  afterValidateUpdate(object: KubeObject, old: KubeObject): KubeObject {
    return object.kind === 'EndpointSlice' && old.kind === 'EndpointSlice' ? bumpSliceGeneration(object, old) : object;
  },
};
