// What the apiserver does to a Service update before validating it: fill in the values
// the allocators handed out that the client left empty (re-applying a manifest that never
// named its clusterIP or nodePorts is not a change), keep clusterIP and clusterIPs in step,
// keep the stored status, and drop the fields the new type no longer has — but only those
// the client left as they were; a field the client changed stays, and validation then
// reports it.
// upstream: pkg/registry/core/service/storage/storage.go (beginUpdate: patchAllocatedValues,
//           normalizeClusterIPs), pkg/registry/core/service/strategy.go (PrepareForUpdate,
//           dropTypeDependentFields)
import { externallyAccessible } from './defaults.js';
import type { Service, ServicePort, ServiceSpec } from './objects/service.js';
import { needsHealthCheck, normalizeServiceClusterIPs, sameClusterIPs } from './validation/service.js';

const needsClusterIP = (spec: ServiceSpec | undefined): boolean => spec?.type !== 'ExternalName';
const needsNodePorts = (spec: ServiceSpec | undefined): boolean => spec?.type === 'NodePort' || spec?.type === 'LoadBalancer';
const isLoadBalancer = (spec: ServiceSpec | undefined): boolean => spec?.type === 'LoadBalancer';

function nodePortsOf(spec: ServiceSpec | undefined): Set<number> {
  return new Set((spec?.ports ?? []).map((p) => p.nodePort ?? 0).filter((n) => n !== 0));
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean =>
  (a ?? []).length === (b ?? []).length && (a ?? []).every((v, i) => v === (b ?? [])[i]);

/** patchAllocatedValues: allocated values the client omitted come back from the stored object. */
function patchAllocatedValues(spec: ServiceSpec, old: ServiceSpec): ServiceSpec {
  const out: ServiceSpec = { ...spec };
  if (needsClusterIP(old) && needsClusterIP(out)) {
    if (!out.clusterIP && old.clusterIP) out.clusterIP = old.clusterIP;
    if ((out.clusterIPs ?? []).length === 0 && (old.clusterIPs ?? []).length > 0) out.clusterIPs = old.clusterIPs;
  }
  if (needsNodePorts(old) && needsNodePorts(out) && out.ports) {
    // A node port still named by both objects cannot be handed to another port.
    const inNew = nodePortsOf(out);
    const taken = new Set([...nodePortsOf(old)].filter((n) => inNew.has(n)));
    // Ports are matched by name: the client may have changed anything else about them.
    const byName = new Map((old.ports ?? []).map((p) => [p.name ?? '', p.nodePort ?? 0]));
    out.ports = out.ports.map((p): ServicePort => {
      if ((p.nodePort ?? 0) !== 0) return p;
      const previous = byName.get(p.name ?? '') ?? 0;
      return previous !== 0 && !taken.has(previous) ? { ...p, nodePort: previous } : p;
    });
  }
  if (needsHealthCheck(old) && needsHealthCheck(out) && !out.healthCheckNodePort && old.healthCheckNodePort) {
    out.healthCheckNodePort = old.healthCheckNodePort;
  }
  return out;
}

/** dropTypeDependentFields: what the new type does not use goes, unless the client changed it. */
function dropTypeDependentFields(spec: ServiceSpec, old: ServiceSpec): ServiceSpec {
  const out: ServiceSpec = { ...spec };
  if (needsClusterIP(old) && !needsClusterIP(out)) {
    if (out.clusterIP === old.clusterIP && sameClusterIPs(out, old)) {
      delete out.clusterIP;
      delete out.clusterIPs;
    }
    if (sameList(out.ipFamilies, old.ipFamilies)) delete out.ipFamilies;
    if (out.ipFamilyPolicy === old.ipFamilyPolicy) delete out.ipFamilyPolicy;
  }
  // Node ports may be removed or moved between ports, but not added, if they are to go.
  if (needsNodePorts(old) && !needsNodePorts(out) && out.ports) {
    const oldPorts = nodePortsOf(old);
    if ([...nodePortsOf(out)].every((n) => oldPorts.has(n))) {
      out.ports = out.ports.map(({ nodePort: _dropped, ...p }) => p);
    }
  }
  if (needsHealthCheck(old) && !needsHealthCheck(out) && out.healthCheckNodePort === old.healthCheckNodePort) {
    delete out.healthCheckNodePort;
  }
  if (isLoadBalancer(old) && !isLoadBalancer(out)) {
    if (out.allocateLoadBalancerNodePorts !== undefined && out.allocateLoadBalancerNodePorts === old.allocateLoadBalancerNodePorts) {
      delete out.allocateLoadBalancerNodePorts;
    }
    if (out.loadBalancerClass === old.loadBalancerClass) delete out.loadBalancerClass;
  }
  if (externallyAccessible(old) && !externallyAccessible(out) && out.externalTrafficPolicy === old.externalTrafficPolicy) {
    delete out.externalTrafficPolicy;
  }
  return out;
}

/**
 * The registry's BeginUpdate, before IP-family defaulting: allocated values the client
 * omitted come back from the stored object, then clusterIP and clusterIPs are brought in
 * step. upstream: storage.go beginUpdate (patchAllocatedValues, normalizeClusterIPs)
 */
export function beginServiceUpdate(service: Service, old: Service): Service {
  const patched = { ...service, spec: patchAllocatedValues(service.spec ?? {}, old.spec ?? {}) };
  return normalizeServiceClusterIPs(patched, old);
}

/**
 * The strategy's PrepareForUpdate: the stored status stays (a Service that is no longer a
 * LoadBalancer has no load balancer), and the fields the new type has no use for go.
 * upstream: strategy.go PrepareForUpdate, dropTypeDependentFields
 */
export function prepareForServiceUpdate(service: Service, old: Service): Service {
  const spec = dropTypeDependentFields(service.spec ?? {}, old.spec ?? {});
  const out: Service = { ...service, spec };
  // The status belongs to the status subresource.
  const { status: _sent, ...rest } = out;
  const status = old.status === undefined ? undefined : { ...old.status };
  if (status && spec.type !== 'LoadBalancer') status.loadBalancer = {};
  return status === undefined ? rest : { ...rest, status };
}

/**
 * Prepares a defaulted Service update for validation, against the stored object, as the
 * apiserver does between decoding and validation, leaving out IP-family defaulting (which
 * needs the cluster's families: validateServiceUpdate in validation/service-request.ts
 * does the whole path). Allocation of any new cluster IP or node port is the allocators'
 * job and is not done here. Pure.
 */
export function prepareServiceUpdate(service: Service, old: Service): Service {
  return prepareForServiceUpdate(beginServiceUpdate(service, old), old);
}
