// The node's cluster DNS: discovery's DNS server on 127.0.0.1, answering for the cluster domain
// from the informer's objects, as CoreDNS's kubernetes plugin answers from its watches.
// upstream: coredns plugin/kubernetes (the zone data; Serial is the time of the last change
//           seen), kubeadm's default Corefile (cmd/kubeadm/app/phases/addons/dns/manifests.go:
//           `kubernetes cluster.local in-addr.arpa ip6.arpa { pods insecure  ttl 30 }`)
//
// A change does not rebuild the zone at once: the first change after a build arms one timer
// `coalesceMs` ahead, the changes that arrive before it fires ride along, and the timer builds
// the zone once from the cache and swaps it in. The timer is never pushed back, so a steady
// stream of changes cannot starve the rebuild: an answer reflects a change at most
// coalesceMs plus one build later.
import type { EndpointSlice, Namespace, Pod, Service } from '@kubesvc/api-types';
import { buildZone, type PodMode, type Zone, type ZoneOptions } from '@kubesvc/discovery';
import { startDnsServer, type DnsServer } from '@kubesvc/discovery/node';
import type { CancelTimer, Clock } from '@kubesvc/store';
import type { Logger } from '@kubesvc/apiserver';
import type { Informer } from '@kubesvc/runtime';
import type { CacheChange } from '@kubesvc/controllers';
import { logLine } from './logger.js';

/** What the DNS part reads from the informer. */
export type DnsSource = Pick<Informer, 'resources' | 'revision' | 'list'>;

export interface ClusterDnsOptions {
  readonly source: DnsSource;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** The cluster domain. Default cluster.local. */
  readonly domain?: string;
  /** Default 30, kubeadm's Corefile. */
  readonly ttl?: number;
  /** Default `insecure`, kubeadm's Corefile. */
  readonly pods?: PodMode;
  /** How long changes are gathered before one rebuild. Default 10 ms. */
  readonly coalesceMs?: number;
}

export interface DnsRebuild {
  /** The informer revision the zone reflects. */
  readonly revision: number;
  /** Services in the zone. */
  readonly services: number;
  /** Milliseconds spent building the zone. */
  readonly buildMs: number;
  /** Clock milliseconds from the first change of the batch to the swap. */
  readonly latencyMs: number;
}

/** The DNS service's name: `ns.dns.<zone>` answers with its ClusterIPs. */
const DNS_SERVICE = { namespace: 'kube-system', name: 'kube-dns' } as const;

const WATCHED = new Set(['services', 'endpointslices', 'pods', 'namespaces']);

export class ClusterDns {
  private pendingSince: number | undefined;
  private timer: CancelTimer | undefined;
  private last: DnsRebuild | undefined;
  private revisionServed = 0;
  private stopped = false;

  private constructor(
    private readonly options: ClusterDnsOptions,
    private readonly server: DnsServer,
    private readonly zoneOptions: ZoneOptions,
  ) {}

  /** Builds the zone from the cache and starts the server. Throws when the port is taken or an option is refused. */
  static async start(options: ClusterDnsOptions): Promise<ClusterDns> {
    const zoneOptions: ZoneOptions = {
      zone: options.domain ?? 'cluster.local',
      ttl: options.ttl ?? 30,
      pods: options.pods ?? 'insecure',
    };
    const first = zoneFrom(options.source, zoneOptions, options.clock.now());
    if (!first.ok) throw new Error(`cluster DNS: ${first.error.message}`);
    const server = await startDnsServer({ host: options.host ?? '127.0.0.1', port: options.port, zone: first.value });
    const dns = new ClusterDns(options, server, zoneOptions);
    dns.revisionServed = options.source.revision;
    options.logger.log('info', logLine('dns serving', { address: `${server.host}:${server.port}`, domain: first.value.origin, services: first.value.services.size, revision: dns.revisionServed }));
    return dns;
  }

  get host(): string {
    return this.server.host;
  }

  get port(): number {
    return this.server.port;
  }

  /** The zone answers come from now. */
  zone(): Zone {
    return this.server.zone();
  }

  /** The informer revision the served zone reflects. */
  get revision(): number {
    return this.revisionServed;
  }

  /** The last rebuild after a change, if any. */
  lastRebuild(): DnsRebuild | undefined {
    return this.last;
  }

  /** Whether a rebuild is waiting for its timer. */
  get pending(): boolean {
    return this.timer !== undefined;
  }

  onChange(change: CacheChange): void {
    if (WATCHED.has(change.resource)) this.requestRebuild();
  }

  /** Asks for a rebuild within coalesceMs (one already asked for is not pushed back). */
  requestRebuild(): void {
    if (this.stopped || this.timer !== undefined) return;
    const now = this.options.clock.now();
    this.pendingSince = now;
    this.timer = this.options.clock.setTimer(now + (this.options.coalesceMs ?? 10), () => {
      this.timer = undefined;
      this.rebuild();
    });
  }

  /** Rebuilds now (the timer's work; also for a caller that must not wait). */
  rebuild(): void {
    if (this.stopped) return;
    this.timer?.();
    this.timer = undefined;
    const started = performance.now();
    const built = zoneFrom(this.options.source, this.zoneOptions, this.options.clock.now());
    if (!built.ok) {
      // The objects passed the registry's validation; a refusal here is a bug. Keep serving the old zone.
      this.options.logger.log('warning', logLine('dns rebuild failed, serving the previous zone', { error: built.error.message }));
      return;
    }
    this.server.setZone(built.value);
    const revision = this.options.source.revision;
    this.revisionServed = revision;
    const buildMs = performance.now() - started;
    const latencyMs = this.options.clock.now() - (this.pendingSince ?? this.options.clock.now());
    this.pendingSince = undefined;
    this.last = { revision, services: built.value.services.size, buildMs, latencyMs };
    this.options.logger.log('info', logLine('dns zone swapped', { revision, services: built.value.services.size, buildMs: round(buildMs), latencyMs: round(latencyMs) }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.();
    this.timer = undefined;
    await this.server.close();
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/** The zone options that come from the objects: the namespaces, the DNS service's IPs, the serial. */
export function zoneOptionsFor(source: DnsSource, base: ZoneOptions, now: number): ZoneOptions {
  const services = source.list<Service>('services');
  const dnsService = services.find((s) => s.metadata.namespace === DNS_SERVICE.namespace && s.metadata.name === DNS_SERVICE.name);
  const nameservers = (dnsService?.spec?.clusterIPs ?? (dnsService?.spec?.clusterIP === undefined ? [] : [dnsService.spec.clusterIP])).filter((ip) => ip !== '' && ip !== 'None');
  return {
    ...base,
    // CoreDNS's SOA serial is the Unix time of the last change it saw, in seconds.
    serial: Math.floor(now / 1000) >>> 0,
    nameservers,
    // Without a namespace informer, a namespace exists when an object is in it (buildZone's default).
    ...(source.resources.includes('namespaces') ? { namespaces: source.list<Namespace>('namespaces').map((n) => n.metadata.name ?? '') } : {}),
  };
}

/** The zone of what the source holds now. */
export function zoneFrom(source: DnsSource, base: ZoneOptions, now: number): ReturnType<typeof buildZone> {
  const services = source.list<Service>('services');
  const slices = source.resources.includes('endpointslices') ? source.list<EndpointSlice>('endpointslices') : [];
  const pods = source.resources.includes('pods') ? source.list<Pod>('pods') : [];
  return buildZone(services, slices, pods, zoneOptionsFor(source, base, now));
}
