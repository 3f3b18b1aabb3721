// Events: api-types' defaulting and validation, nothing prepared. An update of a missing
// object creates it (the table's createOnUpdate).
// upstream: pkg/registry/core/event/strategy.go
import type { RestStrategy } from '../strategy.js';
import { unchanged, validateGeneric, validateUpdateGeneric } from './generic.js';

export const eventStrategy: RestStrategy = {
  prepareForCreate: unchanged,
  validate: validateGeneric,
  prepareForUpdate: unchanged,
  validateUpdate: validateUpdateGeneric,
};
