// `kubesvc doctor`'s checks of the pods behind a Service: does the selector select any
// (SelectorMatchesNoPod), are they Ready (PodsNotReady), do they expose the targetPort
// (TargetPortNotExposed). Pure.
// upstream (v1.33): pkg/controller/endpoint/endpoints_controller.go (syncService: the pods of
// the Service's namespace its selector matches), staging/src/k8s.io/endpointslice/util/
// controller_utils.go (ShouldPodBeInEndpoints), pkg/api/v1/pod/util.go (IsPodReady, FindPort).
import { isPodReady, isRecord, type Pod, type Service, type ServicePort } from '@kubesvc/api-types';
import { isExternalName, podKey, selectedPodsOf, selectorOf, selectorText, selects, serviceKey, shellWord, type DoctorContext, type Finding } from './finding.js';

/** How many of the nearest pods the evidence names. */
const NEAREST_SHOWN = 5;
/** How many pods that are not ready the evidence names. */
const NOT_READY_SHOWN = 10;

function kubectlPods(service: Service, tail: string): string {
  const selector = selectorOf(service) ?? {};
  return `kubectl get pods -n ${service.metadata.namespace ?? 'default'} -l ${shellWord(selectorText(selector))} ${tail}`;
}

/** The selector's pairs a pod's labels miss: `app: "web-v2" (selector: "web")`, `tier: absent (selector: "front")`. */
function differences(selector: Readonly<Record<string, string>>, labels: Readonly<Record<string, string>> | undefined): string[] {
  const out: string[] = [];
  for (const key of Object.keys(selector).sort()) {
    const have = labels?.[key];
    if (have === selector[key]) continue;
    out.push(have === undefined ? `${key} absent (selector: ${JSON.stringify(selector[key])})` : `${key}=${JSON.stringify(have)} (selector: ${JSON.stringify(selector[key])})`);
  }
  return out;
}

/** SelectorMatchesNoPod: a selector that selects no pod of the Service's namespace, with the pods that come nearest. */
export function selectorMatchesNoPod(context: DoctorContext, service: Service): Finding[] {
  const selector = selectorOf(service);
  if (selector === undefined || isExternalName(service)) return [];
  if (selectedPodsOf(service, context.dump.pods).length > 0) return [];
  const namespace = service.metadata.namespace ?? 'default';
  const inNamespace = context.dump.pods.filter((p) => (p.metadata.namespace ?? 'default') === namespace);
  const score = (pod: Pod): number => Object.entries(selector).filter(([k, v]) => pod.metadata.labels?.[k] === v).length;
  const best = Math.max(0, ...inNamespace.map(score));
  const nearest = best === 0 ? [] : inNamespace.filter((p) => score(p) === best).sort((a, b) => (podKey(a) < podKey(b) ? -1 : 1));
  const evidence = [`spec.selector: ${selectorText(selector)}`];
  if (inNamespace.length === 0) evidence.push(`namespace ${namespace} has no pods in the input`);
  else if (nearest.length === 0) evidence.push(`none of the ${inNamespace.length} pods of namespace ${namespace} has any of the selector's labels`);
  for (const pod of nearest.slice(0, NEAREST_SHOWN)) {
    evidence.push(`nearest: pod ${podKey(pod)} matches ${best} of ${Object.keys(selector).length} labels; differs: ${differences(selector, pod.metadata.labels).join(', ')}`);
  }
  if (nearest.length > NEAREST_SHOWN) evidence.push(`... and ${nearest.length - NEAREST_SHOWN} more pods as near`);
  const elsewhere = context.dump.pods.filter((p) => (p.metadata.namespace ?? 'default') !== namespace && selects(selector, p.metadata.labels));
  if (elsewhere.length > 0) {
    evidence.push(`pods of other namespaces match the selector, and a Service selects only in its own: ${elsewhere.map(podKey).sort().join(', ')}`);
  }
  return [
    {
      code: 'SelectorMatchesNoPod',
      severity: 'error',
      service: serviceKey(service),
      summary: `the selector ${selectorText(selector)} selects no pod in namespace ${namespace}`,
      evidence,
      reason: "The endpoint controllers take the pods of the Service's own namespace whose labels hold every pair of the selector; with none, the Service has no endpoints and connections to it are rejected.",
      command: `kubectl get pods -n ${namespace} --show-labels`,
    },
  ];
}

interface ContainerState {
  readonly waiting?: { readonly reason?: string; readonly message?: string };
  readonly terminated?: { readonly reason?: string; readonly message?: string; readonly exitCode?: number };
}

interface ContainerStatus {
  readonly name?: string;
  readonly ready?: boolean;
  readonly restartCount?: number;
  readonly state?: ContainerState;
}

