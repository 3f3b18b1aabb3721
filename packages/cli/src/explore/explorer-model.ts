// What the explorer page shows for a cluster (a dump, or the live objects of `kubesvc up`),
// computed with the model packages: the services Table as the API prints it for kubectl, the
// iptables nat chains of proxy-iptables as a graph, the env vars and DNS records of discovery,
// and the ClusterIP bitmap after one repair run of ipallocator. Pure.
import { formatIP, parseCIDR, parseIPSloppy, type CIDR, type EndpointSlice, type Pod, type Service, type ServiceNetworking } from '@kubesvc/api-types';
import { buildZone, envVarsFromServices, formatRecord, resolve, reverseName, type Zone } from '@kubesvc/discovery';
import type { AllocatedIP, AllocationMap, ExplorerModel, ExplorerPod, RuleGraph, RuleGraphEdge, RuleGraphNode, ServiceDetail, ServiceEndpoint } from '@kubesvc/explorer';
import {
  allocatedIPs,
  ipAllocatorFromSnapshot,
  ipOffset,
  newIPAllocator,
  repairClusterIPs,
  type IPAllocator,
} from '@kubesvc/ipallocator';
import { formatSavedProbability, generateRules, kernelProbability, printMatch, printRule, rulesetTable, type ProxierConfig, type Ruleset } from '@kubesvc/proxy-iptables';
import { printTable } from '@kubesvc/apiserver';
import { endpointObjectsForDns } from '../logic/dns.js';
import { endpointSlicesForProxy } from '../dump/endpoint-slices.js';
import type { Dump } from '../dump/load-dump.js';
import { explorerNodes } from './explorer-nodes.js';

export interface ExplorerModelOptions {
  readonly mode: ExplorerModel['mode'];
  readonly source: string;
  readonly generation: number;
  /** The time ages are measured to, ms since the epoch. */
  readonly now: number;
  readonly proxier: ProxierConfig;
  /** The cluster's service CIDRs (primary first) and cluster domain, parsed by api-types' parseServiceNetworking. */
  readonly serviceNetworking: ServiceNetworking;
  /** The DNS zone. Default: the cluster domain. */
  readonly zone?: string;
  /** The Node of the dump whose kube-proxy `proxier` is (the rules are drawn as on it). */
  readonly node?: string;
  /**
   * Whether the pod is a real network namespace (`kubesvc up --dataplane netns`): the model then
   * lists those pods and marks the endpoints that are one. Absent: no pod network.
   */
  readonly sandbox?: (pod: Pod) => boolean;
}

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

const keyOf = (s: { metadata: { namespace?: string | undefined; name?: string | undefined } }): string => `${s.metadata.namespace ?? 'default'}/${s.metadata.name ?? ''}`;

/** Services in the store's key order (namespace, then name), the order a list answers in. */
function sortedServices(services: readonly Service[]): Service[] {
  return [...services].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}

function servicesTable(services: readonly Service[], now: number): ExplorerModel['servicesTable'] {
  const table = printTable('services', services, { now, includeObject: 'None' });
  if (table === undefined) return { columns: [], rows: [] };
  return {
    columns: table.columnDefinitions.map((c) => ({ name: c.name, priority: c.priority })),
    rows: table.rows.map((row, i) => {
      const service = services[i] as Service;
      const created = Date.parse(service.metadata.creationTimestamp ?? '');
      return {
        namespace: service.metadata.namespace ?? 'default',
        name: service.metadata.name ?? '',
        cells: row.cells.map((c) => String(c)),
        ...(Number.isNaN(created) ? {} : { createdMs: created }),
      };
    }),
  };
}

