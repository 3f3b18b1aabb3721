// A Service create or update checked the way the apiserver checks it: what a `kubectl
// create` or `kubectl replace` of a manifest gets back, short of allocation.
//
// Create (upstream v1.26–v1.32):
//   1. v1 defaulting, SetDefaults_Service (pkg/apis/core/v1/defaults.go);
//   2. the registry's beginCreate: normalizeClusterIPs, then initIPFamilyFields
//      (pkg/registry/core/service/storage/storage.go, alloc.go); its errors end the request;
//   3. the strategy's PrepareForCreate clears the status (pkg/registry/core/service/strategy.go);
//   4. ValidateService (pkg/apis/core/validation/validation.go). rest.BeforeCreate then runs
//      apimachinery's generic ObjectMeta check, which can find nothing ValidateService did
//      not: the Service name rule (a DNS-1035 label) is stricter than the generic one.
// Update:
//   1. v1 defaulting of the new object;
//   2. beginUpdate: patchAllocatedValues, normalizeClusterIPs, initIPFamilyFields;
//   3. rest.BeforeUpdate (staging/src/k8s.io/apiserver/pkg/registry/rest/update.go): the
//      generation, and a missing uid, the timestamps and the grace period come from the
//      stored object; the strategy's PrepareForUpdate keeps the stored status and drops the
//      fields the new type does not use; then the generic ObjectMeta checks and
//      ValidateServiceUpdate. A missing resourceVersion is the stored one too, as the generic
//      store does for kinds that allow an unconditional update, as Services do.
//
// Left to the caller, because they need a clock, randomness, the request or the stores:
// uid, creationTimestamp and a name from generateName on create; the request namespace;
// a resourceVersion conflict; allocating cluster IPs and node ports (the allocators), and
// the allocators' own refusals (`failed to allocate IP ...`).
import { defaultService } from '../defaults.js';
import type { ObjectMeta } from '../objects/meta.js';
import type { Service } from '../objects/service.js';
import { err, ok, type Result } from '../result.js';
import { initServiceIPFamilies, type ClusterIPFamilies } from '../service-ip-families.js';
import { beginServiceUpdate, prepareForServiceUpdate } from '../service-update.js';
import type { FieldError } from './field-errors.js';
import { fieldPath } from './field-path.js';
import { validatePathSegmentName } from './names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './object-meta.js';
import { normalizeServiceClusterIPs, validatePreparedServiceUpdate, validateService, type ServiceValidationOptions } from './service.js';
import { errInvalid, type ErrInvalid } from './validate.js';

/**
 * What the Service registry knows of its cluster. `ipFamilies` are the families of
 * `--service-cluster-ip-range`, in its order: `['IPv4']` for `10.96.0.0/12`,
 * `['IPv6', 'IPv4']` for `fd00::/108,10.96.0.0/12`. The first is the primary family.
 * `featureGates`: the gates the validation reads (absent: v1.33's defaults).
 */
export interface ServiceClusterConfig {
  readonly ipFamilies: ClusterIPFamilies;
  readonly featureGates?: ServiceValidationOptions;
}

/** The Service as the apiserver would store it (before allocation), or its 422. */
export type ServiceRequestResult = Result<Service, ErrInvalid>;

const META = fieldPath('metadata');

/**
 * Checks a Service create as the apiserver does: defaults it, fills clusterIPs from
 * clusterIP and the IP-family fields from the cluster's families, clears the status, then
 * validates. Returns the Service ready for allocation (cluster IPs still to be allocated are
 * absent), or ErrInvalid with upstream's message and causes. Pure.
 */
export function validateServiceCreate(raw: Service, cluster: ServiceClusterConfig): ServiceRequestResult {
  const normalized = normalizeServiceClusterIPs(defaultService(raw));
  const families = initServiceIPFamilies(normalized, cluster.ipFamilies);
  if (!families.ok) return families;
  // An empty ServiceStatus, as Go's JSON prints it.
  const service: Service = { ...families.value, status: { loadBalancer: {} } };
  const errors = validateService(service, cluster.featureGates);
  return errors.length > 0 ? err(errInvalid(service, errors)) : ok(service);
}