/** A container status of the loose schema, read field by field: what is not of its type is left out. */
function loose(raw: Record<string, unknown>): ContainerStatus {
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const state = isRecord(raw['state']) ? raw['state'] : {};
  const part = (v: unknown): { reason?: string; message?: string; exitCode?: number } | undefined => {
    if (!isRecord(v)) return undefined;
    const reason = text(v['reason']);
    const message = text(v['message']);
    const exitCode = typeof v['exitCode'] === 'number' ? v['exitCode'] : undefined;
    return { ...(reason !== undefined ? { reason } : {}), ...(message !== undefined ? { message } : {}), ...(exitCode !== undefined ? { exitCode } : {}) };
  };
  const waiting = part(state['waiting']);
  const terminated = part(state['terminated']);
  const name = text(raw['name']);
  return {
    ...(name !== undefined ? { name } : {}),
    ...(typeof raw['ready'] === 'boolean' ? { ready: raw['ready'] } : {}),
    ...(typeof raw['restartCount'] === 'number' ? { restartCount: raw['restartCount'] } : {}),
    state: { ...(waiting !== undefined ? { waiting } : {}), ...(terminated !== undefined ? { terminated } : {}) },
  };
}

function containerStatuses(pod: Pod): Record<string, unknown>[] {
  const status = (pod.status ?? {}) as Record<string, unknown>;
  const list = (field: string): Record<string, unknown>[] => (Array.isArray(status[field]) ? (status[field] as unknown[]).filter(isRecord) : []);
  return [...list('initContainerStatuses'), ...list('containerStatuses')];
}

function withMessage(reason: string | undefined, message: string | undefined): string {
  const r = reason ?? '(no reason)';
  return message === undefined || message === '' ? r : `${r}: ${message}`;
}

/** Why a pod is not a ready endpoint: its phase, deletion, Ready condition and containers' states. */
function whyNotReady(pod: Pod): string[] {
  const why: string[] = [];
  const phase = pod.status?.phase;
  if (pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null) why.push(`Terminating (deletionTimestamp ${String(pod.metadata.deletionTimestamp)})`);
  if (phase === 'Succeeded' || phase === 'Failed') why.push(`phase ${phase}`);
  if ((pod.status?.podIP ?? '') === '' && (pod.status?.podIPs ?? []).length === 0) why.push('no pod IP yet');
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready === undefined) why.push(`no Ready condition${phase === undefined ? '' : ` (phase ${phase})`}`);
  else if (ready.status !== 'True') why.push(ready.reason === undefined && ready.message === undefined ? `Ready=${ready.status}` : `Ready=${ready.status} (${withMessage(ready.reason, ready.message)})`);
  for (const raw of containerStatuses(pod)) {
    const c = loose(raw);
    const name = c.name ?? '?';
    const restarts = (c.restartCount ?? 0) > 0 ? `, ${c.restartCount} restarts` : '';
    if (c.state?.waiting !== undefined) why.push(`container ${name} waiting: ${withMessage(c.state.waiting.reason, c.state.waiting.message)}${restarts}`);
    else if (c.state?.terminated !== undefined) {
      const code = c.state.terminated.exitCode === undefined ? '' : ` (exit code ${c.state.terminated.exitCode})`;
      why.push(`container ${name} terminated: ${withMessage(c.state.terminated.reason, c.state.terminated.message)}${code}${restarts}`);
    } else if (c.ready === false) why.push(`container ${name} running, not ready (its readiness probe fails)${restarts}`);
  }
  return why;
}

function isDeleting(pod: Pod): boolean {
  return pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
}

