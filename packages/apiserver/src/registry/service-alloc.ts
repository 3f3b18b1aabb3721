// What a Service create, update or delete takes from and gives back to the ClusterIP and
// NodePort allocators, as plain functions of the allocators' state. The registry runs a plan
// against the stored RangeAllocation objects (and, with the IPAddress allocator, the
// ServiceCIDRs and the IPAddress names) and writes the result with a compare-and-swap; on a
// conflict it reads them again and re-plans.
//
// ClusterIPs come from one of two allocators (ClusterIPAllocation): the bitmap of each
// --service-cluster-ip-range CIDR (MultiCIDRServiceAllocator off), or IPAddress objects over
// the ServiceCIDRs (on, v1.33's default), where a plan names the IPAddresses to create and,
// with the dual write, also sets the IP's bit in the bitmap of the flag's CIDR.
// upstream: pkg/registry/core/service/storage/alloc.go (v1.26-v1.32: allocateCreate,
//           allocClusterIPs, allocIPs, txnAllocNodePorts, initNodePorts, allocHealthCheckNodePort,
//           allocateUpdate, updateClusterIPs, txnUpdateNodePorts, updateNodePorts,
//           updateHealthCheckNodePort, releaseAllocatedResources, isMatchingPreferDualStackClusterIPFields)
import { err, ok } from '@kubesvc/api-types';
import type { FieldError, IPAddress, IPFamily, Result, Rng, Service, ServicePort } from '@kubesvc/api-types';
import { internalError, invalidError, type ApiError } from './errors.js';
import {
  allocateClusterIP,
  allocateClusterIPAddress,
  allocateNextClusterIP,
  allocateNextClusterIPAddress,
  allocateNextNodePort,
  allocateNodePort,
  ipFamilyOf,
  releaseClusterIP,
  releaseClusterIPAddress,
  releaseNodePort,
  serviceNeedsHealthCheck,
  type ClusterNetworking,
  type IPAddressView,
  type IPAllocator,
  type MetaAllocator,
  type PortAllocator,
} from './pure-adapters.js';

/**
 * The IPAddress allocator's state (MultiCIDRServiceAllocator on): one MetaAllocator per family
 * of the cluster over the ServiceCIDRs, and the names of the IPAddresses that exist.
 */
export interface IPAddressState {
  readonly metas: ReadonlyMap<IPFamily, MetaAllocator>;
  readonly taken: IPAddressView;
  /** Every IP inside a bitmap's CIDR is mirrored into it (DisableAllocatorDualWrite off). */
  readonly dualWrite: boolean;
}

/**
 * The allocators' state: one bitmap per service CIDR (primary first; with the IPAddress
 * allocator only while it dual-writes, else none), the ports, and the IPAddress allocator's
 * state when it runs.
 */
export interface AllocState {
  readonly ips: readonly IPAllocator[];
  readonly ports: PortAllocator;
  readonly ipAddresses?: IPAddressState;
}

/** What a Service holds: IPs by family and node ports (health check port included). */
export interface Held {
  readonly ips: readonly { readonly family: IPFamily; readonly ip: string }[];
  readonly ports: readonly number[];
  /**
   * With the IPAddress allocator, what an allocation creates: the IPAddress of each IP taken,
   * and any IPAddress left behind for a candidate the dual-written bitmap refused.
   */
  readonly ipAddresses?: readonly IPAddress[];
}

export const NOTHING: Held = { ips: [], ports: [] };

/** A view that also holds `added`. */
function withNames(view: IPAddressView, added: readonly string[]): IPAddressView {
  if (added.length === 0) return view;
  const names = new Set(added);
  return { has: (name) => names.has(name) || view.has(name) };
}

/** A plan that worked: the Service with what it was given, the allocators after, and what it took and gave up. */
export interface Plan {
  readonly service: Service;
  readonly state: AllocState;
  readonly allocated: Held;
  readonly toRelease: Held;
}

/**
 * A plan's answer, and the generator after it. The generator advances whether or not the plan
 * works (a full range consumed draws too), so it sits beside the result, not inside it: the
 * error is the ApiError the client gets and carries nothing else.
 */
export interface PlanResult {
  readonly result: Result<Plan, ApiError>;
  readonly rng: Rng;
}

class PlanError {
  constructor(readonly error: ApiError) {}
}

