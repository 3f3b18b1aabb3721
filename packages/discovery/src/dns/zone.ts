// The cluster's DNS data, indexed once so that each query is a few map lookups. Built from
// the same objects CoreDNS's kubernetes plugin watches: Services, EndpointSlices (or the older
// Endpoints), and Pods for the `pods verified` mode.
// upstream: coredns plugin/kubernetes/object/{service,endpoint,pod}.go (what is kept of each
// object), plugin/kubernetes/kubernetes.go (endpointHostname), reverse.go.
import {
  CLUSTER_IP_NONE,
  err,
  formatIP,
  LABEL_SERVICE_NAME,
  ok,
  parseIP,
  type EndpointSlice,
  type Endpoints,
  type IP,
  type Pod,
  type Result,
  type Service,
} from '@kubesvc/api-types';
import { zoneObjectsProblem, zoneOptionsProblem } from './input-shape.js';
import { IPV4_REVERSE_ZONE, IPV6_REVERSE_ZONE } from './reverse-name.js';

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
  /**
   * The reverse zones answered, as the further zone arguments of CoreDNS's `kubernetes`
   * plugin (`kubernetes cluster.local 0.10.in-addr.arpa`): each `in-addr.arpa`, `ip6.arpa` or
   * a zone below them. A reverse name outside them goes to the forward hook, or is REFUSED.
   * Default `['in-addr.arpa', 'ip6.arpa']`, the default Corefile's.
   */
  readonly reverseZones?: readonly string[];
}

/** The object a diagnostic is about. */
export interface ZoneObjectRef {
  readonly kind: 'Service' | 'Endpoints' | 'EndpointSlice' | 'Pod';
  readonly namespace: string;
  readonly name: string;
}

/** Something in the input that the zone leaves out, in whole or in part, and why. */
export interface ZoneDiagnostic {
  readonly object: ZoneObjectRef;
  readonly reason: string;
}

/** buildZone's error: an option it cannot serve. `message` is CoreDNS's text where CoreDNS has one. */
export interface ErrZoneOptions {
  readonly _tag: 'ErrZoneOptions';
  readonly message: string;
  /** The option at fault. */
  readonly option: keyof ZoneOptions;
}

/** buildZone given objects of the wrong shape (from JavaScript or unchecked JSON). */
export interface ErrZoneInput {
  readonly _tag: 'ErrZoneInput';
  readonly message: string;
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
  /** The reverse zones answered, lower case, no final dot. */
  readonly reverseZones: readonly string[];
  /** What the input held that the zone leaves out, wholly or in part, in the order found. */
  readonly diagnostics: readonly ZoneDiagnostic[];
}

/** The reverse zones of the default Corefile (`kubernetes cluster.local in-addr.arpa ip6.arpa`). */
export const DEFAULT_REVERSE_ZONES: readonly string[] = Object.freeze([IPV4_REVERSE_ZONE, IPV6_REVERSE_ZONE]);

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
  /** The object it came from, for diagnostics. */
  readonly from: ZoneObjectRef;
}

function objectRef(object: { readonly kind: ZoneObjectRef['kind']; readonly metadata: { readonly name?: string | undefined; readonly namespace?: string | undefined } }): ZoneObjectRef {
  return { kind: object.kind, namespace: object.metadata.namespace ?? 'default', name: object.metadata.name ?? '' };
}

