// kube-proxy's userspace mode on the node: one loopback listener per service port, kept in step
// with the Services and EndpointSlices the informer holds, by proxy-userspace's UserspaceProxier.
// upstream: pkg/proxy/userspace/proxier.go (OnServiceUpdate: a listener per service port with a
//           ClusterIP, reopened when its protocol or affinity changes, closed when the port goes;
//           OnEndpointsUpdate: the balancer's endpoints), pkg/proxy/endpointslicecache.go (an
//           endpoint of a slice counts when it is ready; a nil ready condition counts as ready)
//
// Upstream's userspace proxier also wrote iptables "portal" rules sending the ClusterIP to the
// listener; here the listener is the whole proxy and clients dial it directly (the mapping is
// what proxyPorts() returns). The work is level-based: every reconcile compares what the cache
// asks for with the open listeners, so a burst of changes costs one pass.
import { isServiceIPSet, joinHostPort, LABEL_SERVICE_NAME, servicePortNameString, type EndpointSlice, type Service, type ServicePortName } from '@kubesvc/api-types';
import { UserspaceProxier } from '@kubesvc/proxy-userspace/node';
import type { CacheChange, CacheView } from '@kubesvc/controllers';
import type { Logger } from '@kubesvc/apiserver';
import { logLine } from './logger.js';
import { proxiedObjects } from './proxied-objects.js';

export interface ProxyPort {
  /** `namespace/name:port` (`namespace/name` for an unnamed port), as kube-proxy names a service port. */
  readonly servicePort: string;
  readonly namespace: string;
  readonly service: string;
  /** The Service port's name ('' when unnamed). */
  readonly portName: string;
  readonly protocol: 'TCP' | 'UDP';
  /** The Service's own port and ClusterIP, for the record. */
  readonly clusterIP: string;
  readonly port: number;
  /** Where the proxy listens: 127.0.0.1 and a port the system chose. */
  readonly host: string;
  readonly listenPort: number;
  /** The endpoints (`ip:port`) the balancer chooses from now. */
  readonly endpoints: readonly string[];
}

export interface UserspaceProxyOptions {
  readonly source: CacheView;
  readonly logger: Logger;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Seed of the balancer's shuffle. */
  readonly seed?: number;
  /** kube-proxy --udp-timeout, ms. */
  readonly udpIdleTimeoutMs?: number;
}

interface Wanted {
  readonly spn: ServicePortName;
  readonly key: string;
  readonly protocol: 'TCP' | 'UDP';
  readonly clusterIP: string;
  readonly port: number;
  readonly affinity: 'None' | 'ClientIP';
  readonly timeoutSeconds: number;
  readonly endpoints: readonly string[];
}

interface Open extends Wanted {
  readonly host: string;
  readonly listenPort: number;
}

/** Each ready endpoint of the Service's slices, as `ip:port`, per port name and protocol, sorted. */
export function sliceEndpoints(slices: readonly EndpointSlice[]): ReadonlyMap<string, readonly string[]> {
  const out = new Map<string, Set<string>>();
  for (const slice of slices) {
    if (slice.addressType !== 'IPv4' && slice.addressType !== 'IPv6') continue;
    for (const port of slice.ports ?? []) {
      if (port.port === undefined || port.port === null) continue;
      const key = `${port.name ?? ''}/${port.protocol ?? 'TCP'}`;
      let set = out.get(key);
      if (set === undefined) out.set(key, (set = new Set()));
      for (const endpoint of slice.endpoints ?? []) {
        if (endpoint.conditions?.ready === false) continue;
        // upstream: only the first address is used (the others are reserved by the API).
        const address = endpoint.addresses[0];
        if (address !== undefined) set.add(joinHostPort(address, port.port));
      }
    }
  }
  return new Map([...out].map(([k, v]) => [k, [...v].sort()] as const));
}