/** Mutable working copy of the allocators for one plan; the inputs are persistent values. */
class Work {
  ips: IPAllocator[];
  ports: PortAllocator;
  rng: Rng;
  readonly allocatedIPs: { family: IPFamily; ip: string }[] = [];
  readonly allocatedPorts: number[] = [];
  readonly createdIPAddresses: IPAddress[] = [];
  private readonly ipAddresses: IPAddressState | undefined;
  private taken: IPAddressView | undefined;
  constructor(
    state: AllocState,
    rng: Rng,
    readonly net: ClusterNetworking,
    readonly name: string,
  ) {
    this.ips = [...state.ips];
    this.ports = state.ports;
    this.rng = rng;
    this.ipAddresses = state.ipAddresses;
    this.taken = state.ipAddresses?.taken;
  }

  private index(family: IPFamily): number {
    return this.net.families.indexOf(family);
  }

  /** allocIPs: a given IP is taken or refused with 422, an empty one is the next free. */
  ip(family: IPFamily, requested: string, clusterIPs: readonly string[], namespace: string): string {
    if (this.ipAddresses !== undefined) return this.ipAddress(this.ipAddresses, family, requested, clusterIPs, namespace);
    const index = this.index(family);
    const allocator = this.ips[index];
    if (allocator === undefined) throw new PlanError(internalError(`failed to allocate a serviceIP: ${family} is not configured on this cluster`));
    if (requested === '') {
      const r = allocateNextClusterIP(allocator, this.rng);
      if (!r.ok) {
        this.rng = r.error.rng;
        throw new PlanError(internalError(`failed to allocate a serviceIP: ${r.error.message}`));
      }
      this.rng = r.value.rng;
      this.ips[index] = r.value.allocator;
      this.allocatedIPs.push({ family, ip: r.value.ip });
      return r.value.ip;
    }
    const r = allocateClusterIP(allocator, requested);
    if (!r.ok) {
      const e: FieldError = { type: 'FieldValueInvalid', field: 'spec.clusterIPs', badValue: [...clusterIPs], detail: `failed to allocate IP ${requested}: ${r.error.message}` };
      throw new PlanError(invalidError('Service', this.name, [e]));
    }
    this.ips[index] = r.value;
    this.allocatedIPs.push({ family, ip: requested });
    return requested;
  }

  /** The same with the IPAddress allocator: the IPAddress to create, and the bitmap's bit when it dual-writes. */
  private ipAddress(state: IPAddressState, family: IPFamily, requested: string, clusterIPs: readonly string[], namespace: string): string {
    const index = this.index(family);
    const meta = state.metas.get(family);
    if (meta === undefined || index < 0) throw new PlanError(internalError(`failed to allocate a serviceIP: ${family} is not configured on this cluster`));
    const bitmap = state.dualWrite ? this.ips[index] : undefined;
    const parent = { namespace, name: this.name };
    const taken = this.taken ?? state.taken;
    if (requested === '') {
      const r = allocateNextClusterIPAddress(meta, taken, this.rng, parent, bitmap);
      if (!r.ok) {
        this.rng = r.error.rng;
        throw new PlanError(internalError(`failed to allocate a serviceIP: ${r.error.message}`));
      }
      this.rng = r.value.rng;
      this.took(index, family, r.value.ip, [...r.value.leftBehind, r.value.ipAddress], r.value.bitmap);
      return r.value.ip;
    }
    const r = allocateClusterIPAddress(meta, taken, requested, parent, bitmap);
    if (!r.ok) {
      const e: FieldError = { type: 'FieldValueInvalid', field: 'spec.clusterIPs', badValue: [...clusterIPs], detail: `failed to allocate IP ${requested}: ${r.error.message}` };
      throw new PlanError(invalidError('Service', this.name, [e]));
    }
    this.took(index, family, requested, [r.value.ipAddress], r.value.bitmap);
    return requested;
  }

  private took(index: number, family: IPFamily, ip: string, created: readonly IPAddress[], bitmap: IPAllocator | undefined): void {
    if (bitmap !== undefined) this.ips[index] = bitmap;
    this.allocatedIPs.push({ family, ip });
    this.createdIPAddresses.push(...created);
    this.taken = withNames(this.taken ?? { has: () => false }, created.map((a) => a.metadata.name ?? ''));
  }

