// kube-proxy's userspace proxier on real sockets: one listener per service port, the pure
// round-robin balancer choosing endpoints, upstream's dial-retry sequence for TCP and per-client
// associations with an idle timeout for UDP.
// upstream: pkg/proxy/userspace/proxier.go (addServiceOnPortInternal, stopProxy),
// pkg/proxy/userspace/proxysocket.go (TryConnectEndpoints, ProxyLoop, proxyClient)
import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { createServer, isIPv6, type AddressInfo, type Server, type Socket } from 'node:net';
import { joinHostPort, ok, servicePortNameString, type Endpoints, type Result, type ServicePortName } from '@kubesvc/api-types';
import { DEFAULT_UDP_IDLE_TIMEOUT_MS, ENDPOINT_DIAL_TIMEOUTS_MS } from '../constants.js';
import {
  balancerState,
  cleanupStaleStickySessions,
  createLoadBalancer,
  deleteService,
  isSessionAffinity,
  newService,
  nextEndpoint,
  onEndpointsAdd,
  onEndpointsDelete,
  onEndpointsUpdate,
  setServicePortEndpoints,
  type LoadBalancer,
} from '../load-balancer.js';
import type { ErrUserspaceInput } from '../errors.js';
import type { Shuffle } from '../shuffle.js';
import { endpointAddress } from './dial.js';
import { TcpConnection, type ConnectionOwner } from './tcp-connection.js';

export interface ProxierOptions {
  /** Where listeners bind unless a service port says otherwise. Default 127.0.0.1. */
  readonly host?: string;
  /** Idle lifetime of a UDP client association, ms. Default 250 (kube-proxy --udp-timeout). */
  readonly udpIdleTimeoutMs?: number;
  /** Dial timeout of each connection attempt, ms. Default upstream's 250, 500, 1000, 2000. */
  readonly dialTimeoutsMs?: readonly number[];
  /** Seed of the endpoint shuffle. */
  readonly seed?: number;
  readonly shuffle?: Shuffle;
  /** The clock of affinity timeouts, ms. Default Date.now. */
  readonly now?: () => number;
}

export interface ServicePortSpec {
  readonly servicePort: ServicePortName;
  /** Default TCP. */
  readonly protocol?: 'TCP' | 'UDP';
  /** Listen port; 0 (the default) lets the system pick one, as upstream's random port allocator. */
  readonly port?: number;
  readonly host?: string;
  readonly sessionAffinity?: 'None' | 'ClientIP';
  /** sessionAffinityConfig.clientIP.timeoutSeconds; 0 or absent means 10800. */
  readonly affinityTimeoutSeconds?: number;
  /** Initial endpoints, "ip:port". */
  readonly endpoints?: readonly string[];
}

export interface ServicePortCounters {
  /** TCP connections accepted, or UDP client associations opened. */
  readonly connections: number;
  /** Of those, the ones open now. */
  readonly activeConnections: number;
  /** Bytes the clients sent that were written to a backend. */
  readonly bytesToBackend: number;
  /** Bytes the backends sent that were read for the clients. */
  readonly bytesFromBackend: number;
  /** Dial attempts after a failed one (each resets affinity). */
  readonly retries: number;
  /** Clients that got no backend: no endpoints, or every attempt failed. */
  readonly failures: number;
}

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

interface Counters {
  connections: number;
  bytesToBackend: number;
  bytesFromBackend: number;
  retries: number;
  failures: number;
}

interface UdpAssociation {
  readonly backend: UdpSocket;
  readonly timer: NodeJS.Timeout;
  readonly queue: Buffer[];
  connected: boolean;
  closed: boolean;
  bytesIn: number;
  bytesOut: number;
}

interface Listener {
  readonly spn: ServicePortName;
  readonly key: string;
  readonly address: ListenAddress;
  closed: boolean;
  readonly counters: Counters;
  readonly tcp?: { readonly server: Server; readonly connections: Set<TcpConnection>; readonly owner: ConnectionOwner; sticky: boolean };
  readonly udp?: { readonly socket: UdpSocket; readonly clients: Map<string, UdpAssociation> };
}

