// `kubectl get services`: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE [SELECTOR].
// upstream: pkg/printers/internalversion/printers.go (serviceColumnDefinitions, printService,
//           getServiceExternalIP, loadBalancerStatusStringer, makePortString)
import type { Service, ServicePort } from '@kubesvc/api-types';
import { translateTimestampSince } from './human-duration.js';
import { AGE_COLUMN, column, formatLabels, NAME_COLUMN, type ResourcePrinter } from './printer.js';

/** The load balancer's ingress points, IP before hostname, sorted and without duplicates. */
function loadBalancerIngress(service: Service): string {
  const seen = new Set<string>();
  for (const ingress of service.status?.loadBalancer?.ingress ?? []) {
    if (ingress.ip !== undefined && ingress.ip !== '') seen.add(ingress.ip);
    else if (ingress.hostname !== undefined && ingress.hostname !== '') seen.add(ingress.hostname);
  }
  // Go's sets.String.List sorts bytewise; so does the default sort of JS strings for ASCII.
  // The 16-character clipping upstream applies only to non-wide output, and the server prints wide.
  return [...seen].sort().join(',');
}

export function serviceExternalIP(service: Service): string {
  const spec = service.spec ?? {};
  const externalIPs = spec.externalIPs ?? [];
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerIngress(service);
      if (externalIPs.length > 0) return [...(lb === '' ? [] : lb.split(',')), ...externalIPs].join(',');
      return lb === '' ? '<pending>' : lb;
    }
    case 'ExternalName':
      return spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

/** `80/TCP`, or `80:30080/TCP` with a node port, comma-joined. */
export function makePortString(ports: readonly ServicePort[]): string {
  return ports
    .map((p) => {
      const protocol = p.protocol ?? '';
      return p.nodePort !== undefined && p.nodePort > 0 ? `${p.port}:${p.nodePort}/${protocol}` : `${p.port}/${protocol}`;
    })
    .join(',');
}

export const servicePrinter: ResourcePrinter<Service> = {
  columns: [
    NAME_COLUMN,
    column('Type', 'string', 'How the Service is exposed: ClusterIP, NodePort, LoadBalancer or ExternalName.'),
    column('Cluster-IP', 'string', 'The primary cluster IP of the Service, None for a headless Service.'),
    column('External-IP', 'string', 'External IPs and load balancer ingress points, or the external name.'),
    column('Port(s)', 'string', 'The ports the Service exposes, with their node ports.'),
    AGE_COLUMN,
    column('Selector', 'string', 'The label selector that chooses the Service\'s pods.', { priority: 1 }),
  ],
  cells: (service, now) => {
    const spec = service.spec ?? {};
    // Reading v1 objects, clusterIPs[0] is what the internal object's ClusterIPs[0] holds;
    // clusterIP is the same value on any object the registry has defaulted.
    const clusterIP = spec.clusterIPs?.[0] ?? (spec.clusterIP !== undefined && spec.clusterIP !== '' ? spec.clusterIP : '<none>');
    const ports = makePortString(spec.ports ?? []);
    return [
      service.metadata.name ?? '',
      spec.type ?? '',
      clusterIP,
      serviceExternalIP(service),
      ports === '' ? '<none>' : ports,
      translateTimestampSince(service.metadata.creationTimestamp, now),
      formatLabels(spec.selector),
    ];
  },
};