  port(requested: number, field: string): number {
    const r = allocateNodePort(this.ports, requested);
    if (!r.ok) {
      throw new PlanError(invalidError('Service', this.name, [{ type: 'FieldValueInvalid', field, badValue: requested, detail: r.error.message }]));
    }
    this.ports = r.value;
    this.allocatedPorts.push(requested);
    return requested;
  }

  nextPort(what: string): number {
    const r = allocateNextNodePort(this.ports, this.rng);
    if (!r.ok) {
      this.rng = r.error.rng;
      throw new PlanError(internalError(`${what}: ${r.error.message}`));
    }
    this.rng = r.value.rng;
    this.ports = r.value.allocator;
    this.allocatedPorts.push(r.value.port);
    return r.value.port;
  }

  state(): AllocState {
    const ipAddresses = this.ipAddresses === undefined || this.taken === undefined ? this.ipAddresses : { ...this.ipAddresses, taken: this.taken };
    return { ips: this.ips, ports: this.ports, ...(ipAddresses === undefined ? {} : { ipAddresses }) };
  }

  allocated(): Held {
    const held = { ips: [...this.allocatedIPs], ports: [...this.allocatedPorts] };
    return this.createdIPAddresses.length === 0 ? held : { ...held, ipAddresses: [...this.createdIPAddresses] };
  }
}

function run(work: Work, fn: () => { service: Service; toRelease: Held }): PlanResult {
  try {
    const { service, toRelease } = fn();
    return { result: ok({ service, state: work.state(), allocated: work.allocated(), toRelease }), rng: work.rng };
  } catch (e) {
    if (e instanceof PlanError) return { result: err(e.error), rng: work.rng };
    throw e;
  }
}

const needsNodePorts = (s: Service): boolean => s.spec?.type === 'NodePort' || s.spec?.type === 'LoadBalancer';

/** shouldAllocateNodePorts: NodePort always, LoadBalancer unless allocateLoadBalancerNodePorts is false. */
function shouldAllocateNodePorts(s: Service): boolean {
  if (s.spec?.type === 'NodePort') return true;
  if (s.spec?.type === 'LoadBalancer') return s.spec.allocateLoadBalancerNodePorts ?? true;
  return false;
}

function isHeadless(s: Service): boolean {
  return (s.spec?.clusterIPs ?? [])[0] === 'None' || s.spec?.clusterIP === 'None';
}

/** allocClusterIPs: every family of ipFamilies gets its IP (given or next), clusterIP mirrors the first. */
function allocClusterIPs(work: Work, service: Service): Service {
  if (service.spec?.type === 'ExternalName' || isHeadless(service)) return service;
  const families = (service.spec?.ipFamilies ?? []) as IPFamily[];
  const clusterIPs = [...(service.spec?.clusterIPs ?? [])];
  while (clusterIPs.length < families.length) clusterIPs.push('');
  families.forEach((family, i) => {
    clusterIPs[i] = work.ip(family, clusterIPs[i] ?? '', service.spec?.clusterIPs ?? [], service.metadata.namespace ?? '');
  });
  return { ...service, spec: { ...service.spec, clusterIPs, clusterIP: clusterIPs[0] ?? '' } };
}

/** initNodePorts: one node port per distinct service port number, given or allocated. */
function initNodePorts(work: Work, service: Service): Service {
  const ports = [...(service.spec?.ports ?? [])].map((p) => ({ ...p }));
  const byPort = new Map<number, number>();
  const allocate = shouldAllocateNodePorts(service);
  ports.forEach((p: ServicePort, i) => {
    const nodePort = p.nodePort ?? 0;
    if (nodePort === 0 && !allocate) return;
    const already = byPort.get(p.port) ?? 0;
    if (already === 0) {
      const requested = ports.find((q) => q.port === p.port && (q.nodePort ?? 0) !== 0)?.nodePort ?? 0;
      const got = requested !== 0 ? work.port(requested, `spec.ports[${i}].nodePort`) : work.nextPort('failed to allocate a nodePort');
      p.nodePort = got;
      byPort.set(p.port, got);
    } else if (nodePort !== already) {
      if (nodePort === 0) p.nodePort = already;
      else work.port(nodePort, `spec.ports[${i}].nodePort`);
    }
  });
  return { ...service, spec: { ...service.spec, ports } };
}

