// The objects the bootstrap controller owns: the kubernetes Service, its endpoint ports and the
// namespaces it keeps alive, and the check that decides whether a stored Service's spec is reset.
// upstream: pkg/controlplane/controller.go (createPortAndServiceSpec, createEndpointPortSpec,
//           CreateOrUpdateMasterServiceIfNeeded, checkServiceFormat, createNamespaceIfNeeded in
//           client_util.go), the same functions in pkg/controlplane/controller/kubernetesservice
import { formatIP, type EndpointPort, type Namespace, type Service, type ServicePort, type ServiceType } from '@kubesvc/api-types';
import type { BootstrapConfig } from './config.js';

export const KUBERNETES_SERVICE_NAME = 'kubernetes';
export const KUBERNETES_SERVICE_NAMESPACE = 'default';
/** upstream: metav1.NamespaceSystem, NamespacePublic, corev1.NamespaceNodeLease. */
export const SYSTEM_NAMESPACES: readonly string[] = ['kube-system', 'kube-public', 'kube-node-lease'];
export const KUBERNETES_SERVICE_LABELS: Readonly<Record<string, string>> = { provider: 'kubernetes', component: 'apiserver' };

/** The Service's ports and type: https TCP servicePort → securePort, NodePort when a node port is set. */
export function servicePortsAndType(config: BootstrapConfig): { readonly ports: ServicePort[]; readonly type: ServiceType } {
  const https: ServicePort = { name: 'https', protocol: 'TCP', port: config.servicePort, targetPort: config.securePort };
  const nodePort = config.kubernetesServiceNodePort;
  const ports = [nodePort > 0 ? { ...https, nodePort } : https, ...config.extraServicePorts];
  return { ports, type: nodePort > 0 ? 'NodePort' : 'ClusterIP' };
}

export function endpointPorts(config: BootstrapConfig): EndpointPort[] {
  return [{ name: 'https', port: config.securePort, protocol: 'TCP' }, ...config.extraEndpointPorts];
}

/** The Service as the controller creates it: no selector, the first IP, SingleStack, no affinity. */
export function kubernetesService(config: BootstrapConfig): Service {
  const { ports, type } = servicePortsAndType(config);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: KUBERNETES_SERVICE_NAME, namespace: KUBERNETES_SERVICE_NAMESPACE, labels: { ...KUBERNETES_SERVICE_LABELS } },
    spec: {
      ports,
      clusterIP: formatIP(config.serviceIP),
      ipFamilyPolicy: 'SingleStack',
      sessionAffinity: 'None',
      type,
    },
  };
}

export function namespaceObject(name: string): Namespace {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

// Go compares the ServicePort structs with ==: every field, a missing nodePort being 0, and
// AppProtocol, a *string, by pointer, so two ports that both set it never compare equal (as
// the reconcilers' endpointPortEqual).
function samePort(a: ServicePort, b: ServicePort): boolean {
  return (
    (a.name ?? '') === (b.name ?? '') &&
    (a.protocol ?? '') === (b.protocol ?? '') &&
    a.appProtocol === undefined &&
    b.appProtocol === undefined &&
    a.port === b.port &&
    (a.targetPort ?? 0) === (b.targetPort ?? 0) &&
    (a.nodePort ?? 0) === (b.nodePort ?? 0)
  );
}

/** upstream checkServiceFormat: the type and every port exactly as the controller would write them. */
export function checkServiceFormat(service: Service, ports: readonly ServicePort[], type: ServiceType): boolean {
  const actual = service.spec?.ports ?? [];
  if ((service.spec?.type ?? '') !== type || actual.length !== ports.length) return false;
  return ports.every((port, i) => {
    const other = actual[i];
    return other !== undefined && samePort(port, other);
  });
}

/** upstream getMasterServiceUpdateIfNeeded: the Service with its ports and type reset, or undefined when they are right. */
export function serviceUpdateIfNeeded(service: Service, config: BootstrapConfig): Service | undefined {
  const { ports, type } = servicePortsAndType(config);
  if (checkServiceFormat(service, ports, type)) return undefined;
  return { ...service, spec: { ...service.spec, ports, type } };
}
