// The cluster's DNS data, indexed once so that each query is a few map lookups. Built from
// the same objects CoreDNS's kubernetes plugin watches: Services, EndpointSlices (or the older
// Endpoints), and Pods for the `pods verified` mode.
// upstream: coredns plugin/kubernetes/object/{service,endpoint,pod}.go (what is kept of each
// object), plugin/kubernetes/kubernetes.go (endpointHostname), reverse.go.
import {
  CLUSTER_IP_NONE,
  formatIP,
  LABEL_SERVICE_NAME,
  parseIP,
  type EndpointSlice,
  type Endpoints,
  type IP,
  type Pod,
  type Service,
} from '@kubesvc/api-types';

/** How `<a-b-c-d>.<ns>.pod.<zone>` names are answered, as CoreDNS's `pods` option. */
export type PodMode = 'disabled' | 'insecure' | 'verified';

export interface ZoneOptions {
  /** The cluster domain. Default `cluster.local`. */
  readonly zone?: string;
  /** TTL of every record but the schema TXT (28800). CoreDNS's default is 5. */
  readonly ttl?: number;
  /** The SOA serial. CoreDNS uses the Unix time of the last change it saw; time is an input here. Default 1. */
  readonly serial?: number;
  /** Default `disabled`, CoreDNS's default. */
  readonly pods?: PodMode;
  /**
   * The namespaces that exist. A name in another namespace is NXDOMAIN. Default: every
   * namespace that one of the given objects is in.
   */
  readonly namespaces?: readonly string[];
  /** The addresses `ns.dns.<zone>` resolves to (the DNS service's IPs). Default none. */
  readonly nameservers?: readonly string[];
}

export interface ZonePort {
  /** '' for an unnamed port. */
  readonly name: string;
  /** 'TCP', 'UDP' or 'SCTP'. */
  readonly protocol: string;
  /** -1 stands for "no ports": CoreDNS's sentinel for a portless endpoint subset. */
  readonly port: number;
}

export interface ZoneAddress {
  readonly ip: IP;
  /** formatIP(ip): what an A or AAAA record carries. */
  readonly text: string;
}

export interface ZoneEndpoint extends ZoneAddress {
  /** The endpoint's hostname, or one made from its IP. */
  readonly hostname: string;
  readonly ports: readonly ZonePort[];
}

export interface ZoneService {
  readonly name: string;
  readonly namespace: string;
  readonly kind: 'clusterIP' | 'headless' | 'externalName';
  /** The ClusterIPs (spec.clusterIPs, else spec.clusterIP); empty unless kind is clusterIP. */
  readonly clusterIPs: readonly ZoneAddress[];
  readonly ports: readonly ZonePort[];
  /** The ExternalName without a final dot; '' unless kind is externalName. */
  readonly externalName: string;
  /** The ready endpoints (or all, if the service publishes not-ready addresses). */
  readonly endpoints: readonly ZoneEndpoint[];
}

export interface Zone {
  /** The cluster domain, lower case, no final dot. */
  readonly origin: string;
  readonly ttl: number;
  readonly serial: number;
  readonly podMode: PodMode;
  /** Keyed by `<name>.<namespace>`, lower case. */
  readonly services: ReadonlyMap<string, ZoneService>;
  readonly namespaces: ReadonlySet<string>;
  /** ipKey → the one service name that owns the ClusterIP. */
  readonly clusterIPNames: ReadonlyMap<string, string>;
  /** ipKey → endpoint names (`<hostname>.<svc>.<ns>.svc.<zone>`), without duplicates. */
  readonly endpointNames: ReadonlyMap<string, readonly string[]>;
  /** namespace → pod IPs as status.podIP spells them (pods verified). */
  readonly podIPs: ReadonlyMap<string, ReadonlySet<string>>;
  readonly nameservers: readonly ZoneAddress[];
}