function endpointsOf(service: Service, slices: readonly EndpointSlice[], sandboxes: ReadonlySet<string>): ServiceEndpoint[] {
  const ns = service.metadata.namespace ?? 'default';
  const out: ServiceEndpoint[] = [];
  for (const slice of slices) {
    if ((slice.metadata.namespace ?? 'default') !== ns || slice.metadata.labels?.[SERVICE_NAME_LABEL] !== service.metadata.name) continue;
    const ports = (slice.ports ?? []).map((p) => `${p.name === undefined || p.name === '' ? '' : `${p.name}:`}${p.port ?? '?'}/${p.protocol ?? 'TCP'}`);
    for (const e of slice.endpoints ?? []) {
      // upstream: staging/src/k8s.io/api/discovery/v1/types.go (EndpointConditions: a nil ready counts as ready)
      const state = e.conditions?.terminating === true ? 'terminating' : e.conditions?.ready === false ? 'not ready' : 'ready';
      for (const ip of e.addresses) {
        out.push({
          ip,
          state,
          ports,
          ...(e.nodeName !== undefined ? { nodeName: e.nodeName } : {}),
          ...(e.targetRef !== undefined ? { target: `${e.targetRef.kind ?? ''}/${e.targetRef.name ?? ''}` } : {}),
          ...(e.targetRef?.kind === 'Pod' && sandboxes.has(`${e.targetRef.namespace ?? ns}/${e.targetRef.name ?? ''}`) ? { sandbox: true } : {}),
        });
      }
    }
  }
  return out;
}

/** The zone-file lines the cluster DNS answers for the service: its name, SRV per named port, PTR per ClusterIP. */
function dnsOf(zone: Zone | undefined, service: Service, domain: string): string[] {
  if (zone === undefined) return [];
  const name = `${service.metadata.name ?? ''}.${service.metadata.namespace ?? 'default'}.svc.${domain}.`;
  const questions = [
    { name, type: service.spec?.type === 'ExternalName' ? 'CNAME' : 'A' },
    { name, type: 'AAAA' },
    ...(service.spec?.ports ?? []).filter((p) => p.name !== undefined && p.name !== '').map((p) => ({ name: `_${p.name ?? ''}._${(p.protocol ?? 'TCP').toLowerCase()}.${name}`, type: 'SRV' })),
    ...(service.spec?.clusterIPs ?? []).flatMap((ip) => {
      const parsed = parseIPSloppy(ip);
      return parsed.ok ? [{ name: reverseName(parsed.value), type: 'PTR' }] : [];
    }),
  ];
  const lines: string[] = [];
  for (const q of questions) for (const record of resolve(zone, q).answer) lines.push(formatRecord(record));
  return [...new Set(lines)];
}

function detailOf(service: Service, slices: readonly EndpointSlice[], zone: Zone | undefined, domain: string, sandboxes: ReadonlySet<string>): ServiceDetail {
  const spec = service.spec ?? {};
  const env = envVarsFromServices([service]);
  return {
    namespace: service.metadata.namespace ?? 'default',
    name: service.metadata.name ?? '',
    type: spec.type ?? 'ClusterIP',
    clusterIPs: spec.clusterIPs ?? (spec.clusterIP === undefined ? [] : [spec.clusterIP]),
    ...(spec.externalName !== undefined ? { externalName: spec.externalName } : {}),
    sessionAffinity: spec.sessionAffinity ?? 'None',
    ports: (spec.ports ?? []).map((p) => ({
      name: p.name ?? '',
      protocol: p.protocol ?? 'TCP',
      port: p.port,
      targetPort: String(p.targetPort ?? p.port),
      ...(p.nodePort !== undefined && p.nodePort !== 0 ? { nodePort: p.nodePort } : {}),
    })),
    endpoints: endpointsOf(service, slices, sandboxes),
    env: env.ok ? env.value.map((v) => ({ name: v.name, value: v.value })) : [],
    dns: dnsOf(zone, service, domain),
  };
}

const COMMENT_SERVICE = /^([^/\s]+\/[^:\s]+)/;

/**
 * The nat and filter tables as a graph: a node per chain, an edge per rule that jumps, a DNAT
 * node per endpoint chain's DNAT, and MASQUERADE / DROP / REJECT / ACCEPT verdict nodes. A chain
 * belongs to the Service named at the start of its rules' comments (`ns/name:port`). The nat
 * chains keep their names as ids (the tracer's path names them); the filter chains (where a
 * Service without endpoints is rejected) are `filter:NAME`.
 */