/** rest.BeforeUpdate's metadata: what an update may not change comes from the stored object. */
function keepStoredMeta(meta: ObjectMeta, old: ObjectMeta): ObjectMeta {
  const out: ObjectMeta = { ...meta };
  if (old.generation === undefined) delete out.generation;
  else out.generation = old.generation;
  if (!out.uid && old.uid) out.uid = old.uid;
  if (old.creationTimestamp) out.creationTimestamp = old.creationTimestamp;
  if (old.deletionTimestamp) out.deletionTimestamp = old.deletionTimestamp;
  if (old.deletionGracePeriodSeconds !== undefined && out.deletionGracePeriodSeconds === undefined) {
    out.deletionGracePeriodSeconds = old.deletionGracePeriodSeconds;
  }
  if (!out.resourceVersion && old.resourceVersion) out.resourceVersion = old.resourceVersion;
  return out;
}

/**
 * An ExternalName Service left holding a clusterIP with no clusterIPs, validated as it would
 * be read back. The update half of normalizeClusterIPs leaves clusterIPs empty when the
 * client both changes clusterIP and clears clusterIPs (a merge patch with `"clusterIPs":
 * null`), and ValidateService checks only clusterIPs on ExternalName, relying on the strategy
 * to have filled it from clusterIP. Every read of a Service runs normalizeClusterIPs as for
 * a create (defaultOnReadService), which fills clusterIPs from clusterIP; so the stored
 * object would be served holding an IP that no allocator gave it, which the repair loop
 * then counts. Filling it here first makes the update get the same refusal a create of
 * that object gets: spec.clusterIPs Forbidden, "may not be set for ExternalName services".
 * upstream: pkg/registry/core/service/storage/storage.go (normalizeClusterIPs,
 *           defaultOnReadService), pkg/apis/core/validation/validation.go (ValidateService)
 */
function readBackClusterIPs(service: Service): Service {
  const spec = service.spec;
  if (spec?.type !== 'ExternalName' || (spec.clusterIP ?? '') === '' || (spec.clusterIPs ?? []).length > 0) return service;
  return { ...service, spec: { ...spec, clusterIPs: [spec.clusterIP ?? ''] } };
}

/**
 * Checks a Service update against the stored Service as the apiserver does: defaults the
 * new object, fills back the allocated values the client left out, keeps clusterIP and
 * clusterIPs in step, fills the IP-family fields, keeps the stored status and what metadata
 * an update may not change, drops what a new type does not use, then validates. `old` is the
 * stored object (already defaulted). Returns the Service ready for allocation, or
 * ErrInvalid with upstream's message and causes. Pure.
 */
export function validateServiceUpdate(next: Service, old: Service, cluster: ServiceClusterConfig): ServiceRequestResult {
  const begun = beginServiceUpdate(defaultService(next), old);
  const families = initServiceIPFamilies(begun, cluster.ipFamilies, old);
  if (!families.ok) return families;
  const prepared = readBackClusterIPs(prepareForServiceUpdate(families.value, old));
  const service: Service = { ...prepared, metadata: keepStoredMeta(prepared.metadata, old.metadata) };
  // validateCommonFields, then the strategy's ValidateUpdate.
  const generic = { namespaced: true, validateName: validatePathSegmentName, kubeFinalizerNames: false } as const;
  const errors: FieldError[] = [
    ...validateObjectMeta(service.metadata, generic, META),
    ...validateObjectMetaUpdate(service.metadata, old.metadata, META, generic),
    ...validatePreparedServiceUpdate(service, old, cluster.featureGates),
  ];
  return errors.length > 0 ? err(errInvalid(service, errors)) : ok(service);
}