/** Appends the object's endpoints to `out`. */
function pushRawEndpoints(object: EndpointSlice | Endpoints, from: ZoneObjectRef, out: RawEndpoint[]): void {
  if (object.kind === 'EndpointSlice') {
    const ports = zonePorts(object.ports);
    for (const endpoint of object.endpoints ?? []) {
      // A nil ready condition means ready. upstream: coredns object/endpoint.go endpointsliceReady
      const ready = endpoint.conditions?.ready !== false;
      for (const ip of endpoint.addresses) out.push({ ip, hostname: endpoint.hostname, ready, ports, from });
    }
    return;
  }
  for (const subset of object.subsets ?? []) {
    const ports = zonePorts(subset.ports);
    for (const a of subset.addresses ?? []) out.push({ ip: a.ip, hostname: a.hostname, ready: true, ports, from });
    for (const a of subset.notReadyAddresses ?? []) out.push({ ip: a.ip, hostname: a.hostname, ready: false, ports, from });
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

/** RFC 1035 §2.3.4: labels of 1 to 63 octets, a name of at most 253 characters in text form. */
function validDomainName(name: string): boolean {
  return name.length > 0 && name.length <= 253 && name.split('.').every((label) => label.length > 0 && label.length <= 63);
}

function normalizeZoneName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

function isReverseZone(name: string): boolean {
  return [IPV4_REVERSE_ZONE, IPV6_REVERSE_ZONE].some((arpa) => name === arpa || name.endsWith(`.${arpa}`));
}

interface CheckedOptions {
  readonly origin: string;
  readonly ttl: number;
  readonly serial: number;
  readonly podMode: PodMode;
  readonly nameservers: readonly ZoneAddress[];
  readonly reverseZones: readonly string[];
}

const PODS_MODES: readonly PodMode[] = ['disabled', 'insecure', 'verified'];

function optionError(option: keyof ZoneOptions, message: string): Result<never, ErrZoneOptions> {
  return err({ _tag: 'ErrZoneOptions', message, option });
}

/** upstream: coredns plugin/kubernetes/setup.go ParseStanza (ttl, pods, the primary zone) */
function checkOptions(options: ZoneOptions): Result<CheckedOptions, ErrZoneOptions> {
  const origin = normalizeZoneName(options.zone ?? 'cluster.local');
  if (!validDomainName(origin)) return optionError('zone', `zone ${JSON.stringify(options.zone)} is not a domain name`);
  // A reverse zone cannot be the cluster zone: records are named under it.
  if (isReverseZone(origin)) return optionError('zone', 'non-reverse zone name must be used');
  const ttl = options.ttl ?? 5;
  if (!Number.isInteger(ttl) || ttl < 0 || ttl > 3600) return optionError('ttl', `ttl must be in range [0, 3600]: ${ttl}`);
  const serial = options.serial ?? 1;
  if (!Number.isInteger(serial) || serial < 0 || serial > 0xffffffff) return optionError('serial', `serial must be an integer in range [0, 4294967295]: ${serial}`);
  const podMode = options.pods ?? 'disabled';
  if (!PODS_MODES.includes(podMode)) return optionError('pods', `wrong value for pods: ${String(podMode)},  must be one of: disabled, verified, insecure`);
  const nameservers: ZoneAddress[] = [];
  for (const text of options.nameservers ?? []) {
    const address = zoneAddress(text);
    if (address === undefined) return optionError('nameservers', `nameserver ${JSON.stringify(text)} is not an IP address`);
    nameservers.push(address);
  }
  const reverseZones: string[] = [];
  for (const given of options.reverseZones ?? DEFAULT_REVERSE_ZONES) {
    const name = normalizeZoneName(given);
    if (!validDomainName(name) || !isReverseZone(name)) {
      return optionError('reverseZones', `reverse zone ${JSON.stringify(given)} is not in-addr.arpa, ip6.arpa or a zone below them`);
    }
    if (!reverseZones.includes(name)) reverseZones.push(name);
  }
  return ok({ origin, ttl, serial, podMode, nameservers, reverseZones });
}

/**
 * Builds the zone. `endpoints` may mix EndpointSlices and Endpoints; each is matched to its
 * service by namespace and service name. An endpoint object without a Service still gives
 * PTR records for its ready addresses, as CoreDNS answers reverse queries from its index of
 * all endpoints. What the zone leaves out is listed in `diagnostics`. Fails on options
 * (ErrZoneOptions) and on objects that are not of their kind's shape (ErrZoneInput).
 * Inputs are not changed.
 */
export function buildZone(
  services: readonly Service[],
  endpoints: readonly (EndpointSlice | Endpoints)[],
  pods: readonly Pod[] = [],
  options: ZoneOptions = {},
): Result<Zone, ErrZoneOptions | ErrZoneInput> {
  const wrongOption = zoneOptionsProblem(options);
  if (wrongOption !== undefined) return optionError(wrongOption.option, wrongOption.message);
  const wrongObject = zoneObjectsProblem(services, endpoints, pods);
  if (wrongObject !== undefined) return err({ _tag: 'ErrZoneInput', message: wrongObject });
  const checked = checkOptions(options);
  if (!checked.ok) return checked;
  const { origin } = checked.value;
  const diagnostics: ZoneDiagnostic[] = [];
  const namespaces = new Set<string>();
  /** Keyed by `<service>.<namespace>` (lower case); each list keeps its spelling of the service name. */
  const byService = new Map<string, { readonly serviceName: string; readonly namespace: string; readonly raws: RawEndpoint[] }>();
  for (const object of endpoints) {
    const from = objectRef(object);
    namespaces.add(from.namespace);
    if (object.kind === 'EndpointSlice' && object.addressType === 'FQDN') {
      diagnostics.push({ object: from, reason: 'addressType FQDN: its addresses are names, not IPs, and give no records' });
      continue;
    }
    const serviceName = serviceNameOf(object);
    if (serviceName === '') {
      diagnostics.push({ object: from, reason: `no ${LABEL_SERVICE_NAME} label: its endpoints belong to no service name and give no records` });
      continue;
    }
    const key = `${serviceName}.${from.namespace}`.toLowerCase();
    let entry = byService.get(key);
    if (entry === undefined) {
      entry = { serviceName, namespace: from.namespace, raws: [] };
      byService.set(key, entry);
    }
    pushRawEndpoints(object, from, entry.raws);
  }

  const zoneServices = new Map<string, ZoneService>();
  const clusterIPNames = new Map<string, string>();
  const endpointNames = new Map<string, string[]>();
  const addEndpointName = (ip: string, target: string): void => {
    const names = endpointNames.get(ip);
    if (names === undefined) endpointNames.set(ip, [target]);
    else if (!names.includes(target)) names.push(target);
  };
  /** Endpoint addresses that do not parse are reported once per object and address. */
  const badAddresses = new Set<string>();
  const parseEndpoint = (raw: RawEndpoint): ZoneAddress | undefined => {
    const a = zoneAddress(raw.ip);
    if (a !== undefined) return a;
    const key = `${raw.from.kind}/${raw.from.namespace}/${raw.from.name}/${raw.ip}`;
    if (!badAddresses.has(key)) {
      badAddresses.add(key);
      diagnostics.push({ object: raw.from, reason: `endpoint address ${JSON.stringify(raw.ip)} is not an IP address: no records for it` });
    }
    return undefined;
  };
  const matched = new Set<string>();
  for (const service of services) {
    const name = service.metadata.name ?? '';
    const namespace = service.metadata.namespace ?? 'default';
    const from = objectRef(service);
    namespaces.add(namespace);
    const key = `${name}.${namespace}`.toLowerCase();
    const kind = serviceKind(service);
    if (kind === undefined) {
      diagnostics.push({ object: from, reason: 'no spec.clusterIP and not an ExternalName service: no records for its name' });
      continue;
    }
    matched.add(key);
    const fqdn = `${name}.${namespace}.svc.${origin}`;
    const clusterIPs: ZoneAddress[] = [];
    if (kind === 'clusterIP') {
      const spec = service.spec;
      for (const text of spec?.clusterIPs ?? (spec?.clusterIP === undefined ? [] : [spec.clusterIP])) {
        const a = zoneAddress(text);
        if (a === undefined) {
          diagnostics.push({ object: from, reason: `ClusterIP ${JSON.stringify(text)} is not an IP address: no A, AAAA or PTR record for it` });
          continue;
        }
        clusterIPs.push(a);
        // The first service found owns the reverse name. upstream: coredns reverse.go serviceRecordForIP
        const owner = clusterIPNames.get(a.text);
        if (owner === undefined) clusterIPNames.set(a.text, fqdn);
        else diagnostics.push({ object: from, reason: `ClusterIP ${a.text} is also ${owner}'s: its PTR record names ${owner}` });
      }
    }
    const tolerate = tolerates(service);
    const zoneEndpoints: ZoneEndpoint[] = [];
    for (const raw of byService.get(key)?.raws ?? []) {
      if (!raw.ready && !tolerate) continue;
      const a = parseEndpoint(raw);
      if (a === undefined) continue;
      const hostname = endpointHostname(raw.hostname, a.text);
      // An ExternalName service's name is a CNAME, but CoreDNS still answers PTR queries for
      // the addresses of its endpoints. upstream: coredns kubernetes.go serviceRecordForIP
      if (kind !== 'externalName') zoneEndpoints.push({ ip: a.ip, text: a.text, hostname, ports: raw.ports });
      addEndpointName(a.text, `${hostname}.${fqdn}`);
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

  // Endpoints whose service is missing (or has no records) still answer PTR queries for their
  // ready addresses: CoreDNS looks endpoint IPs up in its index of all endpoints, named by
  // the service-name label and namespace, without looking for the Service.
  // upstream: coredns plugin/kubernetes/kubernetes.go serviceRecordForIP (EpIndexReverse)
  for (const [key, entry] of byService) {
    if (matched.has(key)) continue;
    const fqdn = `${entry.serviceName}.${entry.namespace}.svc.${origin}`;
    const reported = new Set<string>();
    for (const raw of entry.raws) {
      const objectKey = `${raw.from.kind}/${raw.from.name}`;
      if (!reported.has(objectKey)) {
        reported.add(objectKey);
        diagnostics.push({
          object: raw.from,
          reason: `no Service ${entry.namespace}/${entry.serviceName} with records: its ready addresses answer PTR queries only`,
        });
      }
      if (!raw.ready) continue;
      const a = parseEndpoint(raw);
      if (a === undefined) continue;
      addEndpointName(a.text, `${endpointHostname(raw.hostname, a.text)}.${fqdn}`);
    }
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

  return ok({
    origin,
    ttl: checked.value.ttl,
    serial: checked.value.serial,
    podMode: checked.value.podMode,
    services: zoneServices,
    namespaces: options.namespaces === undefined ? namespaces : new Set(options.namespaces.map((n) => n.toLowerCase())),
    clusterIPNames,
    endpointNames,
    podIPs,
    nameservers: checked.value.nameservers,
    reverseZones: checked.value.reverseZones,
    diagnostics,
  });
}
