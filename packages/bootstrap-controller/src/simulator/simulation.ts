// A deterministic simulation: one cluster value, a virtual clock, and any number of apiservers
// each running a bootstrap controller. The scheduler delivers the messages a runtime would: a
// fresh Observed before each message when the cluster (or the time) changed, Ticks at the times
// the controllers ask for, and an ActionResult for every write, which it applies at once. User
// operations and injected failures change the cluster between deliveries. Every function
// returns a new Simulation and leaves the one it was given as it was.
import { err, formatCIDR, formatPortRange, parseServiceNetworking, seededRng, type RepairEvent, type Service } from '@kubesvc/api-types';
import { bootstrapConfig, type BootstrapConfig, type BootstrapOptions } from '../config.js';
import { initialState, step, type ControllerState } from '../controller.js';
import type { ApiError, ApiErrorReason, Message, Write } from '../messages.js';
import {
  applyWrite,
  conflict,
  createNamespace,
  createService,
  deleteObject,
  leakClusterIP,
  leakClusterNodePort,
  newCluster,
  notFound,
  observe,
  rangeConflict,
  type Cluster,
  type ClusterResult,
} from './cluster.js';

export interface Apiserver {
  readonly name: string;
  readonly config: BootstrapConfig;
  /** undefined while the apiserver is down. */
  readonly state: ControllerState | undefined;
  /** The Tick the controller asked for. */
  readonly wakeAt: number | undefined;
  /** The cluster revision and time of the last Observed delivered. */
  readonly seen: string | undefined;
}

export type SimRecord = { readonly at: number; readonly server: string } & (
  | { readonly kind: 'log'; readonly level: 'error' | 'warning' | 'info'; readonly message: string }
  | { readonly kind: 'event'; readonly event: RepairEvent }
  | { readonly kind: 'fatal'; readonly message: string }
  | { readonly kind: 'write'; readonly write: Write; readonly error: ApiError | undefined }
  | { readonly kind: 'user'; readonly op: string; readonly error: ApiError | undefined }
);

/** What an injected failure hits: the next controller write to this kind of object. */
export type FailureTarget = 'Namespace' | 'Service' | 'Endpoints' | 'EndpointSlice' | 'RangeAllocation' | 'Lease';

export interface InjectedFailure {
  readonly target: FailureTarget;
  readonly reason: Extract<ApiErrorReason, 'Conflict' | 'InternalError' | 'ServiceUnavailable'>;
}

export interface Simulation {
  readonly now: number;
  readonly cluster: Cluster;
  readonly apiservers: readonly Apiserver[];
  readonly records: readonly SimRecord[];
  readonly failures: readonly InjectedFailure[];
}

export interface SimulationOptions {
  /** Default 10.96.0.0/24. */
  readonly serviceClusterIPRange?: string;
  readonly serviceNodePortRange?: string;
  /** Seeds the dynamic ClusterIP and NodePort draws. */
  readonly seed?: number;
  /** Namespaces that exist at time 0 (default: none; the controllers create them). */
  readonly namespaces?: readonly string[];
}

