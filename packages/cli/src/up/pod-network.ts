// `kubesvc up --dataplane netns`: the wiring of the pod network (@kubesvc/node-agent/netns over
// @kubesvc/netlab). start-cluster.ts imports this module only for that option, so `kubesvc up`
// without it never loads the lab.
//
// - Before the control plane starts: the network (a namespace for the host side and for each
//   node), after removing what a crashed run with the same data dir left; the nodes' InternalIPs
//   are their addresses on it.
// - Once the API and the node agent listen: the relay (the advertise address's secure port and
//   the cluster DNS's port 53 in the host namespace, carried over Unix sockets to the API's and
//   the DNS server's loopback ports), the kube-dns Service at the tenth address of the service
//   range with its EndpointSlice at the relay, and the pods' namespaces, following the pods.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addressAtOffset, formatIP, type EndpointSlice, type Pod, type Service, type ServiceNetworking } from '@kubesvc/api-types';
import type { Logger } from '@kubesvc/apiserver';
import {
  netnsContainerRuntime,
  POD_NETWORK_HOST_IP,
  PodNetwork,
  ignoredCommandContainers,
  ignoredCommandMessage,
  podNetworkDataplane,
  podNetworkNodeIP,
  podNetworkPrefix,
  podNetworkRefusal,
  startPodNetworkPods,
  startUnixRelays,
  type PodNetworkPods,
  type UnixRelays,
} from '@kubesvc/node-agent/netns';
import { EventRecorder, type ControlPlane, type Informer } from '@kubesvc/runtime';
import { systemClock } from '@kubesvc/store';

export { netnsContainerRuntime, podNetworkDataplane };

/** The cluster DNS Service kubeadm makes, and its slice's manager here. */
export const KUBE_DNS = { namespace: 'kube-system', name: 'kube-dns' } as const;
const MANAGED_BY = 'kubesvc-up';

/** Why `--dataplane netns` cannot run here (root, tools), or undefined. */
export function podNetworkProblem(proxyMode: 'iptables' | 'nftables'): string | undefined {
  return podNetworkRefusal(proxyMode)?.message;
}

/** The nodes' InternalIPs on the pod network: node i (from 0) has 198.51.100.<11+i>. */
export function podNetworkNodeIPs(count: number): string[] {
  return Array.from({ length: count }, (_, i) => podNetworkNodeIP(i + 1));
}

/** The namespaces' prefix for a data dir: a crash's leftovers are found again by the next run on it. */
export function podNetworkPrefixFor(dataDir: string): string {
  return podNetworkPrefix(dataDir);
}

export function createPodNetwork(options: { readonly dataDir: string; readonly nodes: readonly { readonly name: string; readonly podCIDR: string }[]; readonly advertiseAddress: string }): Promise<PodNetwork> {
  return PodNetwork.create({
    prefix: podNetworkPrefixFor(options.dataDir),
    nodes: options.nodes.map((n) => ({ name: n.name, podCIDR: n.podCIDR })),
    hostAddresses: [options.advertiseAddress],
  });
}

/** The kube-dns ClusterIP: the tenth address of the primary service range, as kubeadm picks it. */
/** Whether the network holds this very pod's namespace (same uid): what the explorer marks, and replays from. */
export function isPodSandbox(network: PodNetwork, pod: Pod): boolean {
  const sandbox = network.pod(`${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`);
  return sandbox !== undefined && (pod.metadata.uid === undefined || sandbox.uid === pod.metadata.uid);
}

export function kubeDnsClusterIP(serviceNetworking: ServiceNetworking): string {
  const at = addressAtOffset(serviceNetworking.primary, 10);
  if (!at.ok) throw new Error(`the service range ${formatIP(serviceNetworking.primary.network)}/${serviceNetworking.primary.prefix} has no tenth address for kube-dns`);
  return formatIP(at.value);
}

export interface PodNetworkServicesOptions {
  readonly network: PodNetwork;
  readonly registry: ControlPlane['registry'];
  readonly informer: Informer;
  readonly serviceNetworking: ServiceNetworking;
  readonly dataDir: string;
  readonly advertiseAddress: string;
  /** The API's secure port (the kubernetes Endpoints' port), and where it listens on this host. */
  readonly api: { readonly host: string; readonly port: number };
  /** The node agent's DNS server (its TCP side). */
  readonly dns: { readonly host: string; readonly port: number } | undefined;
  readonly logger: Logger;
  /** The host's name, for the reportingInstance of the kubelet's events. */
  readonly hostname: string;
  /** Told when a pod's sandbox is made (its containers start) and removed. */
  readonly sandboxMade?: (pod: Pod) => void;
  readonly sandboxRemoved?: (uid: string) => void;
}