function allocHealthCheckNodePort(work: Work, service: Service): Service {
  const requested = service.spec?.healthCheckNodePort ?? 0;
  if (requested !== 0) {
    const r = allocateNodePort(work.ports, requested);
    if (!r.ok) throw new PlanError(internalError(`failed to allocate requested HealthCheck NodePort ${requested}: ${r.error.message}`));
    work.ports = r.value;
    work.allocatedPorts.push(requested);
    return service;
  }
  const port = work.nextPort('failed to allocate a HealthCheck NodePort 0');
  return { ...service, spec: { ...service.spec, healthCheckNodePort: port } };
}

/** allocateCreate: cluster IPs, then node ports, then the health check port. */
export function planCreate(service: Service, state: AllocState, rng: Rng, net: ClusterNetworking): PlanResult {
  const work = new Work(state, rng, net, service.metadata.name ?? '');
  return run(work, () => {
    let s = allocClusterIPs(work, service);
    if (needsNodePorts(s)) s = initNodePorts(work, s);
    if (serviceNeedsHealthCheck(s)) s = allocHealthCheckNodePort(work, s);
    return { service: s, toRelease: NOTHING };
  });
}

function ipsOf(service: Service): { family: IPFamily; ip: string }[] {
  if (service.spec?.type === 'ExternalName' || isHeadless(service)) return [];
  const out: { family: IPFamily; ip: string }[] = [];
  for (const ip of service.spec?.clusterIPs ?? (service.spec?.clusterIP ? [service.spec.clusterIP] : [])) {
    const family = ipFamilyOf(ip);
    if (family !== undefined) out.push({ family, ip });
  }
  return out;
}

function nodePortsOf(service: Service): number[] {
  return (service.spec?.ports ?? []).map((p) => p.nodePort ?? 0).filter((p) => p !== 0);
}

/**
 * The node ports a Service holds in the allocator: those of a NodePort or LoadBalancer Service
 * only. Validation lets an ExternalName Service carry `nodePort` values that nothing allocated
 * (upstream's too); upstream's releaseAllocatedResources and updateNodePorts still count them
 * as the Service's own, so deleting such a Service frees a port another Service holds, and
 * turning it into a NodePort Service keeps the port without allocating it: two Services then
 * share it. Here they are never the Service's own (docs/deviations.md).
 */
function heldNodePorts(service: Service): number[] {
  return needsNodePorts(service) ? nodePortsOf(service) : [];
}

