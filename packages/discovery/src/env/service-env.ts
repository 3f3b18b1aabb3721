// The service environment variables kubelet gives every container.
// upstream: pkg/kubelet/envvars/envvars.go (FromServices, makeLinkVariables) and
// pkg/kubelet/kubelet_pods.go (getServiceEnvVarMap: which services a pod sees).
import { describeValue, err, isRecord, isServiceIPSet, joinHostPort, ok, type Result, type Service } from '@kubesvc/api-types';
import { servicesProblem } from '../dns/input-shape.js';

/** An argument of the wrong shape (from JavaScript or unchecked JSON); the message names the part. */
export interface ErrDiscoveryInput {
  readonly _tag: 'ErrDiscoveryInput';
  readonly message: string;
}

export function errDiscoveryInput(message: string): ErrDiscoveryInput {
  return { _tag: 'ErrDiscoveryInput', message };
}

function podProblem(pod: unknown): string | undefined {
  if (!isRecord(pod)) return `pod: expected { namespace, enableServiceLinks? }, got ${describeValue(pod)}`;
  if (typeof pod['namespace'] !== 'string') return `pod.namespace: expected a string, got ${describeValue(pod['namespace'])}`;
  const links = pod['enableServiceLinks'];
  if (links !== undefined && typeof links !== 'boolean') return `pod.enableServiceLinks: expected a boolean, got ${describeValue(links)}`;
  return undefined;
}

export interface EnvVar {
  readonly name: string;
  readonly value: string;
}

export interface ServiceEnvPod {
  /** The pod's namespace. */
  readonly namespace: string;
  /** pod.spec.enableServiceLinks; the apiserver defaults it to true. */
  readonly enableServiceLinks?: boolean;
}

/** The namespace and names of the master services. upstream: kubelet_pods.go masterServices */
const MASTER_NAMESPACE = 'default';
const MASTER_SERVICES: ReadonlySet<string> = new Set(['kubernetes']);

/** Upper case, '-' → '_'. Dots and leading digits are left alone, as upstream leaves them. */
export function envVarName(name: string): string {
  return name.replaceAll('-', '_').toUpperCase();
}

/**
 * The variables for a list of services, in kubelet's order (envvars.FromServices): per
 * service `_SERVICE_HOST`, `_SERVICE_PORT`, one `_SERVICE_PORT_<NAME>` per named port, then
 * the Docker-link variables. Services without a ClusterIP are skipped. A list that is not
 * one of Services (api-types' schema) is an ErrDiscoveryInput.
 */
export function envVarsFromServices(services: readonly Service[]): Result<EnvVar[], ErrDiscoveryInput> {
  const wrong = servicesProblem(services);
  return wrong === undefined ? ok(varsOf(services)) : err(errDiscoveryInput(wrong));
}

function varsOf(services: readonly Service[]): EnvVar[] {
  const out: EnvVar[] = [];
  for (const service of services) {
    if (!isServiceIPSet(service.spec)) continue;
    const ports = service.spec?.ports ?? [];
    const first = ports[0];
    // Validation requires a port on every service with a ClusterIP; upstream indexes
    // Ports[0] unguarded. A portless one (invalid) gets no variables rather than a crash.
    if (first === undefined) continue;
    const prefix = envVarName(service.metadata.name ?? '');
    const ip = service.spec?.clusterIP ?? '';
    out.push({ name: `${prefix}_SERVICE_HOST`, value: ip });
    out.push({ name: `${prefix}_SERVICE_PORT`, value: String(first.port) });
    for (const port of ports) {
      if (port.name !== undefined && port.name !== '') {
        out.push({ name: `${prefix}_SERVICE_PORT_${envVarName(port.name)}`, value: String(port.port) });
      }
    }
    ports.forEach((port, i) => {
      const protocol = port.protocol === undefined || port.protocol === '' ? 'TCP' : port.protocol;
      const lower = protocol.toLowerCase();
      const url = `${lower}://${joinHostPort(ip, port.port)}`;
      if (i === 0) out.push({ name: `${prefix}_PORT`, value: url });
      const portPrefix = `${prefix}_PORT_${port.port}_${protocol.toUpperCase()}`;
      out.push({ name: portPrefix, value: url });
      out.push({ name: `${portPrefix}_PROTO`, value: lower });
      out.push({ name: `${portPrefix}_PORT`, value: String(port.port) });
      out.push({ name: `${portPrefix}_ADDR`, value: ip });
    });
  }
  return out;
}

/**
 * The services a pod sees (getServiceEnvVarMap): those with a ClusterIP in the pod's
 * namespace when enableServiceLinks is on, plus default/kubernetes always; a service of the
 * same name in the pod's namespace wins over the master service. Order: the input order.
 */
export function servicesVisibleToPod(pod: ServiceEnvPod, services: readonly Service[]): Result<Service[], ErrDiscoveryInput> {
  const wrong = podProblem(pod) ?? servicesProblem(services);
  return wrong === undefined ? ok(visible(pod, services)) : err(errDiscoveryInput(wrong));
}

function visible(pod: ServiceEnvPod, services: readonly Service[]): Service[] {
  const links = pod.enableServiceLinks ?? true;
  const byName = new Map<string, Service>();
  for (const service of services) {
    if (!isServiceIPSet(service.spec)) continue;
    const name = service.metadata.name ?? '';
    const namespace = service.metadata.namespace ?? 'default';
    if (namespace === MASTER_NAMESPACE && MASTER_SERVICES.has(name)) {
      // Added only if the name is still free; a later same-named service of the pod's
      // namespace replaces it below.
      if (!byName.has(name)) byName.set(name, service);
    } else if (namespace === pod.namespace && links) {
      byName.set(name, service);
    }
  }
  // Upstream ranges over a Go map here, so its order is random; the input order is used.
  return services.filter((s) => byName.get(s.metadata.name ?? '') === s);
}

/** Exactly the service variables kubelet injects into a container of the pod. */
export function serviceEnv(pod: ServiceEnvPod, services: readonly Service[]): Result<EnvVar[], ErrDiscoveryInput> {
  const wrong = podProblem(pod) ?? servicesProblem(services);
  return wrong === undefined ? ok(varsOf(visible(pod, services))) : err(errDiscoveryInput(wrong));
}