export function newSimulation(options: SimulationOptions = {}): Simulation {
  const networking = parseServiceNetworking({
    serviceClusterIPRange: options.serviceClusterIPRange ?? '10.96.0.0/24',
    ...(options.serviceNodePortRange === undefined ? {} : { serviceNodePortRange: options.serviceNodePortRange }),
  });
  if (!networking.ok) throw new Error(networking.error.message);
  let cluster = newCluster(networking.value.primary, networking.value.nodePortRange, seededRng(options.seed ?? 1));
  for (const name of options.namespaces ?? []) {
    const created = createNamespace(cluster, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    if (created.ok) cluster = created.value;
  }
  return { now: 0, cluster, apiservers: [], records: [], failures: [] };
}

/** Adds an apiserver (down until started). Its options default the service range to the simulation's. */
export function addApiserver(sim: Simulation, name: string, options: Partial<BootstrapOptions> & { readonly publicIP: string }): Simulation {
  const configured = bootstrapConfig({
    serviceClusterIPRange: formatCIDR(sim.cluster.serviceCIDR),
    serviceNodePortRange: formatPortRange(sim.cluster.nodePortRange),
    ...options,
  });
  if (!configured.ok) throw new Error(configured.error.message);
  return { ...sim, apiservers: [...sim.apiservers, { name, config: configured.value, state: undefined, wakeAt: undefined, seen: undefined }] };
}

// --- delivery ----------------------------------------------------------------------------

/** One operation's working copy; turned back into a Simulation at the end. */
class Run {
  now: number;
  cluster: Cluster;
  readonly servers: Apiserver[];
  readonly records: SimRecord[];
  readonly failures: InjectedFailure[];

  constructor(sim: Simulation) {
    this.now = sim.now;
    this.cluster = sim.cluster;
    this.servers = [...sim.apiservers];
    this.records = [...sim.records];
    this.failures = [...sim.failures];
  }

  done(): Simulation {
    return { now: this.now, cluster: this.cluster, apiservers: this.servers, records: this.records, failures: this.failures };
  }

  index(name: string): number {
    const i = this.servers.findIndex((s) => s.name === name);
    if (i < 0) throw new Error(`no apiserver ${name}`);
    return i;
  }

  patch(i: number, patch: Partial<Apiserver>): Apiserver {
    const server = { ...this.at(i), ...patch };
    this.servers[i] = server;
    return server;
  }

  at(i: number): Apiserver {
    const server = this.servers[i];
    if (server === undefined) throw new Error(`no apiserver ${i}`);
    return server;
  }

  /** Delivers a message and everything it leads to (results of its writes), in order. */
  deliver(first: number, message: Message): void {
    const queue: [number, Message][] = [[first, message]];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const [i, msg] = next;
      const seen = `${this.cluster.revision}@${this.now}`;
      if (this.at(i).state !== undefined && this.at(i).seen !== seen) {
        this.patch(i, { seen });
        this.stepServer(i, { type: 'Observed', ...observe(this.cluster, this.now) }, queue);
      }
      this.stepServer(i, msg, queue);
    }
  }

  private stepServer(i: number, msg: Message, queue: [number, Message][]): void {
    const server = this.at(i);
    if (server.state === undefined) return;
    const result = step(server.state, msg);
    this.patch(i, { state: result.state });
    for (const action of result.actions) {
      const record = { at: this.now, server: server.name };
      switch (action.kind) {
        case 'wake-at':
          this.patch(i, { wakeAt: action.at });
          break;
        case 'log':
          this.records.push({ ...record, kind: 'log', level: action.level, message: action.message });
          break;
        case 'fatal':
          this.records.push({ ...record, kind: 'fatal', message: action.message });
          this.patch(i, { state: undefined, wakeAt: undefined, seen: undefined });
          return;
        case 'event':
          this.records.push({ ...record, kind: 'event', event: action.event });
          break;
        default: {
          const { id, ...write } = action;
          const result = this.injected(write) ?? applyWrite(this.cluster, write, this.now);
          if (result.ok) this.cluster = result.value;
          const error = result.ok ? undefined : result.error;
          this.records.push({ ...record, kind: 'write', write, error });
          queue.push([i, { type: 'ActionResult', id, error }]);
        }
      }
    }
  }

  private injected(write: Write): ClusterResult | undefined {
    const target = targetOf(write);
    if (target === undefined) return undefined;
    const at = this.failures.findIndex((f) => f.target === target);
    const failure = this.failures[at];
    if (failure === undefined) return undefined;
    this.failures.splice(at, 1);
    if (failure.reason === 'Conflict') return injectedConflict(write);
    const message = failure.reason === 'InternalError' ? 'Internal error occurred: injected failure' : 'the server is currently unable to handle the request';
    return err({ _tag: failure.reason, message });
  }

  advanceTo(time: number): void {
    for (;;) {
      let pick = -1;
      for (const [i, server] of this.servers.entries()) {
        const at = server.wakeAt;
        if (server.state === undefined || at === undefined || at > time) continue;
        if (pick < 0 || at < (this.at(pick).wakeAt ?? Infinity)) pick = i;
      }
      if (pick < 0) break;
      this.now = Math.max(this.now, this.at(pick).wakeAt ?? this.now);
      this.patch(pick, { wakeAt: undefined });
      this.deliver(pick, { type: 'Tick', now: this.now });
    }
    this.now = Math.max(this.now, time);
  }

  user(op: string, result: ClusterResult): void {
    if (result.ok) this.cluster = result.value;
    this.records.push({ at: this.now, server: 'user', kind: 'user', op, error: result.ok ? undefined : result.error });
  }
}

function targetOf(write: Write): FailureTarget | undefined {
  switch (write.kind) {
    case 'create':
    case 'update':
      return write.object.kind;
    case 'delete':
      return write.objectKind;
    case 'write-range':
      return 'RangeAllocation';
    case 'put-lease':
    case 'delete-lease':
      return 'Lease';
    case 'event':
      return undefined;
  }
}

/** The Conflict the store would answer for this write, with the Status message of its resource. */
function injectedConflict(write: Write): ClusterResult {
  switch (write.kind) {
    case 'create':
    case 'update':
      return conflict(write.object.kind, write.object.metadata.name ?? '');
    case 'delete':
      return conflict(write.objectKind, write.name);
    case 'write-range':
      return rangeConflict(write.range, 'the provided resource version does not match');
    case 'put-lease':
    case 'delete-lease': {
      // A master lease is stored as an Endpoints object under /masterleases/<ip>.
      const ip = write.kind === 'put-lease' ? write.lease.ip : write.ip;
      return conflict('Endpoints', ip);
    }
    case 'event':
      return err({ _tag: 'Conflict', message: '' });
  }
}