export function ruleGraphOf(ruleset: Ruleset): RuleGraph {
  const nodes = new Map<string, RuleGraphNode>();
  const edges: RuleGraphEdge[] = [];
  const into = new Map<string, string>();
  for (const tableName of ['nat', 'filter'] as const) {
    const table = rulesetTable(ruleset, tableName);
    const idOf = (chain: string): string => (tableName === 'nat' ? chain : `filter:${chain}`);
    const serviceOf = new Map<string, string>();
    for (const rule of table.rules) {
      const comment = rule.matches.find((m) => m.kind === 'comment');
      const owner = comment?.kind === 'comment' ? COMMENT_SERVICE.exec(comment.text)?.[1] : undefined;
      if (owner !== undefined && /^KUBE-(SVC|SVL|SEP|EXT|FW|XLB)-/.test(rule.chain) && !serviceOf.has(rule.chain)) serviceOf.set(rule.chain, owner);
    }
    const chainNode = (chain: string): RuleGraphNode => {
      const owner = serviceOf.get(chain);
      return { id: idOf(chain), kind: 'chain', label: tableName === 'nat' ? chain : `${chain} (filter)`, ...(owner !== undefined ? { service: owner } : {}) };
    };
    for (const chain of table.chains) nodes.set(idOf(chain), chainNode(chain));
    table.rules.forEach((rule, index) => {
      const target = rule.target;
      if (target === undefined || target.kind === 'return' || target.kind === 'mark') return;
      const comment = rule.matches.find((m) => m.kind === 'comment');
      // A filter rule names its Service in its comment (`ns/name:port has no endpoints`).
      const owner = serviceOf.get(rule.chain) ?? (tableName === 'filter' && comment?.kind === 'comment' ? COMMENT_SERVICE.exec(comment.text)?.[1] : undefined);
      const from = idOf(rule.chain);
      let to: string;
      if (target.kind === 'jump') {
        to = idOf(target.chain);
        if (!nodes.has(to)) nodes.set(to, chainNode(target.chain));
      } else if (target.kind === 'dnat') {
        to = `DNAT ${target.destination} (${rule.chain})`;
        nodes.set(to, { id: to, kind: 'dnat', label: `DNAT ${target.destination}`, ...(owner !== undefined ? { service: owner } : {}) });
      } else {
        to = `${target.kind.toUpperCase()} (${from}${owner === undefined ? '' : ` ${owner}`})`;
        nodes.set(to, { id: to, kind: 'verdict', label: target.kind.toUpperCase(), ...(owner !== undefined ? { service: owner } : {}) });
      }
      const statistic = rule.matches.find((m) => m.kind === 'statistic');
      const kernel = statistic?.kind === 'statistic' ? kernelProbability(statistic.probability) : undefined;
      const probability = statistic?.kind === 'statistic' ? { written: statistic.probability, kernel: kernel === undefined ? '?' : formatSavedProbability(kernel) } : undefined;
      edges.push({
        id: `${tableName}${index}`,
        from,
        to,
        match: rule.matches
          .filter((m) => m.kind !== 'comment')
          .map(printMatch)
          .join(' '),
        rule: printRule(rule),
        ...(probability !== undefined ? { probability } : {}),
      });
      if (to.startsWith('KUBE-SEP-') && rule.chain.startsWith('KUBE-SVC-') && !rule.matches.some((m) => m.kind === 'recent-check')) {
        into.set(to, probability?.written ?? '1');
      }
    });
  }
  const withProbability = [...nodes.values()].map((n) => {
    const p = into.get(n.id);
    return p === undefined ? n : { ...n, probability: p };
  });
  return { nodes: withProbability, edges };
}

function clusterIPsOf(service: Service): readonly string[] {
  const spec = service.spec;
  if (spec === undefined) return [];
  if (spec.clusterIPs !== undefined && spec.clusterIPs.length > 0) return spec.clusterIPs;
  return spec.clusterIP !== undefined ? [spec.clusterIP] : [];
}