function isTerminal(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** A ready endpoint: Ready, not being deleted, not terminal, with an IP. */
function servesTraffic(pod: Pod): boolean {
  const hasIP = (pod.status?.podIP ?? '') !== '' || (pod.status?.podIPs ?? []).length > 0;
  return isPodReady(pod) && !isDeleting(pod) && !isTerminal(pod) && hasIP;
}

/** PodsNotReady: selected pods that are not Ready, Terminating or finished, with why. */
export function podsNotReady(context: DoctorContext, service: Service): Finding[] {
  if (isExternalName(service)) return [];
  const selected = selectedPodsOf(service, context.dump.pods);
  const notServing = selected.filter((p) => !servesTraffic(p));
  if (notServing.length === 0) return [];
  const publish = service.spec?.publishNotReadyAddresses === true;
  const allDown = notServing.length === selected.length;
  const terminating = notServing.filter(isDeleting).length;
  return [
    {
      code: 'PodsNotReady',
      severity: publish ? 'note' : allDown ? 'error' : 'warning',
      service: serviceKey(service),
      summary: `${notServing.length} of ${selected.length} selected pods are not ready${terminating > 0 ? ` (${terminating} Terminating)` : ''}${publish ? '; publishNotReadyAddresses lists them anyway' : allDown ? ': no ready endpoint' : ''}`,
      evidence: [
        ...notServing.slice(0, NOT_READY_SHOWN).map((p) => `pod ${podKey(p)}: ${whyNotReady(p).join('; ')}`),
        ...(notServing.length > NOT_READY_SHOWN ? [`... and ${notServing.length - NOT_READY_SHOWN} more pods not ready`] : []),
      ],
      reason: publish
        ? 'With publishNotReadyAddresses the endpoint controllers list every pod with an IP as ready, so kube-proxy sends traffic to pods that may not answer yet.'
        : 'The endpoint controllers list a pod that is not Ready as not ready (and leave a Terminating one out of Endpoints), and kube-proxy sends new connections only to ready endpoints, falling back to terminating ones only when none is ready.',
      command: kubectlPods(service, '-o wide'),
    },
  ];
}

interface ContainerPort {
  readonly name?: unknown;
  readonly containerPort?: unknown;
  readonly protocol?: unknown;
}

function containersOf(pod: Pod, sidecars: boolean): { name: string; ports: ContainerPort[] }[] {
  const spec = (pod.spec ?? {}) as Record<string, unknown>;
  const list = (field: string): Record<string, unknown>[] => (Array.isArray(spec[field]) ? (spec[field] as unknown[]).filter(isRecord) : []);
  const main = list('containers');
  // FindPort also looks in sidecars: init containers with restartPolicy Always.
  const side = sidecars ? list('initContainers').filter((c) => c['restartPolicy'] === 'Always') : [];
  return [...main, ...side].map((c) => ({ name: typeof c['name'] === 'string' ? c['name'] : '?', ports: Array.isArray(c['ports']) ? (c['ports'] as unknown[]).filter(isRecord) : [] }));
}

function portProtocol(port: ContainerPort): string {
  return typeof port.protocol === 'string' && port.protocol !== '' ? port.protocol : 'TCP';
}

/** The container ports a pod declares, as `name:port/PROTO` (`port/PROTO` unnamed). */
function declaredPorts(pod: Pod): string {
  const all = containersOf(pod, true).flatMap((c) =>
    c.ports.map((p) => `${c.name} ${typeof p.name === 'string' && p.name !== '' ? `${p.name}:` : ''}${String(p.containerPort)}/${portProtocol(p)}`),
  );
  return all.length === 0 ? 'no container ports' : all.join(', ');
}

function portLabel(port: ServicePort, index: number): string {
  return port.name !== undefined && port.name !== '' ? `port ${port.name} (${port.port}/${port.protocol ?? 'TCP'})` : `spec.ports[${index}] (${port.port}/${port.protocol ?? 'TCP'})`;
}

/** TargetPortNotExposed: a numeric targetPort no selected pod declares (a note); a named one some or all selected pods lack (an error when all do). */
export function targetPortNotExposed(context: DoctorContext, service: Service): Finding[] {
  if (isExternalName(service)) return [];
  const selected = selectedPodsOf(service, context.dump.pods);
  if (selected.length === 0) return [];
  const findings: Finding[] = [];
  (service.spec?.ports ?? []).forEach((port, index) => {
    const protocol = port.protocol ?? 'TCP';
    const target = port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '' ? port.port : port.targetPort;
    const base = { code: 'TargetPortNotExposed' as const, service: serviceKey(service), command: kubectlPods(service, '-o yaml') };
    if (typeof target === 'number') {
      const declares = (pod: Pod): boolean => containersOf(pod, true).some((c) => c.ports.some((p) => p.containerPort === target && portProtocol(p) === protocol));
      if (selected.some(declares)) return;
      findings.push({
        ...base,
        severity: 'note',
        summary: `targetPort ${target}/${protocol} of ${portLabel(port, index)} is declared by no container of the ${selected.length} selected pods`,
        evidence: selected.slice(0, NEAREST_SHOWN).map((p) => `pod ${podKey(p)}: ${declaredPorts(p)}`),
        reason: 'A numeric targetPort is used as it is, whatever the containers declare (their ports list is informational), so the pods may still listen on it; nothing in the pods says they do.',
      });
      return;
    }
    const has = (pod: Pod): boolean => containersOf(pod, true).some((c) => c.ports.some((p) => p.name === target && portProtocol(p) === protocol && typeof p.containerPort === 'number'));
    const lacking = selected.filter((p) => !has(p));
    if (lacking.length === 0) return;
    const all = lacking.length === selected.length;
    findings.push({
      ...base,
      severity: all ? 'error' : 'warning',
      summary: `named targetPort ${JSON.stringify(target)} (${protocol}) of ${portLabel(port, index)} is declared by ${all ? 'none' : `${lacking.length}`} of the ${selected.length} selected pods`,
      evidence: lacking.slice(0, NEAREST_SHOWN).map((p) => `pod ${podKey(p)}: ${declaredPorts(p)}`),
      reason: "The endpoint controllers look a named targetPort up among the pod's container ports (and sidecars') with the Service port's protocol; a pod that has no such port gets no endpoint for this Service port.",
    });
  });
  return findings;
}