/** The annotation that predates publishNotReadyAddresses. upstream: DNS specification §2.1 "ready" */
export const TOLERATE_UNREADY_ANNOTATION = 'service.alpha.kubernetes.io/tolerate-unready-endpoints';

/** The canonical text of the address: one per address and family (IPv4-mapped IPv6 is IPv4). */
export function ipKey(ip: IP): string {
  return formatIP(ip);
}

/** The address of an IP field's text, or undefined when it does not parse. */
export function zoneAddress(text: string): ZoneAddress | undefined {
  const parsed = parseIP(text);
  return parsed.ok ? { ip: parsed.value, text: formatIP(parsed.value) } : undefined;
}

/**
 * The hostname CoreDNS gives an endpoint without one: its IP with '.' or ':' turned into '-',
 * and a '0' after a trailing '-' (an address ending in "::").
 * upstream: coredns plugin/kubernetes/kubernetes.go endpointHostname
 */
export function endpointHostname(hostname: string | undefined, ip: string): string {
  if (hostname !== undefined && hostname !== '') return hostname;
  if (ip.includes('.')) return ip.replaceAll('.', '-');
  if (ip.includes(':')) {
    const name = ip.replaceAll(':', '-');
    return name.endsWith('-') ? `${name}0` : name;
  }
  return '';
}

function tolerates(service: Service): boolean {
  return service.spec?.publishNotReadyAddresses === true || service.metadata.annotations?.[TOLERATE_UNREADY_ANNOTATION] === 'true';
}

interface PortLike {
  readonly name?: string | undefined;
  readonly protocol?: string | undefined;
  readonly port?: number | undefined;
}

function zonePorts(ports: readonly PortLike[] | null | undefined): readonly ZonePort[] {
  // upstream: coredns object/endpoint.go adds a port -1 to a subset without ports, so that its
  // addresses still give A records; SRV skips it.
  if (ports === null || ports === undefined || ports.length === 0) return [{ name: '', protocol: '', port: -1 }];
  return ports.map((p) => ({ name: p.name ?? '', protocol: p.protocol ?? 'TCP', port: p.port ?? -1 }));
}

interface RawEndpoint {
  readonly ip: string;
  readonly hostname: string | undefined;
  readonly ready: boolean;
  readonly ports: readonly ZonePort[];
}

/** Appends the object's endpoints to `out`. */
function pushRawEndpoints(object: EndpointSlice | Endpoints, out: RawEndpoint[]): void {
  if (object.kind === 'EndpointSlice') {
    if (object.addressType === 'FQDN') return;
    const ports = zonePorts(object.ports);
    for (const endpoint of object.endpoints ?? []) {
      // A nil ready condition means ready. upstream: coredns object/endpoint.go endpointsliceReady
      const ready = endpoint.conditions?.ready !== false;
      for (const ip of endpoint.addresses) out.push({ ip, hostname: endpoint.hostname, ready, ports });
    }
    return;
  }
  for (const subset of object.subsets ?? []) {
    const ports = zonePorts(subset.ports);
    for (const a of subset.addresses ?? []) out.push({ ip: a.ip, hostname: a.hostname, ready: true, ports });
    for (const a of subset.notReadyAddresses ?? []) out.push({ ip: a.ip, hostname: a.hostname, ready: false, ports });
  }
}

function serviceNameOf(object: EndpointSlice | Endpoints): string {
  return object.kind === 'EndpointSlice' ? (object.metadata.labels?.[LABEL_SERVICE_NAME] ?? '') : (object.metadata.name ?? '');
}

function serviceKind(service: Service): ZoneService['kind'] | undefined {
  const spec = service.spec;
  if (spec?.type === 'ExternalName') return 'externalName';
  const ip = spec?.clusterIPs?.[0] ?? spec?.clusterIP ?? '';
  if (ip === CLUSTER_IP_NONE) return 'headless';
  return ip === '' ? undefined : 'clusterIP';
}

/**
 * Builds the zone. `endpoints` may mix EndpointSlices and Endpoints; each is matched to its
 * service by namespace and service name. Inputs are not changed.
 */