/** The listeners the objects ask for: one per TCP or UDP port of each Service with a ClusterIP. */
export function wantedPorts(services: readonly Service[], slices: readonly EndpointSlice[]): Map<string, Wanted> {
  const slicesOf = new Map<string, EndpointSlice[]>();
  for (const slice of slices) {
    const service = slice.metadata.labels?.[LABEL_SERVICE_NAME];
    if (service === undefined) continue;
    const key = `${slice.metadata.namespace ?? ''}/${service}`;
    const list = slicesOf.get(key);
    if (list === undefined) slicesOf.set(key, [slice]);
    else list.push(slice);
  }
  const out = new Map<string, Wanted>();
  for (const service of services) {
    const spec = service.spec;
    if (spec?.type === 'ExternalName' || !isServiceIPSet(spec)) continue;
    const namespace = service.metadata.namespace ?? '';
    const name = service.metadata.name ?? '';
    const endpoints = sliceEndpoints(slicesOf.get(`${namespace}/${name}`) ?? []);
    const affinity = spec?.sessionAffinity === 'ClientIP' ? 'ClientIP' : 'None';
    const timeoutSeconds = spec?.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? 0;
    for (const port of spec?.ports ?? []) {
      // upstream's userspace proxier proxies TCP and UDP; SCTP has no listener.
      const protocol = port.protocol ?? 'TCP';
      const proto = protocol === 'TCP' ? 'TCP' : protocol === 'UDP' ? 'UDP' : undefined;
      if (proto === undefined) continue;
      const spn: ServicePortName = { namespace, name, port: port.name ?? '' };
      const key = servicePortNameString(spn);
      out.set(key, {
        spn,
        key,
        protocol: proto,
        clusterIP: spec?.clusterIP ?? '',
        port: port.port,
        affinity,
        timeoutSeconds,
        endpoints: endpoints.get(`${port.name ?? ''}/${protocol}`) ?? [],
      });
    }
  }
  return out;
}

function sameEndpoints(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((e, i) => e === b[i]);
}

export class UserspaceProxy {
  private readonly proxier: UserspaceProxier;
  private readonly open = new Map<string, Open>();
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  private constructor(private readonly options: UserspaceProxyOptions) {
    this.proxier = new UserspaceProxier({
      host: options.host ?? '127.0.0.1',
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.udpIdleTimeoutMs !== undefined ? { udpIdleTimeoutMs: options.udpIdleTimeoutMs } : {}),
    });
  }

  /** Opens the listeners of what the cache holds; resolves once they listen. */
  static async start(options: UserspaceProxyOptions): Promise<UserspaceProxy> {
    const proxy = new UserspaceProxy(options);
    await proxy.reconcile();
    return proxy;
  }

  onChange(change: CacheChange): void {
    if (change.resource === 'services' || change.resource === 'endpointslices') void this.reconcile();
  }

  /** The open listeners, by service port name. */
  proxyPorts(): readonly ProxyPort[] {
    return [...this.open.values()]
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((o) => ({
        servicePort: o.key,
        namespace: o.spn.namespace,
        service: o.spn.name,
        portName: o.spn.port,
        protocol: o.protocol,
        clusterIP: o.clusterIP,
        port: o.port,
        host: o.host,
        listenPort: o.listenPort,
        endpoints: o.endpoints,
      }));
  }

  /** Brings the listeners in line with the cache. Passes run one at a time; a request during a pass makes one more. */
  reconcile(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    const pass = async (): Promise<void> => {
      do {
        this.again = false;
        await this.pass();
      } while (this.again && !this.stopped);
    };
    this.running = pass().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Resolves when no reconcile is running. */
  async idle(): Promise<void> {
    while (this.running !== undefined) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.idle();
    await this.proxier.stop();
    this.open.clear();
  }

  private async pass(): Promise<void> {
    const { services, endpointSlices } = proxiedObjects(this.options.source);
    const wanted = wantedPorts(services, endpointSlices);
    for (const [key, o] of [...this.open]) {
      const w = wanted.get(key);
      if (w !== undefined && w.protocol === o.protocol && w.affinity === o.affinity && w.timeoutSeconds === o.timeoutSeconds) continue;
      // Gone, or its protocol or affinity changed: upstream stops the listener (and opens a new one below).
      this.open.delete(key);
      await this.proxier.removeService(o.spn);
      this.options.logger.log('info', logLine('userspace proxy port closed', { servicePort: key, listen: joinHostPort(o.host, o.listenPort) }));
    }
    for (const [key, w] of wanted) {
      if (this.stopped) return;
      const o = this.open.get(key);
      if (o !== undefined) {
        if (!sameEndpoints(o.endpoints, w.endpoints)) {
          this.proxier.setEndpoints(w.spn, w.endpoints);
          this.open.set(key, { ...o, ...w, host: o.host, listenPort: o.listenPort });
          this.options.logger.log('info', logLine('userspace proxy endpoints', { servicePort: key, endpoints: w.endpoints.length }));
        }
        continue;
      }
      try {
        const address = await this.proxier.addService({
          servicePort: w.spn,
          protocol: w.protocol,
          sessionAffinity: w.affinity,
          affinityTimeoutSeconds: w.timeoutSeconds,
          endpoints: w.endpoints,
        });
        this.open.set(key, { ...w, host: address.host, listenPort: address.port });
        this.options.logger.log('info', logLine('userspace proxy port opened', { servicePort: key, protocol: w.protocol, listen: joinHostPort(address.host, address.port), endpoints: w.endpoints.length }));
      } catch (error) {
        if (this.stopped) return;
        this.options.logger.log('warning', logLine('userspace proxy port not opened', { servicePort: key, error: String(error) }));
      }
    }
  }
}
