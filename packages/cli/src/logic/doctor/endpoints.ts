// `kubesvc doctor`'s EndpointsDisagree: the dump's Endpoints and EndpointSlices against what the
// endpoint controllers would write now for the Service's pods, and a Service without a
// selector that has neither. The controllers are @kubesvc/controllers' own, run once over a
// read-only view of the dump. Pure.
// upstream (v1.33): pkg/controller/endpoint/endpoints_controller.go (syncService),
// pkg/controller/endpointslice/reconciler.go (reconcile), and for a Service without a
// selector, the debug-service task: its Endpoints are whatever was written by hand.
import { isRecord, type EndpointSlice, type Endpoints, type KubeObject, type Node, type Pod, type ResourceName, type Service } from '@kubesvc/api-types';
import { endpointsController, endpointSliceController, type CacheView, type ReconcileAction } from '@kubesvc/controllers';
import { dumpNodes } from '../nodes.js';
import { compare, isExternalName, selectorOf, serviceKey, type DoctorContext, type Finding } from './finding.js';

const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';
const LABEL_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
/** How many differing endpoints the evidence names, each way. */
const SHOWN = 8;

/**
 * The pod with only the containers and container ports that are objects: the loose Pod schema
 * keeps `containers: [null]` as it came, which the apiserver would have refused, and the
 * controllers read containers as objects.
 */
function wellFormedPod(pod: Pod): Pod {
  const spec = pod.spec as Record<string, unknown> | undefined;
  if (spec === undefined) return pod;
  const clean = (field: string): Record<string, unknown> =>
    Array.isArray(spec[field])
      ? { [field]: (spec[field] as unknown[]).filter(isRecord).map((c) => (Array.isArray(c['ports']) ? { ...c, ports: (c['ports'] as unknown[]).filter(isRecord) } : c)) }
      : {};
  return { ...pod, spec: { ...spec, ...clean('containers'), ...clean('initContainers') } } as Pod;
}

/** A read-only informer view over the dump's objects (and the Nodes the pods name when the dump has none). */
export function dumpCacheView(context: DoctorContext, nodes: readonly Node[]): CacheView {
  const byResource = new Map<ResourceName, KubeObject[]>([
    ['services', [...context.dump.services]],
    ['pods', context.dump.pods.map(wellFormedPod)],
    ['endpoints', [...context.dump.endpoints]],
    ['endpointslices', [...context.dump.endpointSlices]],
    ['nodes', [...nodes]],
  ]);
  const key = (o: KubeObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  for (const list of byResource.values()) list.sort((a, b) => compare(key(a), key(b)));
  return {
    list<T extends KubeObject = KubeObject>(resource: ResourceName, namespace?: string): readonly T[] {
      const all = (byResource.get(resource) ?? []) as T[];
      return namespace === undefined ? all : all.filter((o) => (o.metadata.namespace ?? '') === namespace);
    },
    get<T extends KubeObject = KubeObject>(resource: ResourceName, namespace: string, name: string): T | undefined {
      return (byResource.get(resource) ?? []).find((o) => (o.metadata.namespace ?? '') === namespace && o.metadata.name === name) as T | undefined;
    },
  };
}

/**
 * The Nodes the slice controller sees: the dump's, or when it has none (a dump of Services and
 * pods only), a bare Node for each node a pod names, so that the controller does not leave the
 * pods out as it does for a pod whose Node it cannot find.
 */
export function nodesForControllers(context: DoctorContext): { readonly nodes: Node[]; readonly synthesized: boolean } {
  const nodes = dumpNodes(context.dump);
  if (nodes.length > 0) return { nodes, synthesized: false };
  const names = [...new Set(context.dump.pods.map((p) => p.spec?.nodeName ?? '').filter((n) => n !== ''))].sort(compare);
  return { nodes: names.map((name) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } }) as Node), synthesized: names.length > 0 };
}

function portText(port: { readonly name?: string | undefined; readonly port?: number | undefined; readonly protocol?: string | undefined }): string {
  return `${port.port ?? '?'}/${port.protocol ?? 'TCP'}${port.name !== undefined && port.name !== '' ? ` (${port.name})` : ''}`;
}