export function buildZone(
  services: readonly Service[],
  endpoints: readonly (EndpointSlice | Endpoints)[],
  pods: readonly Pod[] = [],
  options: ZoneOptions = {},
): Zone {
  const origin = (options.zone ?? 'cluster.local').toLowerCase().replace(/\.$/, '');
  const namespaces = new Set<string>();
  const byService = new Map<string, RawEndpoint[]>();
  for (const object of endpoints) {
    const namespace = object.metadata.namespace ?? 'default';
    namespaces.add(namespace);
    const key = `${serviceNameOf(object)}.${namespace}`.toLowerCase();
    let list = byService.get(key);
    if (list === undefined) {
      list = [];
      byService.set(key, list);
    }
    pushRawEndpoints(object, list);
  }

  const zoneServices = new Map<string, ZoneService>();
  const clusterIPNames = new Map<string, string>();
  const endpointNames = new Map<string, string[]>();
  for (const service of services) {
    const name = service.metadata.name ?? '';
    const namespace = service.metadata.namespace ?? 'default';
    namespaces.add(namespace);
    const kind = serviceKind(service);
    if (kind === undefined) continue;
    const key = `${name}.${namespace}`.toLowerCase();
    const fqdn = `${name}.${namespace}.svc.${origin}`;
    const clusterIPs: ZoneAddress[] = [];
    if (kind === 'clusterIP') {
      const spec = service.spec;
      for (const text of spec?.clusterIPs ?? (spec?.clusterIP === undefined ? [] : [spec.clusterIP])) {
        const a = zoneAddress(text);
        if (a === undefined) continue;
        clusterIPs.push(a);
        // The first service found owns the reverse name. upstream: coredns reverse.go serviceRecordForIP
        if (!clusterIPNames.has(a.text)) clusterIPNames.set(a.text, fqdn);
      }
    }
    const tolerate = tolerates(service);
    const zoneEndpoints: ZoneEndpoint[] = [];
    if (kind !== 'externalName') {
      for (const raw of byService.get(key) ?? []) {
        if (!raw.ready && !tolerate) continue;
        const a = zoneAddress(raw.ip);
        if (a === undefined) continue;
        const hostname = endpointHostname(raw.hostname, a.text);
        zoneEndpoints.push({ ip: a.ip, text: a.text, hostname, ports: raw.ports });
        const target = `${hostname}.${fqdn}`;
        const names = endpointNames.get(a.text);
        if (names === undefined) endpointNames.set(a.text, [target]);
        else if (!names.includes(target)) names.push(target);
      }
    }
    zoneServices.set(key, {
      name,
      namespace,
      kind,
      clusterIPs,
      ports: (service.spec?.ports ?? []).map((p) => ({ name: p.name ?? '', protocol: p.protocol ?? 'TCP', port: p.port })),
      externalName: kind === 'externalName' ? (service.spec?.externalName ?? '').replace(/\.$/, '') : '',
      endpoints: zoneEndpoints,
    });
  }

  const podIPs = new Map<string, Set<string>>();
  for (const pod of pods) {
    const namespace = pod.metadata.namespace ?? 'default';
    namespaces.add(namespace);
    const ip = pod.status?.podIP;
    if (ip === undefined || ip === '') continue;
    const set = podIPs.get(namespace) ?? new Set<string>();
    set.add(ip);
    podIPs.set(namespace, set);
  }

  return {
    origin,
    ttl: options.ttl ?? 5,
    serial: options.serial ?? 1,
    podMode: options.pods ?? 'disabled',
    services: zoneServices,
    namespaces: options.namespaces === undefined ? namespaces : new Set(options.namespaces.map((n) => n.toLowerCase())),
    clusterIPNames,
    endpointNames,
    podIPs,
    nameservers: (options.nameservers ?? []).flatMap((text) => zoneAddress(text) ?? []),
  };
}
