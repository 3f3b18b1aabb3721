// The registry's defaulting of a Service's IP families: ipFamilyPolicy (SingleStack unless
// the Service asks for more, or the stored policy on an update), ipFamilies from the cluster
// IPs or the cluster's primary family, and the checks that come with it. The apiserver does
// this after v1 defaulting and clusterIPs normalisation, and before validation, when it
// allocates cluster IPs; the allocation itself belongs to @kubesvc/ipallocator.
// upstream (v1.26–v1.32): pkg/registry/core/service/storage/alloc.go (initIPFamilyFields,
//   isMatchingPreferDualStackClusterIPFields, reducedClusterIPs, reducedIPFamilies),
//   pkg/registry/core/service/storage/storage.go (normalizeClusterIPs)
import { familyName, parseIPSloppy } from './net/ip.js';
import { CLUSTER_IP_NONE, type IPFamily, type Service, type ServiceSpec } from './objects/service.js';
import { err, ok, type Result } from './result.js';
import { invalid, type FieldError } from './validation/field-errors.js';
import { fieldPath } from './validation/field-path.js';
import { normalizeServiceClusterIPs, sameClusterIPs, validateServiceClusterIPsRelatedFields } from './validation/service.js';
import { errInvalid, type ErrInvalid } from './validation/validate.js';

/** The cluster's service IP families, primary first: one for single-stack, two for dual-stack. */
export type ClusterIPFamilies = readonly [IPFamily] | readonly [IPFamily, IPFamily];

/** A Service with its IP families filled in, or the apiserver's 422 for what it asked. */
export type ServiceFamiliesResult = Result<Service, ErrInvalid>;

const SPEC = fieldPath('spec');
const POLICY = SPEC.child('ipFamilyPolicy');
const other = (family: IPFamily): IPFamily => (family === 'IPv4' ? 'IPv6' : 'IPv4');

function familyOf(ip: string): IPFamily | undefined {
  const parsed = parseIPSloppy(ip);
  if (!parsed.ok) return undefined;
  return familyName(parsed.value.family);
}

const sameFamilies = (a: ServiceSpec, b: ServiceSpec): boolean =>
  (a.ipFamilies ?? []).length === (b.ipFamilies ?? []).length && (a.ipFamilies ?? []).every((f, i) => f === b.ipFamilies?.[i]);

/**
 * isMatchingPreferDualStackClusterIPFields: a PreferDualStack Service whose type, cluster IPs
 * and families did not change is left alone, so that a cluster turning dual-stack (or back)
 * does not upgrade or downgrade it behind its owner's back.
 */
function isMatchingPreferDualStack(spec: ServiceSpec, old: ServiceSpec | undefined): boolean {
  if (old === undefined || spec.ipFamilyPolicy === undefined) return false;
  if (old.type !== spec.type) return false;
  if (spec.type !== 'ClusterIP' && spec.type !== 'NodePort' && spec.type !== 'LoadBalancer') return false;
  if (spec.ipFamilyPolicy !== 'PreferDualStack') return false;
  if (old.ipFamilyPolicy !== undefined && old.ipFamilyPolicy !== 'PreferDualStack') return false;
  return sameClusterIPs(old, spec) && sameFamilies(old, spec);
}

/**
 * initIPFamilyFields, on create (`old` absent) or update: expects a v1-defaulted Service whose
 * clusterIP and clusterIPs were normalised (normalizeServiceClusterIPs). Fills
 * `ipFamilyPolicy` and `ipFamilies`; on an update to SingleStack, drops the secondary cluster
 * IP and family the client left as they were. Refuses with upstream's errors, and upstream's
 * early returns, what the cluster cannot serve. ExternalName Services come back unchanged. Pure.
 */