export interface PodNetworkServices {
  readonly kubeDnsIP: string;
  readonly pods: PodNetworkPods;
  stop(): Promise<void>;
}

/** The relay, kube-dns and the pods' namespaces (see the top of this file). */
export async function startPodNetworkServices(options: PodNetworkServicesOptions): Promise<PodNetworkServices> {
  const { network } = options;
  const kubeDnsIP = kubeDnsClusterIP(options.serviceNetworking);
  const kubeletEvents = new EventRecorder(options.registry, options.informer, systemClock, options.hostname, options.logger);
  const targets = [{ name: 'api.sock', host: options.api.host, port: options.api.port }, ...(options.dns === undefined ? [] : [{ name: 'dns.sock', host: options.dns.host, port: options.dns.port }])];
  const relays: UnixRelays = await startUnixRelays(join(tmpdir(), `${network.prefix}-relay`), targets);
  try {
    const api = relays.paths['api.sock'] ?? '';
    const dns = relays.paths['dns.sock'];
    await network.startRelay([
      { protocol: 'tcp', host: options.advertiseAddress, port: options.api.port, unix: api },
      ...(dns === undefined
        ? []
        : [
            { protocol: 'udp' as const, host: POD_NETWORK_HOST_IP, port: 53, unix: dns },
            { protocol: 'tcp' as const, host: POD_NETWORK_HOST_IP, port: 53, unix: dns },
          ]),
    ]);
    if (dns !== undefined) await publishKubeDns(options.registry, kubeDnsIP, options.logger);
    const pods = startPodNetworkPods({
      network,
      source: options.informer,
      dataDir: options.dataDir,
      ...(dns === undefined ? {} : { dns: { nameserver: kubeDnsIP, clusterDomain: options.serviceNetworking.clusterDomain } }),
      logger: options.logger,
      sandboxMade: (pod) => {
        options.sandboxMade?.(pod);
        // `kubectl describe pod` shows that a container's command and args do not run.
        const ignored = ignoredCommandContainers(pod);
        if (ignored.length === 0) return;
        const regarding = { apiVersion: 'v1', kind: 'Pod', resource: 'pods' as const, namespace: pod.metadata.namespace ?? 'default', name: pod.metadata.name ?? '' };
        void kubeletEvents.recordCore({ type: 'Normal', reason: 'CommandIgnored', message: ignoredCommandMessage(ignored), component: 'kubelet', regarding }).catch(() => undefined);
      },
      ...(options.sandboxRemoved === undefined ? {} : { sandboxRemoved: options.sandboxRemoved }),
    });
    return {
      kubeDnsIP,
      pods,
      async stop() {
        await pods.stop();
        await relays.close();
      },
    };
  } catch (error) {
    await relays.close();
    throw error;
  }
}

/**
 * kube-system/kube-dns, as kubeadm makes it (ports 53 UDP and TCP, its ClusterIP the tenth of
 * the range), without a selector (no CoreDNS pods run: the node agent's DNS answers), and its
 * EndpointSlice at the relay's address. A kube-dns Service already there is left as it is.
 */
async function publishKubeDns(registry: ControlPlane['registry'], clusterIP: string, logger: Logger): Promise<void> {
  const service: Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: KUBE_DNS.name, namespace: KUBE_DNS.namespace, labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' } },
    spec: {
      clusterIP,
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
        { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
      ],
    },
  };
  const existing = await registry.get<Service>('services', KUBE_DNS.namespace, KUBE_DNS.name);
  if (!existing.ok) {
    const created = await registry.create('services', KUBE_DNS.namespace, service);
    if (!created.ok) {
      logger.log('error', `could not publish ${KUBE_DNS.namespace}/${KUBE_DNS.name}: ${created.error.message}`);
      return;
    }
  }
  const slice: EndpointSlice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${KUBE_DNS.name}-relay`,
      namespace: KUBE_DNS.namespace,
      labels: { 'kubernetes.io/service-name': KUBE_DNS.name, 'endpointslice.kubernetes.io/managed-by': MANAGED_BY },
    },
    addressType: 'IPv4',
    endpoints: [{ addresses: [POD_NETWORK_HOST_IP], conditions: { ready: true, serving: true, terminating: false } }],
    ports: [
      { name: 'dns', port: 53, protocol: 'UDP' },
      { name: 'dns-tcp', port: 53, protocol: 'TCP' },
    ],
  };
  await registry.delete('endpointslices', KUBE_DNS.namespace, slice.metadata.name ?? '');
  const made = await registry.create('endpointslices', KUBE_DNS.namespace, slice);
  if (!made.ok) logger.log('error', `could not publish the EndpointSlice of ${KUBE_DNS.namespace}/${KUBE_DNS.name}: ${made.error.message}`);
}