/** An Endpoints as lines `IP PORT/PROTO (name) ready|not ready`. */
export function endpointsLines(endpoints: Endpoints | undefined): string[] {
  const lines: string[] = [];
  for (const subset of endpoints?.subsets ?? []) {
    const ports = subset.ports ?? [];
    const each = (ip: string, state: string): void => {
      if (ports.length === 0) lines.push(`${ip} (no ports) ${state}`);
      for (const port of ports) lines.push(`${ip} ${portText(port)} ${state}`);
    };
    for (const a of subset.addresses ?? []) each(a.ip, 'ready');
    for (const a of subset.notReadyAddresses ?? []) each(a.ip, 'not ready');
  }
  return [...new Set(lines)].sort(compare);
}

/** EndpointSlices as lines `IP PORT/PROTO (name) ready|not ready|terminating[, serving]`, read as kube-proxy reads unset conditions. */
export function sliceLines(slices: readonly EndpointSlice[]): string[] {
  const lines: string[] = [];
  for (const slice of slices) {
    const ports = slice.ports ?? [];
    for (const ep of slice.endpoints ?? []) {
      // An unset ready reads as ready, an unset serving as ready, an unset terminating as false.
      const ready = ep.conditions?.ready ?? true;
      const serving = ep.conditions?.serving ?? ready;
      const terminating = ep.conditions?.terminating ?? false;
      const state = terminating ? (serving ? 'terminating, serving' : 'terminating') : ready ? 'ready' : 'not ready';
      for (const ip of ep.addresses) {
        if (ports.length === 0) lines.push(`${ip} (no ports) ${state}`);
        for (const port of ports) lines.push(`${ip} ${portText({ name: port.name ?? undefined, port: port.port ?? undefined, protocol: port.protocol ?? undefined })} ${state}`);
      }
    }
  }
  return [...new Set(lines)].sort(compare);
}

function slicesOf(context: DoctorContext, service: Service): EndpointSlice[] {
  const namespace = service.metadata.namespace ?? 'default';
  return context.dump.endpointSlices.filter((s) => (s.metadata.namespace ?? 'default') === namespace && s.metadata.labels?.[LABEL_SERVICE_NAME] === service.metadata.name);
}

function endpointsOf(context: DoctorContext, service: Service): Endpoints | undefined {
  const namespace = service.metadata.namespace ?? 'default';
  return context.dump.endpoints.find((e) => (e.metadata.namespace ?? 'default') === namespace && e.metadata.name === service.metadata.name);
}

/** The slices after the controller's writes: the dump's managed ones, updated, deleted, and the new ones. */
function slicesAfter(existing: readonly EndpointSlice[], actions: readonly ReconcileAction[]): EndpointSlice[] {
  const managed = existing.filter((s) => s.metadata.labels?.[LABEL_MANAGED_BY] === 'endpointslice-controller.k8s.io');
  const byName = new Map(managed.map((s) => [s.metadata.name ?? '', s]));
  const created: EndpointSlice[] = [];
  for (const action of actions) {
    if (action.kind === 'delete' && action.resource === 'endpointslices') byName.delete(action.name);
    if (action.kind === 'update' && action.resource === 'endpointslices') byName.set(action.object.metadata.name ?? '', action.object as EndpointSlice);
    if (action.kind === 'create' && action.resource === 'endpointslices') created.push(action.object as EndpointSlice);
  }
  return [...byName.values(), ...created];
}

/** Lines in `a` and not in `b`, at most SHOWN of them, with how many more. */
function missing(a: readonly string[], b: readonly string[]): string[] {
  const set = new Set(b);
  const out = a.filter((line) => !set.has(line));
  return out.length > SHOWN ? [...out.slice(0, SHOWN), `... and ${out.length - SHOWN} more`] : out;
}

const REASON_STALE =
  'The endpoint controllers rewrite a selector Service\'s Endpoints and EndpointSlices from its pods on every change, and kube-proxy and the cluster DNS read only what is written: a difference means the controllers have not caught up (or are not running), or the objects were written by hand and will be overwritten.';