// --- operations --------------------------------------------------------------------------

/** Starts (or restarts) an apiserver: Start, then a 200 from /readyz unless `ready` is false. */
export function startApiserver(sim: Simulation, name: string, options: { readonly ready?: boolean } = {}): Simulation {
  const run = new Run(sim);
  const i = run.index(name);
  if (run.at(i).state !== undefined) return sim;
  run.patch(i, { state: initialState(run.at(i).config), wakeAt: undefined, seen: undefined });
  run.deliver(i, { type: 'Start', now: run.now });
  if (options.ready ?? true) run.deliver(i, { type: 'Readyz', ok: true, now: run.now });
  return run.done();
}

/** /readyz answers 200 from now on. */
export function markReady(sim: Simulation, name: string): Simulation {
  const run = new Run(sim);
  run.deliver(run.index(name), { type: 'Readyz', ok: true, now: run.now });
  return run.done();
}

/** The process dies: no Stop, its lease stays until it expires. */
export function crashApiserver(sim: Simulation, name: string): Simulation {
  const run = new Run(sim);
  run.patch(run.index(name), { state: undefined, wakeAt: undefined, seen: undefined });
  return run.done();
}

/** A clean shutdown: Stop, the removal of its endpoints, then the process exits. */
export function stopApiserver(sim: Simulation, name: string): Simulation {
  const run = new Run(sim);
  const i = run.index(name);
  if (run.at(i).state === undefined) return sim;
  run.deliver(i, { type: 'Stop', now: run.now });
  run.patch(i, { state: undefined, wakeAt: undefined, seen: undefined });
  return run.done();
}

/** Moves the clock forward by `ms`, delivering every Tick asked for on the way. */
export function advance(sim: Simulation, ms: number): Simulation {
  const run = new Run(sim);
  run.advanceTo(run.now + ms);
  return run.done();
}

export interface UserService {
  readonly name: string;
  readonly namespace?: string;
  /** Unset: allocated dynamically. */
  readonly clusterIP?: string;
  readonly type?: 'ClusterIP' | 'NodePort';
  readonly nodePort?: number;
}

/** kubectl create service: allocated by the registry like any Service. */
export function createUserService(sim: Simulation, svc: UserService): Simulation {
  const service: Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: svc.name, namespace: svc.namespace ?? 'default' },
    spec: {
      ports: [{ name: 'http', port: 80, protocol: 'TCP', ...(svc.nodePort === undefined ? {} : { nodePort: svc.nodePort }) }],
      selector: { app: svc.name },
      type: svc.type ?? 'ClusterIP',
      ...(svc.clusterIP === undefined ? {} : { clusterIP: svc.clusterIP }),
    },
  };
  const run = new Run(sim);
  run.user(`create service ${service.metadata.namespace ?? ''}/${svc.name}`, createService(run.cluster, service));
  return run.done();
}

/** kubectl delete. */
export function deleteUserObject(sim: Simulation, kind: 'Namespace' | 'Service' | 'Endpoints' | 'EndpointSlice', namespace: string, name: string): Simulation {
  const run = new Run(sim);
  run.user(`delete ${kind} ${kind === 'Namespace' ? name : `${namespace}/${name}`}`, deleteObject(run.cluster, kind, namespace, name));
  return run.done();
}

/** kubectl edit: the Service as `edit` returns it (its ClusterIP cannot change). */
export function editUserService(sim: Simulation, namespace: string, name: string, edit: (service: Service) => Service): Simulation {
  const run = new Run(sim);
  const old = run.cluster.services.get(`${namespace}/${name}`);
  const op = `edit service ${namespace}/${name}`;
  if (old === undefined) {
    run.user(op, notFound('Service', name));
  } else {
    run.user(op, applyWrite(run.cluster, { kind: 'update', object: edit(old), resourceVersion: old.metadata.resourceVersion }, run.now));
  }
  return run.done();
}

/** An IP taken in the RangeAllocation but held by no Service, as a crash mid-create leaves it. */
export function leakIP(sim: Simulation, ip: string): Simulation {
  const run = new Run(sim);
  run.user(`leak ${ip}`, leakClusterIP(run.cluster, ip));
  return run.done();
}

/** A NodePort taken in the RangeAllocation but held by no Service. */
export function leakNodePort(sim: Simulation, port: number): Simulation {
  const run = new Run(sim);
  run.user(`leak node port ${port}`, leakClusterNodePort(run.cluster, port));
  return run.done();
}

/** The next controller write to `target` fails with `reason`. */
export function injectFailure(sim: Simulation, failure: InjectedFailure): Simulation {
  return { ...sim, failures: [...sim.failures, failure] };
}

export function clearFailures(sim: Simulation): Simulation {
  return { ...sim, failures: [] };
}
