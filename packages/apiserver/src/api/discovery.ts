// Discovery: /version, /api, /api/v1, /apis and the apps, discovery.k8s.io and networking.k8s.io groups, built from the
// registry's RESOURCES table so that a resource added there is served and listed with no change
// here. kubectl needs the short names (`svc`) and the `all` category from these lists.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/discovery (legacy.go, group.go, version.go),
//           pkg/registry/core/*/storage/storage.go (ShortNames, Categories),
//           staging/src/k8s.io/apimachinery/pkg/version/types.go (Info)
import { RESOURCES, type ResourceInfo } from '../registry/resources.js';
import { SCALE_RESOURCES } from '../registry/verbs/scale.js';
import { STATUS_RESOURCES } from '../registry/verbs/update.js';

/** What kube-apiserver's storages say about each resource beyond the registry's table. */
interface ResourceExtras {
  readonly singularName: string;
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
}

// upstream: ShortNames() and Categories() of each REST storage.
const EXTRAS: Readonly<Record<string, ResourceExtras>> = {
  namespaces: { singularName: 'namespace', shortNames: ['ns'] },
  services: { singularName: 'service', shortNames: ['svc'], categories: ['all'] },
  endpoints: { singularName: 'endpoints', shortNames: ['ep'] },
  endpointslices: { singularName: 'endpointslice' },
  pods: { singularName: 'pod', shortNames: ['po'], categories: ['all'] },
  events: { singularName: 'event', shortNames: ['ev'] },
  nodes: { singularName: 'node', shortNames: ['no'] },
  // pkg/registry/networking/{servicecidr,ipaddress}/storage: no ShortNames, no Categories.
  servicecidrs: { singularName: 'servicecidr' },
  ipaddresses: { singularName: 'ipaddress' },
  // pkg/registry/apps/{deployment,replicaset}/storage (v1.33).
  deployments: { singularName: 'deployment', shortNames: ['deploy'], categories: ['all'] },
  replicasets: { singularName: 'replicaset', shortNames: ['rs'], categories: ['all'] },
};

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] as const;
const STATUS_VERBS = ['get', 'patch', 'update'] as const;

export const KUBE_VERSION = { major: '1', minor: '33', gitVersion: 'v1.33.0-kubesvc.0' } as const;

/** /version: version.Info, with kubectl's dispatcher reading `minor` to pick kubectl 1.33. */
export function versionInfo(): Record<string, string> {
  return {
    major: KUBE_VERSION.major,
    minor: KUBE_VERSION.minor,
    gitVersion: KUBE_VERSION.gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '1970-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

function served(): ResourceInfo[] {
  return Object.values(RESOURCES);
}

/** The groupVersion a resource is served at (`v1`, `discovery.k8s.io/v1`). */
export function groupVersionOf(info: ResourceInfo): string {
  return info.apiVersion;
}

/** The APIResourceList of one group version, with each resource's status subresource. */
export function apiResourceList(groupVersion: string): Record<string, unknown> | undefined {
  const infos = served()
    .filter((info) => groupVersionOf(info) === groupVersion)
    .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  if (infos.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const info of infos) {
    const extras = EXTRAS[info.resource];
    resources.push({
      name: info.resource,
      singularName: extras?.singularName ?? info.kind.toLowerCase(),
      namespaced: info.namespaced,
      kind: info.kind,
      verbs: info.deleteCollection ? [...VERBS] : VERBS.filter((v) => v !== 'deletecollection'),
      ...(extras?.shortNames ? { shortNames: [...extras.shortNames] } : {}),
      ...(extras?.categories ? { categories: [...extras.categories] } : {}),
    });
    // The subresources sort by name too: scale before status. A Scale is autoscaling/v1's.
    if (SCALE_RESOURCES.has(info.resource)) {
      resources.push({ name: `${info.resource}/scale`, singularName: '', namespaced: info.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: [...STATUS_VERBS] });
    }
    if (STATUS_RESOURCES.has(info.resource)) {
      resources.push({ name: `${info.resource}/status`, singularName: '', namespaced: info.namespaced, kind: info.kind, verbs: [...STATUS_VERBS] });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}

/**
 * The aggregator's group priorities: /apis lists groups by priority, highest first (not by
 * name), so apps comes before networking.k8s.io, and that before discovery.k8s.io.
 * upstream: pkg/controlplane/apiserver/aggregator.go (DefaultGenericAPIServicePriorities),
 *           pkg/controlplane/aggregator (the kube-apiserver groups: apps 17800, networking.k8s.io 17200)
 */
const GROUP_PRIORITY: Readonly<Record<string, number>> = { apps: 17800, 'networking.k8s.io': 17200, 'discovery.k8s.io': 16200 };

/** The API groups other than the core one, from the registry's resources, in the aggregator's order. */
export function apiGroupNames(): string[] {
  const groups = new Set<string>();
  for (const info of served()) if (info.group !== '') groups.add(info.group);
  const priority = (g: string): number => GROUP_PRIORITY[g] ?? 0;
  return [...groups].sort((a, b) => priority(b) - priority(a) || (a < b ? -1 : a > b ? 1 : 0));
}

function versionsOf(group: string): string[] {
  const versions = new Set<string>();
  for (const info of served()) if (info.group === group) versions.add(info.apiVersion.slice(group.length + 1));
  return [...versions].sort();
}

/** One APIGroup (for /apis/<group> and inside /apis). */
export function apiGroup(group: string, withTypeMeta: boolean): Record<string, unknown> | undefined {
  const versions = versionsOf(group);
  const preferred = versions[versions.length - 1];
  if (preferred === undefined) return undefined;
  return {
    ...(withTypeMeta ? { kind: 'APIGroup', apiVersion: 'v1' } : {}),
    name: group,
    versions: versions.map((version) => ({ groupVersion: `${group}/${version}`, version })),
    preferredVersion: { groupVersion: `${group}/${preferred}`, version: preferred },
  };
}

export function apiGroupList(): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: apiGroupNames().map((g) => apiGroup(g, false)) };
}

/** /api: the legacy group's versions; the server address is the one the client reached. */
export function apiVersions(serverAddress: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}
