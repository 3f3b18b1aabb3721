// ServiceCIDRs (networking.k8s.io/v1): cluster-scoped, validated by api-types'
// validateServiceCIDR on create and with validateServiceCIDRUpdate on update (the one-to-two
// CIDR upgrade is the only spec change allowed). The status subresource writes the status and
// keeps the stored spec (verbs/update.ts prepareStatusUpdate, as ResetObjectMetaForStatus and
// `newServiceCIDR.Spec = oldServiceCIDR.Spec` do upstream).
// A delete of one with finalizers marks it (the generic store's, verbs/delete.ts); the update that removes the
// last finalizer deletes it.
// upstream: pkg/registry/networking/servicecidr/strategy.go (serviceCIDRStrategy:
//           PrepareForCreate, PrepareForUpdate, Validate, ValidateUpdate, AllowCreateOnUpdate;
//           serviceCIDRStatusStrategy: PrepareForUpdate, ValidateUpdate),
//           pkg/registry/networking/servicecidr/storage/storage.go (REST, StatusREST)
// Upstream's PrepareForCreate and PrepareForUpdate of the main resource are empty (their
// comments say "clears the status", the bodies only type-assert): the status a create or an
// update of `servicecidrs` carries is stored as sent. Only server-side apply's reset fields
// (GetResetFields: `status`) keep an apply from owning it, and apply is not served here.
import type { RestStrategy } from '../strategy.js';
import { unchanged, validateGeneric, validateUpdateGeneric } from './generic.js';

export const serviceCIDRStrategy: RestStrategy = {
  prepareForCreate: unchanged,
  validate: validateGeneric,
  prepareForUpdate: unchanged,
  validateUpdate: validateUpdateGeneric,
};