export class UserspaceProxier {
  private lb: LoadBalancer;
  private readonly listeners = new Map<string, Listener>();
  private readonly host: string;
  private readonly udpIdleTimeoutMs: number;
  private readonly dialTimeoutsMs: readonly number[];
  private readonly now: () => number;
  private stopped = false;

  constructor(options: ProxierOptions = {}) {
    this.lb = createLoadBalancer({
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.shuffle !== undefined ? { shuffle: options.shuffle } : {}),
    });
    this.host = options.host ?? '127.0.0.1';
    this.udpIdleTimeoutMs = options.udpIdleTimeoutMs ?? DEFAULT_UDP_IDLE_TIMEOUT_MS;
    this.dialTimeoutsMs = options.dialTimeoutsMs ?? ENDPOINT_DIAL_TIMEOUTS_MS;
    this.now = options.now ?? Date.now;
  }

  /** The balancer as it is now (a value: later updates do not change it). */
  get balancer(): LoadBalancer {
    return this.lb;
  }

  /**
   * Opens a listener for a service port and registers it with the balancer (affinity first,
   * then the endpoints, so that the Service's affinity timeout applies). Resolves with the
   * address it listens on.
   */
  async addService(spec: ServicePortSpec): Promise<ListenAddress> {
    if (this.stopped) throw new Error('proxier is stopped');
    const key = servicePortNameString(spec.servicePort);
    if (this.listeners.has(key)) throw new Error(`service port ${key} is already proxied`);
    const host = spec.host ?? this.host;
    const counters: Counters = { connections: 0, bytesToBackend: 0, bytesFromBackend: 0, retries: 0, failures: 0 };
    let listener: Listener;
    if ((spec.protocol ?? 'TCP') === 'UDP') {
      const socket = createSocket({ type: isIPv6(host) ? 'udp6' : 'udp4' });
      await new Promise<void>((resolve, reject) => {
        const failed = (error: Error): void => {
          socket.close();
          reject(error);
        };
        socket.once('error', failed);
        socket.bind(spec.port ?? 0, host, () => {
          socket.removeListener('error', failed);
          resolve();
        });
      });
      listener = { spn: spec.servicePort, key, address: { host, port: socket.address().port }, closed: false, counters, udp: { socket, clients: new Map() } };
      const udp = listener;
      socket.on('message', (msg, rinfo) => this.onDatagram(udp, msg, rinfo));
      socket.on('error', () => undefined);
    } else {
      const connections = new Set<TcpConnection>();
      const server = createServer({ allowHalfOpen: true, pauseOnConnect: true });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(spec.port ?? 0, host, () => {
          server.removeListener('error', reject);
          resolve();
        });
      });
      const tcp: Listener = {
        spn: spec.servicePort,
        key,
        address: { host, port: (server.address() as AddressInfo).port },
        closed: false,
        counters,
        tcp: { server, connections, owner: this.connectionOwner(() => tcp, connections), sticky: false },
      };
      listener = tcp;
      server.on('connection', (client) => this.onConnection(tcp, client));
      server.on('error', () => undefined);
    }
    this.listeners.set(key, listener);
    this.lb = newService(this.lb, spec.servicePort, spec.sessionAffinity ?? 'None', spec.affinityTimeoutSeconds ?? 0);
    // The balancer reads a client's address only under ClientIP affinity, and only this call sets
    // a port's affinity: without it, a connection costs no getpeername.
    const state = balancerState(this.lb, spec.servicePort);
    if (listener.tcp !== undefined) listener.tcp.sticky = state !== undefined && isSessionAffinity(state.affinity);
    if (spec.endpoints !== undefined) this.setEndpoints(spec.servicePort, spec.endpoints);
    return listener.address;
  }

  /** The listen address of a service port, if it is proxied. */
  address(spn: ServicePortName): ListenAddress | undefined {
    return this.listeners.get(servicePortNameString(spn))?.address;
  }

  /** New endpoints for a service port: new connections use them, open ones stay. [] resets the port. */
  setEndpoints(spn: ServicePortName, endpoints: readonly string[]): void {
    this.lb = setServicePortEndpoints(this.lb, spn, endpoints);
  }

  /** The handlers answer an object of the wrong shape with ErrUserspaceInput and change nothing. */
  onEndpointsAdd(endpoints: Endpoints): Result<void, ErrUserspaceInput> {
    return this.applyHandler(onEndpointsAdd(this.lb, endpoints));
  }

  onEndpointsUpdate(prev: Endpoints, next: Endpoints): Result<void, ErrUserspaceInput> {
    return this.applyHandler(onEndpointsUpdate(this.lb, prev, next));
  }

  onEndpointsDelete(endpoints: Endpoints): Result<void, ErrUserspaceInput> {
    return this.applyHandler(onEndpointsDelete(this.lb, endpoints));
  }

  private applyHandler(result: Result<LoadBalancer, ErrUserspaceInput>): Result<void, ErrUserspaceInput> {
    if (!result.ok) return result;
    this.lb = result.value;
    return ok(undefined);
  }

  /** Drops expired ClientIP entries of every service port (upstream runs this on each sync). */
  cleanupStaleStickySessions(): void {
    for (const l of this.listeners.values()) this.lb = cleanupStaleStickySessions(this.lb, l.spn, this.now());
  }

  counters(spn: ServicePortName): ServicePortCounters | undefined {
    const l = this.listeners.get(servicePortNameString(spn));
    if (l === undefined) return undefined;
    let toBackend = l.counters.bytesToBackend;
    let fromBackend = l.counters.bytesFromBackend;
    let active = 0;
    for (const connection of l.tcp?.connections ?? []) {
      active++;
      toBackend += connection.backend?.bytesWritten ?? 0;
      fromBackend += connection.backend?.bytesRead ?? 0;
    }
    for (const assoc of l.udp?.clients.values() ?? []) {
      active++;
      toBackend += assoc.bytesOut;
      fromBackend += assoc.bytesIn;
    }
    return { ...l.counters, activeConnections: active, bytesToBackend: toBackend, bytesFromBackend: fromBackend };
  }

  /** Closes the listener and every connection of a service port, and forgets it in the balancer. */
  async removeService(spn: ServicePortName): Promise<void> {
    const key = servicePortNameString(spn);
    const l = this.listeners.get(key);
    if (l === undefined) return;
    this.listeners.delete(key);
    this.lb = deleteService(this.lb, spn);
    await this.close(l);
  }

  /** Closes everything; resolves when every socket and timer is released. */
  async stop(): Promise<void> {
    this.stopped = true;
    const all = [...this.listeners.values()];
    this.listeners.clear();
    await Promise.all(all.map((l) => this.close(l)));
  }

  private async close(l: Listener): Promise<void> {
    l.closed = true;
    const waits: Promise<unknown>[] = [];
    if (l.tcp !== undefined) {
      const { server, connections } = l.tcp;
      waits.push(new Promise<void>((resolve) => server.close(() => resolve())));
      for (const c of connections) waits.push(c.destroy());
    }
    if (l.udp !== undefined) {
      const { socket, clients } = l.udp;
      for (const key of [...clients.keys()]) waits.push(this.closeAssociation(l, key));
      waits.push(new Promise<void>((resolve) => socket.close(() => resolve())));
    }
    await Promise.all(waits);
  }

  /** The listener's side of its connections: the balancer, the counters, the dial timeouts. */
  private connectionOwner(listener: () => Listener, connections: Set<TcpConnection>): ConnectionOwner {
    // A dialled address is parsed once per endpoint string, not once per connection; the map is
    // emptied now and then so that endpoints long gone do not stay in it.
    const addresses = new Map<string, { readonly host: string; readonly port: number } | null>();
    return {
      get closed(): boolean {
        return listener().closed;
      },
      dialTimeoutsMs: this.dialTimeoutsMs,
      pick: (clientAddr: string, reset: boolean) => {
        const picked = nextEndpoint(this.lb, listener().spn, clientAddr, reset, this.now());
        if (!picked.ok) return undefined;
        this.lb = picked.value.balancer;
        const endpoint = picked.value.endpoint;
        let address = addresses.get(endpoint);
        if (address === undefined) {
          if (addresses.size >= 1024) addresses.clear();
          address = endpointAddress(endpoint) ?? null;
          addresses.set(endpoint, address);
        }
        return address;
      },
      retried: () => void listener().counters.retries++,
      failed: () => void listener().counters.failures++,
      finished: (connection: TcpConnection, toBackend: number, fromBackend: number) => {
        const counters = listener().counters;
        counters.bytesToBackend += toBackend;
        counters.bytesFromBackend += fromBackend;
        connections.delete(connection);
      },
    };
  }

  private onConnection(l: Listener, client: Socket): void {
    const tcp = l.tcp;
    if (l.closed || tcp === undefined) {
      client.on('error', () => undefined);
      client.destroy();
      return;
    }
    l.counters.connections++;
    const clientAddr = tcp.sticky ? joinHostPort(client.remoteAddress ?? '', client.remotePort ?? 0) : '';
    const connection = new TcpConnection(tcp.owner, client, clientAddr);
    tcp.connections.add(connection);
    connection.start();
  }

  private onDatagram(l: Listener, msg: Buffer, rinfo: RemoteInfo): void {
    const udp = l.udp;
    if (udp === undefined || l.closed) return;
    const key = joinHostPort(rinfo.address, rinfo.port);
    let assoc = udp.clients.get(key);
    if (assoc === undefined) {
      // UDP "dials" do not fail (there is no handshake), so the first endpoint is the one;
      // upstream's attempt loop only retries on a dial error.
      const picked = nextEndpoint(this.lb, l.spn, key, false, this.now());
      if (!picked.ok) {
        l.counters.failures++;
        return;
      }
      this.lb = picked.value.balancer;
      assoc = this.openAssociation(l, key, picked.value.endpoint, rinfo);
      if (assoc === undefined) {
        l.counters.failures++;
        return;
      }
    }
    assoc.bytesOut += msg.length;
    assoc.timer.refresh();
    if (assoc.connected) assoc.backend.send(msg);
    else assoc.queue.push(msg);
  }

  private openAssociation(l: Listener, key: string, endpoint: string, rinfo: RemoteInfo): UdpAssociation | undefined {
    const udp = l.udp;
    const address = endpointAddress(endpoint);
    if (udp === undefined || address === undefined) return undefined;
    const backend = createSocket({ type: isIPv6(address.host) ? 'udp6' : 'udp4' });
    const timer = setTimeout(() => void this.closeAssociation(l, key), this.udpIdleTimeoutMs);
    const assoc: UdpAssociation = { backend, timer, queue: [], connected: false, closed: false, bytesIn: 0, bytesOut: 0 };
    udp.clients.set(key, assoc);
    l.counters.connections++;
    // A read error (e.g. ICMP port unreachable) ends the association, as upstream's proxyClient.
    backend.on('error', () => void this.closeAssociation(l, key));
    backend.on('message', (reply) => {
      if (assoc.closed || l.closed) return;
      assoc.bytesIn += reply.length;
      assoc.timer.refresh();
      udp.socket.send(reply, rinfo.port, rinfo.address);
    });
    backend.connect(address.port, address.host, () => {
      if (assoc.closed) return;
      assoc.connected = true;
      for (const m of assoc.queue.splice(0)) backend.send(m);
    });
    return assoc;
  }

  private closeAssociation(l: Listener, key: string): Promise<void> {
    const assoc = l.udp?.clients.get(key);
    if (assoc === undefined) return Promise.resolve();
    l.udp?.clients.delete(key);
    assoc.closed = true;
    clearTimeout(assoc.timer);
    l.counters.bytesToBackend += assoc.bytesOut;
    l.counters.bytesFromBackend += assoc.bytesIn;
    return new Promise((resolve) => {
      try {
        assoc.backend.close(() => resolve());
      } catch {
        resolve();
      }
    });
  }
}