/** releaseAllocatedResources: everything the Service holds. */
export function heldBy(service: Service): Held {
  const ports = heldNodePorts(service);
  const health = service.spec?.healthCheckNodePort ?? 0;
  if (serviceNeedsHealthCheck(service) && health > 0) ports.push(health);
  return { ips: ipsOf(service), ports };
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean =>
  (a ?? []).length === (b ?? []).length && (a ?? []).every((v, i) => v === (b ?? [])[i]);

function isMatchingPreferDualStack(service: Service, old: Service): boolean {
  const s = service.spec ?? {};
  const o = old.spec ?? {};
  if (s.ipFamilyPolicy === undefined || o.type !== s.type) return false;
  if (s.type !== 'ClusterIP' && s.type !== 'NodePort' && s.type !== 'LoadBalancer') return false;
  if (s.ipFamilyPolicy !== 'PreferDualStack' || (o.ipFamilyPolicy !== undefined && o.ipFamilyPolicy !== 'PreferDualStack')) return false;
  return sameList(s.clusterIPs, o.clusterIPs) && sameList(s.ipFamilies, o.ipFamilies);
}

/** allocateUpdate: what a type change, a dual-stack upgrade or downgrade, or new node ports take and give back. */
export function planUpdate(service: Service, old: Service, state: AllocState, rng: Rng, net: ClusterNetworking): PlanResult {
  const work = new Work(state, rng, net, service.metadata.name ?? '');
  return run(work, () => {
    let s = service;
    const releaseIPs: { family: IPFamily; ip: string }[] = [];
    const releasePorts: number[] = [];
    const oldType = old.spec?.type;
    const newType = s.spec?.type;

    // updateClusterIPs
    if (!isMatchingPreferDualStack(s, old)) {
      if (oldType === 'ExternalName' && newType !== 'ExternalName') {
        s = allocClusterIPs(work, s);
      } else if (!isHeadless(old)) {
        if (oldType !== 'ExternalName' && newType === 'ExternalName') {
          releaseIPs.push(...ipsOf(old));
        } else {
          const oldFamilies = old.spec?.ipFamilies ?? [];
          const newFamilies = (s.spec?.ipFamilies ?? []) as IPFamily[];
          if (oldFamilies.length === 1 && newFamilies.length === 2) {
            const clusterIPs = [...(s.spec?.clusterIPs ?? [])];
            if (clusterIPs.length < 2) clusterIPs.push('');
            const second = newFamilies[1];
            if (second !== undefined) clusterIPs[1] = work.ip(second, clusterIPs[1] ?? '', s.spec?.clusterIPs ?? [], s.metadata.namespace ?? '');
            s = { ...s, spec: { ...s.spec, clusterIPs } };
          } else if (oldFamilies.length === 2 && newFamilies.length === 1) {
            const ip = old.spec?.clusterIPs?.[1];
            const family = oldFamilies[1] as IPFamily | undefined;
            if (ip !== undefined && family !== undefined) releaseIPs.push({ family, ip });
          }
        }
      }
    }

    // txnUpdateNodePorts
    if (needsNodePorts(old) && (newType === 'ExternalName' || newType === 'ClusterIP')) releasePorts.push(...nodePortsOf(old));
    if (needsNodePorts(s)) {
      const oldPorts = heldNodePorts(old);
      const taken = new Set<number>();
      const ports = [...(s.spec?.ports ?? [])].map((p) => ({ ...p }));
      const allocate = shouldAllocateNodePorts(s);
      ports.forEach((p, i) => {
        const nodePort = p.nodePort ?? 0;
        if (nodePort === 0 && !allocate) return;
        if (nodePort !== 0) {
          if (!oldPorts.includes(nodePort) && !taken.has(nodePort)) {
            work.port(nodePort, `spec.ports[${i}].nodePort`);
            taken.add(nodePort);
          }
        } else {
          p.nodePort = work.nextPort('failed to allocate a nodePort');
        }
      });
      s = { ...s, spec: { ...s.spec, ports } };
      const kept = nodePortsOf(s);
      for (const p of oldPorts) if (!kept.includes(p)) releasePorts.push(p);
    }

    // updateHealthCheckNodePort
    const needed = serviceNeedsHealthCheck(old);
    const needs = serviceNeedsHealthCheck(s);
    if (!needed && needs) s = allocHealthCheckNodePort(work, s);
    else if (needed && !needs) {
      const health = old.spec?.healthCheckNodePort ?? 0;
      if (health > 0) releasePorts.push(health);
    }
    return { service: s, toRelease: { ips: releaseIPs, ports: releasePorts } };
  });
}

/** A release's outcome: the allocators after it, and the IPAddresses to delete (IPAddress allocator). */
export interface Released {
  readonly state: AllocState;
  /** The IPs whose bitmap bit it clears: with the IPAddress allocator, only those a ServiceCIDR holds. */
  readonly cleared: Held['ips'];
  readonly deletes: readonly string[];
}

/** Gives back what `held` names (silently for what is not held). */
export function release(state: AllocState, held: Held, net: ClusterNetworking): Released {
  const ips = [...state.ips];
  const deletes: string[] = [];
  const cleared: { family: IPFamily; ip: string }[] = [];
  for (const { family, ip } of held.ips) {
    const index = net.families.indexOf(family);
    const bitmap = ips[index];
    if (state.ipAddresses !== undefined) {
      // upstream MetaAllocator.Release: nothing when no ServiceCIDR of the family holds the IP.
      const meta = state.ipAddresses.metas.get(family);
      const r = meta === undefined ? undefined : releaseClusterIPAddress(meta, ip, state.ipAddresses.dualWrite ? bitmap : undefined);
      if (r === undefined) continue;
      deletes.push(r.delete);
      if (r.bitmap !== undefined && r.bitmap !== bitmap) {
        ips[index] = r.bitmap;
        cleared.push({ family, ip });
      }
      continue;
    }
    // upstream: an IP of a family no longer configured is not released.
    if (bitmap !== undefined) {
      ips[index] = releaseClusterIP(bitmap, ip);
      cleared.push({ family, ip });
    }
  }
  let ports = state.ports;
  for (const p of held.ports) ports = releaseNodePort(ports, p);
  return { state: { ...state, ips, ports }, cleared, deletes };
}

export function isEmpty(held: Held): boolean {
  return held.ips.length === 0 && held.ports.length === 0 && (held.ipAddresses ?? []).length === 0;
}