/** The bitmap after one repair run from the stored RangeAllocation (or from the Services, without one). */
export function allocationOf(dump: Dump, networks: readonly CIDR[]): AllocationMap {
  const stored = networks.map((network) => dump.rangeAllocations.find((a) => {
    const parsed = parseCIDR(a.range ?? '');
    return parsed.ok && parsed.value.cidr.network.value === network.network.value && parsed.value.cidr.prefix === network.prefix;
  }));
  const fromStoredSnapshot = stored.some((s) => s !== undefined);
  let snapshots = stored;
  if (!fromStoredSnapshot) {
    const rebuilt = repairClusterIPs({ networks, services: dump.services });
    if (rebuilt.ok) snapshots = [...rebuilt.value.snapshots];
  }
  const run = repairClusterIPs({ networks, snapshots, services: dump.services });
  const holders = new Map<string, string[]>();
  for (const service of dump.services) {
    for (const ip of clusterIPsOf(service)) {
      const parsed = parseIPSloppy(ip);
      if (!parsed.ok) continue;
      const key = formatIP(parsed.value);
      holders.set(key, [...(holders.get(key) ?? []), keyOf(service)]);
    }
  }
  const leaked = new Set(run.ok ? Object.values(run.value.leaks).flatMap((l) => Object.keys(l ?? {})) : []);
  // The bitmap the repair run writes: IPs it found missing added, leaks kept until their 3rd run.
  const written = run.ok ? run.value.snapshots : snapshots;
  const ranges = networks.map((network, i) => {
    const snapshot = written[i];
    const restored = snapshot === undefined ? undefined : ipAllocatorFromSnapshot(snapshot);
    const allocator: IPAllocator = restored?.ok === true ? restored.value : newIPAllocator(network);
    const { range } = allocator;
    const used: AllocatedIP[] = allocatedIPs(allocator).map((ip) => {
      const text = formatIP(ip);
      const held = holders.get(text) ?? [];
      return { offset: ipOffset(range, ip), ip: text, holders: held, leaked: held.length === 0 || leaked.has(text) };
    });
    return {
      range: range.rangeSpec,
      size: range.max,
      firstIP: formatIP({ family: range.cidr.network.family, value: range.base }),
      staticSize: range.bandOffset,
      used: used.sort((a, b) => a.offset - b.offset),
    };
  });
  return {
    ranges,
    fromStoredSnapshot,
    repairEvents: run.ok ? run.value.events.map((e) => `${e.reason} ${e.service.namespace}/${e.service.name}: ${e.message}`) : [`repair failed: ${run.error.message}`],
  };
}

function zoneOf(dump: Dump, domain: string): Zone | undefined {
  const namespaces = [...new Set([...dump.namespaces.map((n) => n.metadata.name), ...dump.objects.map((o) => o.metadata.namespace)].filter((n): n is string => n !== undefined && n !== ''))];
  const zone = buildZone(dump.services, endpointObjectsForDns(dump), dump.pods, { zone: domain, ...(namespaces.length > 0 ? { namespaces } : {}) });
  return zone.ok ? zone.value : undefined;
}

/** The pods that are network namespaces, by namespace and name. */
function sandboxesOf(pods: readonly Pod[], sandbox: (pod: Pod) => boolean): ExplorerPod[] {
  return pods
    .filter(sandbox)
    .map((p) => ({ namespace: p.metadata.namespace ?? 'default', name: p.metadata.name ?? '', ip: p.status?.podIP ?? '' }))
    .sort((a, b) => (a.namespace !== b.namespace ? (a.namespace < b.namespace ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The whole model of the page for one state of the cluster. */
export function explorerModelOf(dump: Dump, options: ExplorerModelOptions): ExplorerModel {
  const domain = options.zone ?? options.serviceNetworking.clusterDomain;
  const services = sortedServices(dump.services);
  const slices = endpointSlicesForProxy(dump);
  const { ruleset } = generateRules(services, slices, options.proxier);
  const zone = zoneOf(dump, domain);
  const networks = options.serviceNetworking.serviceCIDRs;
  const nodes = explorerNodes(dump);
  const sandboxes = options.sandbox === undefined ? undefined : sandboxesOf(dump.pods, options.sandbox);
  const sandboxKeys = new Set((sandboxes ?? []).map((p) => `${p.namespace}/${p.name}`));
  return {
    mode: options.mode,
    source: options.source,
    generation: options.generation,
    servicesTable: servicesTable(services, options.now),
    services: services.map((s) => detailOf(s, slices, zone, domain, sandboxKeys)),
    rules: ruleGraphOf(ruleset),
    allocation: allocationOf(dump, networks),
    ...(nodes.length > 0 ? { nodes } : {}),
    ...(options.node !== undefined ? { node: options.node } : {}),
    ...(sandboxes !== undefined ? { sandboxes } : {}),
  };
}