export function initServiceIPFamilies(service: Service, cluster: ClusterIPFamilies, old?: Service): ServiceFamiliesResult {
  const oldSpec = old?.spec;
  if (service.spec?.type === 'ExternalName') return ok(service);
  const spec: ServiceSpec = { ...service.spec };
  if (isMatchingPreferDualStack(spec, oldSpec)) return ok(service);
  const [primary] = cluster;
  const headless = spec.clusterIP === CLUSTER_IP_NONE;
  const selectorless = Object.keys(spec.selector ?? {}).length === 0;
  const failed = (errors: readonly FieldError[]): ServiceFamiliesResult => err(errInvalid(service, errors));

  if (spec.ipFamilyPolicy === undefined) {
    if (oldSpec?.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = oldSpec.ipFamilyPolicy;
    else spec.ipFamilyPolicy = headless && selectorless ? 'RequireDualStack' : 'SingleStack';
  }
  // Loose pre-validation, so that what follows needs no corner cases.
  const related = validateServiceClusterIPsRelatedFields({ ...service, spec });
  if (related.length > 0) return failed(related);

  const errors: FieldError[] = [];
  if (oldSpec !== undefined) {
    if (spec.ipFamilyPolicy === 'SingleStack') {
      // Asking for SingleStack with the lists as they were is clear intent; the primary
      // cluster IP is immutable, so it is kept.
      if (sameClusterIPs(oldSpec, spec) && (spec.clusterIPs ?? []).length > 1) spec.clusterIPs = spec.clusterIPs?.slice(0, 1);
      if (sameFamilies(oldSpec, spec) && (spec.ipFamilies ?? []).length > 1) spec.ipFamilies = spec.ipFamilies?.slice(0, 1);
    } else {
      const reduced = (now: readonly string[] | undefined, before: readonly string[] | undefined): boolean =>
        (now ?? []).length > 0 && (now ?? []).length < (before ?? []).length;
      if (reduced(spec.clusterIPs, oldSpec.clusterIPs)) {
        errors.push(invalid(POLICY, spec.ipFamilyPolicy, "must be 'SingleStack' to release the secondary cluster IP"));
      }
      if (reduced(spec.ipFamilies, oldSpec.ipFamilies)) {
        errors.push(invalid(POLICY, spec.ipFamilyPolicy, "must be 'SingleStack' to release the secondary IP family"));
      }
    }
  }

  const clusterIPs = spec.clusterIPs ?? [];
  if (spec.ipFamilyPolicy === 'SingleStack') {
    if (clusterIPs.length === 2) {
      errors.push(invalid(POLICY, spec.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    }
    if ((spec.ipFamilies ?? []).length === 2) {
      errors.push(invalid(POLICY, spec.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
    }
  }

  // Families follow the given cluster IPs, up to a "None". The IPs were validated above.
  const families = [...(spec.ipFamilies ?? [])] as IPFamily[];
  for (let i = 0; i < clusterIPs.length; i++) {
    const ip = clusterIPs[i] ?? '';
    if (ip === CLUSTER_IP_NONE) break;
    if (i < families.length) continue;
    const family = familyOf(ip);
    if (family === undefined || !cluster.includes(family)) {
      errors.push(invalid(SPEC.child('clusterIPs').index(i), clusterIPs, `${family ?? 'unknown'} is not configured on this cluster`));
    } else {
      families.push(family);
    }
  }
  if (errors.length > 0) return failed(errors);

  // A headless Service without a selector gets its families whatever the cluster has.
  if (headless && selectorless) {
    if (families.length === 0) families.push(primary);
    if (families.length < 2 && spec.ipFamilyPolicy !== 'SingleStack') families.push(other(families[0] ?? primary));
    return ok({ ...service, spec: { ...spec, ipFamilies: families } });
  }

  if (spec.ipFamilyPolicy === 'RequireDualStack' && cluster.length < 2) {
    errors.push(invalid(POLICY, spec.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
  }
  families.forEach((family, i) => {
    if (!cluster.includes(family)) errors.push(invalid(SPEC.child('ipFamilies').index(i), family, 'not configured on this cluster'));
  });
  if (errors.length > 0) return failed(errors);

  if (families.length === 0) families.push(primary);
  if (spec.ipFamilyPolicy !== 'SingleStack' && families.length === 1 && cluster.length === 2) {
    families.push(other(families[0] ?? primary));
  }
  return ok({ ...service, spec: { ...spec, ipFamilies: families } });
}

/**
 * The create path's part: clusterIPs from clusterIP (normalizeClusterIPs), then
 * initServiceIPFamilies. For a single-stack IPv4 cluster, a plain ClusterIP Service gets
 * `SingleStack` and `["IPv4"]`. Pure.
 */
export function defaultServiceIPFamilies(input: Service, cluster: ClusterIPFamilies): ServiceFamiliesResult {
  if (input.spec?.type === 'ExternalName') return ok(input);
  return initServiceIPFamilies(normalizeServiceClusterIPs(input), cluster);
}
