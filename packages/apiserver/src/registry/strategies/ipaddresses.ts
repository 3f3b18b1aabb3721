// IPAddresses (networking.k8s.io/v1): cluster-scoped, named by the IP in its canonical form,
// validated by api-types' validateIPAddress on create and, on update, validateIPAddress then
// validateIPAddressUpdate (the parentRef is immutable). No status, nothing prepared.
// A delete of one with finalizers marks it (the generic store's, verbs/delete.ts); the update that removes the
// last finalizer deletes it.
// upstream: pkg/registry/networking/ipaddress/strategy.go (ipAddressStrategy:
//           PrepareForCreate, PrepareForUpdate, Validate, ValidateUpdate, AllowCreateOnUpdate),
//           pkg/registry/networking/ipaddress/storage/storage.go (REST)
// Upstream's name generator for IPAddresses is a no-op (noopNameGenerator): a create with
// only generateName is named generateName itself, so `generateName: 10.0.0.1` makes the
// IPAddress 10.0.0.1.
import type { RestStrategy } from '../strategy.js';
import { unchanged, validateGeneric, validateUpdateGeneric } from './generic.js';

export const ipAddressStrategy: RestStrategy = {
  prepareForCreate: unchanged,
  validate: validateGeneric,
  prepareForUpdate: unchanged,
  validateUpdate: validateUpdateGeneric,
  generateName: (base) => base,
};
