// The registry's defaulting of a new Service's IP families: ipFamilyPolicy (SingleStack
// unless the Service asks for more), ipFamilies from the cluster IPs or the cluster's
// primary family, and the checks that come with it. The apiserver does this after v1
// defaulting and before validation, when it allocates cluster IPs; the allocation itself
// belongs to @kubesvc/ipallocator.
// upstream: pkg/registry/core/service/storage/alloc.go (initIPFamilyFields, create path),
//           pkg/registry/core/service/storage/storage.go (normalizeClusterIPs)
import { invalid, type FieldError } from './validation/field-errors.js';
import { fieldPath } from './validation/field-path.js';
import { normalizeServiceClusterIPs, validateServiceClusterIPsRelatedFields } from './validation/service.js';
import { CLUSTER_IP_NONE, type IPFamily, type Service, type ServiceSpec } from './objects/service.js';
import { familyName, parseIPSloppy } from './net/ip.js';

/** The cluster's service IP families, primary first: one for single-stack, two for dual-stack. */
export type ClusterIPFamilies = readonly [IPFamily] | readonly [IPFamily, IPFamily];

export type ServiceFamiliesResult =
  | { readonly ok: true; readonly service: Service }
  | { readonly ok: false; readonly errors: readonly FieldError[] };

const SPEC = fieldPath('spec');
const other = (family: IPFamily): IPFamily => (family === 'IPv4' ? 'IPv6' : 'IPv4');

function familyOf(ip: string): IPFamily | undefined {
  const parsed = parseIPSloppy(ip);
  if (!parsed.ok) return undefined;
  return familyName(parsed.value.family);
}

/**
 * Fills `clusterIPs`, `ipFamilyPolicy` and `ipFamilies` of a Service being created, as the
 * apiserver does before it allocates (for a single-stack IPv4 cluster, a plain ClusterIP
 * Service gets `SingleStack` and `["IPv4"]`). Refuses with upstream's errors what the
 * cluster cannot serve. ExternalName Services come back unchanged. Pure.
 */
export function defaultServiceIPFamilies(input: Service, cluster: ClusterIPFamilies): ServiceFamiliesResult {
  if (input.spec?.type === 'ExternalName') return { ok: true, service: input };
  const service = normalizeServiceClusterIPs(input);
  const spec: ServiceSpec = { ...service.spec };
  const clusterIPs = spec.clusterIPs ?? [];
  const headless = spec.clusterIP === CLUSTER_IP_NONE;
  const selectorless = Object.keys(spec.selector ?? {}).length === 0;
  const [primary] = cluster;

  if (spec.ipFamilyPolicy === undefined) {
    spec.ipFamilyPolicy = headless && selectorless ? 'RequireDualStack' : 'SingleStack';
  }
  const related = validateServiceClusterIPsRelatedFields({ ...service, spec });
  if (related.length > 0) return { ok: false, errors: related };

  const errors: FieldError[] = [];
  const policyPath = SPEC.child('ipFamilyPolicy');
  if (spec.ipFamilyPolicy === 'SingleStack') {
    if (clusterIPs.length > 1) {
      errors.push(invalid(policyPath, spec.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    }
    if ((spec.ipFamilies ?? []).length > 1) {
      errors.push(invalid(policyPath, spec.ipFamilyPolicy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
    }
  }

  // Families follow the given cluster IPs, up to a "None".
  const families: IPFamily[] = [...(spec.ipFamilies ?? [])] as IPFamily[];
  for (let i = 0; i < clusterIPs.length; i++) {
    const ip = clusterIPs[i] ?? '';
    if (ip === CLUSTER_IP_NONE) break;
    if (i < families.length) continue;
    const family = familyOf(ip);
    if (family === undefined) continue;
    if (!cluster.includes(family)) {
      errors.push(invalid(SPEC.child('clusterIPs').index(i), clusterIPs, `${family} is not configured on this cluster`));
    } else {
      families.push(family);
    }
  }
  if (errors.length > 0) return { ok: false, errors };

  // A headless Service without a selector gets its families whatever the cluster has.
  if (headless && selectorless) {
    if (families.length === 0) families.push(primary);
    if (families.length < 2 && spec.ipFamilyPolicy !== 'SingleStack') families.push(other(families[0] ?? primary));
    return { ok: true, service: { ...service, spec: { ...spec, ipFamilies: families } } };
  }

  if (spec.ipFamilyPolicy === 'RequireDualStack' && cluster.length < 2) {
    errors.push(invalid(policyPath, spec.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
  }
  families.forEach((family, i) => {
    if (!cluster.includes(family)) errors.push(invalid(SPEC.child('ipFamilies').index(i), family, 'not configured on this cluster'));
  });
  if (errors.length > 0) return { ok: false, errors };

  if (families.length === 0) families.push(primary);
  if (spec.ipFamilyPolicy !== 'SingleStack' && families.length === 1 && cluster.length === 2) {
    families.push(other(families[0] ?? primary));
  }
  return { ok: true, service: { ...service, spec: { ...spec, ipFamilies: families } } };
}