function differenceEvidence(kind: string, inDump: readonly string[], computed: readonly string[]): string[] {
  const extra = missing(inDump, computed).map((l) => `${kind} in the input, not computed: ${l}`);
  const absent = missing(computed, inDump).map((l) => `${kind} computed, not in the input: ${l}`);
  return [...extra, ...absent];
}

/** EndpointsDisagree for one Service. */
export function endpointsDisagree(context: DoctorContext, service: Service, cache: CacheView, nodesSynthesized: boolean): Finding[] {
  if (isExternalName(service)) return [];
  const key = serviceKey(service);
  const namespace = service.metadata.namespace ?? 'default';
  const name = service.metadata.name ?? '';
  const slices = slicesOf(context, service);
  const endpoints = endpointsOf(context, service);
  if (selectorOf(service) === undefined) {
    if (slices.length > 0 || endpoints !== undefined) return [];
    const none = context.dump.endpoints.length === 0 && context.dump.endpointSlices.length === 0;
    return [
      {
        code: 'EndpointsDisagree',
        severity: none ? 'warning' : 'error',
        service: key,
        summary: 'the Service has no selector and no Endpoints or EndpointSlices: it has no endpoints',
        evidence: [
          'spec.selector: none',
          `no Endpoints ${key}, no EndpointSlice labelled ${LABEL_SERVICE_NAME}=${name}`,
          ...(none ? ['the input holds no Endpoints or EndpointSlices at all: it may have been dumped without them'] : []),
        ],
        reason: 'No controller writes the endpoints of a Service without a selector: its Endpoints (mirrored to EndpointSlices) or EndpointSlices are written by hand, and without them connections to it are rejected.',
        command: `kubectl get endpoints -n ${namespace} ${name}; kubectl get endpointslices -n ${namespace} -l ${LABEL_SERVICE_NAME}=${name}`,
      },
    ];
  }
  const evidence: string[] = [];
  // Compare each kind the input holds at all: a dump taken without Endpoints says nothing of them.
  if (context.dump.endpoints.length > 0) {
    const actions = endpointsController().reconcile(key, cache, 0);
    const written = actions.find((a) => (a.kind === 'create' || a.kind === 'update') && a.resource === 'endpoints');
    const desired = written !== undefined && written.kind !== 'delete' && 'object' in written ? (written.object as Endpoints) : endpoints;
    if (endpoints === undefined) evidence.push(`no Endpoints ${key} in the input; the endpoints controller would write one with ${endpointsLines(desired).length} address-port pairs`);
    else evidence.push(...differenceEvidence('Endpoints', endpointsLines(endpoints), endpointsLines(desired)));
  }
  if (context.dump.endpointSlices.length > 0) {
    const actions = endpointSliceController().reconcile(key, cache, 0);
    const desired = sliceLines(slicesAfter(slices, actions));
    const inDump = sliceLines(slices);
    if (slices.length === 0) evidence.push(`no EndpointSlice labelled ${LABEL_SERVICE_NAME}=${name} in the input; the EndpointSlice controller would write ${desired.length} address-port pairs`);
    else evidence.push(...differenceEvidence('EndpointSlice', inDump, desired));
    const byHand = slices.filter((s) => s.metadata.labels?.[LABEL_MANAGED_BY] !== 'endpointslice-controller.k8s.io');
    if (byHand.length > 0 && inDump.join('\n') !== desired.join('\n')) {
      evidence.push(
        `EndpointSlices not managed by endpointslice-controller.k8s.io (kube-proxy reads them too): ${byHand.map((s) => `${s.metadata.name ?? ''} (managed-by ${s.metadata.labels?.[LABEL_MANAGED_BY] ?? 'none'})`).join(', ')}`,
      );
    }
  }
  if (evidence.length === 0) return [];
  if (nodesSynthesized) evidence.push("the input has no Node objects: the pods' nodes were taken as existing");
  return [
    {
      code: 'EndpointsDisagree',
      severity: 'warning',
      service: key,
      summary: "the input's Endpoints/EndpointSlices differ from what the endpoint controllers would write for the Service's pods now",
      evidence,
      reason: REASON_STALE,
      command: `kubectl get endpointslices -n ${namespace} -l ${LABEL_SERVICE_NAME}=${name} -o yaml`,
    },
  ];
}
