// Services and EndpointSlices for a lab, written as the API server would hold them (defaulted
// fields spelled out), and the demo cluster that the tests, `npm run lab` and the README use.
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { LABEL_SERVICE_NAME } from '@kubesvc/api-types';

export type LabProtocol = 'TCP' | 'UDP';

export interface LabServiceSpec {
  readonly name: string;
  readonly clusterIP: string;
  readonly port: number;
  readonly targetPort: number;
  readonly protocol?: LabProtocol;
  /** A NodePort service on this port. */
  readonly nodePort?: number;
  readonly sessionAffinity?: 'None' | 'ClientIP';
  /** For a NodePort service. Default `Cluster`. */
  readonly externalTrafficPolicy?: 'Cluster' | 'Local';
  /** `PreferClose`: the EndpointSlice controller gives each endpoint a hint for its own zone. */
  readonly trafficDistribution?: 'PreferClose';
}

/** One endpoint of a lab service: a pod's address, the node it runs on, and that node's zone. */
export interface LabEndpoint {
  readonly ip: string;
  readonly nodeName: string;
  /** The zone of its node (empty or absent: none). */
  readonly zone?: string;
  /** Write a hint for its own zone, as the controller does for a PreferClose service. */
  readonly hintOwnZone?: boolean;
}

/** The namespace of every lab service. */
export const LAB_NAMESPACE = 'default';
/** The service port's name in the Service and its EndpointSlice. */
export const LAB_PORT_NAME = 'p';

export function labService(spec: LabServiceSpec): Service {
  const protocol = spec.protocol ?? 'TCP';
  const affinity = spec.sessionAffinity ?? 'None';
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: LAB_NAMESPACE, name: spec.name },
    spec: {
      type: spec.nodePort === undefined ? 'ClusterIP' : 'NodePort',
      clusterIP: spec.clusterIP,
      clusterIPs: [spec.clusterIP],
      ports: [
        {
          name: LAB_PORT_NAME,
          port: spec.port,
          targetPort: spec.targetPort,
          protocol,
          ...(spec.nodePort === undefined ? {} : { nodePort: spec.nodePort }),
        },
      ],
      sessionAffinity: affinity,
      ...(affinity === 'ClientIP' ? { sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } } } : {}),
      ...(spec.nodePort === undefined ? {} : { externalTrafficPolicy: spec.externalTrafficPolicy ?? 'Cluster' }),
      internalTrafficPolicy: 'Cluster',
      ...(spec.trafficDistribution === undefined ? {} : { trafficDistribution: spec.trafficDistribution }),
    },
  };
}

/** The EndpointSlice of a lab service: one ready endpoint per address, on the lab's node. */
export function labEndpointSlice(spec: LabServiceSpec, addresses: readonly string[], nodeName: string): EndpointSlice {
  return labEndpointSliceOf(
    spec,
    addresses.map((ip) => ({ ip, nodeName })),
  );
}

/** The EndpointSlice of a lab service with one ready endpoint per `endpoints` entry, each on its own node and zone. */
export function labEndpointSliceOf(spec: LabServiceSpec, endpoints: readonly LabEndpoint[]): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: LAB_NAMESPACE, name: `${spec.name}-lab`, labels: { [LABEL_SERVICE_NAME]: spec.name } },
    addressType: 'IPv4',
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: e.nodeName,
      ...(e.zone === undefined || e.zone === '' ? {} : { zone: e.zone }),
      ...(e.hintOwnZone === true && e.zone !== undefined && e.zone !== '' ? { hints: { forZones: [{ name: e.zone }] } } : {}),
    })),
    ports: [{ name: LAB_PORT_NAME, port: spec.targetPort, protocol: spec.protocol ?? 'TCP' }],
  };
}

/** The backends' TCP and UDP ports (targetPorts). */
export const BACKEND_TCP_PORT = 8080;
export const BACKEND_UDP_PORT = 5353;

/** The demo cluster's services, by role. */
export const DEMO_SERVICES = {
  /** 10.96.0.10:80, three endpoints. */
  web: { name: 'web', clusterIP: '10.96.0.10', port: 80, targetPort: BACKEND_TCP_PORT },
  /** ClientIP session affinity. */
  sticky: { name: 'sticky', clusterIP: '10.96.0.11', port: 80, targetPort: BACKEND_TCP_PORT, sessionAffinity: 'ClientIP' },
  /** No endpoints: REJECT. */
  empty: { name: 'empty', clusterIP: '10.96.0.12', port: 80, targetPort: BACKEND_TCP_PORT },
  /** NodePort 30080. */
  nodeport: { name: 'nodeport', clusterIP: '10.96.0.13', port: 80, targetPort: BACKEND_TCP_PORT, nodePort: 30080 },
  /** UDP 53 → 5353. */
  dns: { name: 'dns', clusterIP: '10.96.0.14', port: 53, targetPort: BACKEND_UDP_PORT, protocol: 'UDP' },
  /** Scaled under load. */
  scale: { name: 'scale', clusterIP: '10.96.0.15', port: 80, targetPort: BACKEND_TCP_PORT },
} as const satisfies Record<string, LabServiceSpec>;

export interface LabCluster {
  readonly services: readonly Service[];
  readonly endpointSlices: readonly EndpointSlice[];
}

/**
 * The demo cluster: every service of DEMO_SERVICES, `empty` without endpoints, `scale` backed
 * by `scaleTo` (default `endpoints`), the others by `endpoints` (pod IPs).
 */
export function demoCluster(endpoints: readonly string[], nodeName: string, scaleTo: readonly string[] = endpoints): LabCluster {
  const specs = Object.values(DEMO_SERVICES);
  return {
    services: specs.map(labService),
    endpointSlices: specs.map((spec) =>
      labEndpointSlice(spec, spec.name === 'empty' ? [] : spec.name === 'scale' ? scaleTo : endpoints, nodeName),
    ),
  };
}
