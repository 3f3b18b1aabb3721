// Nodes: the main resource keeps the stored status (kubelets write it through /status).
// upstream: pkg/registry/core/node/strategy.go (PrepareForUpdate)
import type { KubeObject } from '@kubesvc/api-types';
import { keepStoredStatus, type RestStrategy } from '../strategy.js';
import { unchanged, validateGeneric, validateUpdateGeneric } from './generic.js';

export const nodeStrategy: RestStrategy = {
  prepareForCreate: unchanged,
  validate: validateGeneric,
  prepareForUpdate(object: KubeObject, old: KubeObject): KubeObject {
    return object.kind === 'Node' && old.kind === 'Node' ? keepStoredStatus(object, old) : object;
  },
  validateUpdate: validateUpdateGeneric,
};
