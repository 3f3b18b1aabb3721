// The defaults of `kubesvc up`'s flags, apart from start-cluster.ts: the program reads them to
// build every command's options and help, and start-cluster.ts imports the whole runtime
// (SQLite, etcd and gRPC clients, certificate generation), about 0.3 s of module loading that
// an offline command such as `kubesvc rules` does not need.
import { hostname } from 'node:os';
import type { ClusterIPAllocation } from '@kubesvc/api-types';

/** The userspace proxy's ports, written for `kubesvc proxy-ports` each time they change. */
export const PROXY_PORTS_FILE = 'proxy-ports.json';

export const UP_DEFAULTS = {
  dataDir: '.kubesvc',
  bindAddress: '127.0.0.1',
  securePort: 6443,
  // kubeadm's default; kube-apiserver's own is 10.0.0.0/24.
  serviceClusterIPRange: '10.96.0.0/12',
  serviceNodePortRange: '30000-32767',
  endpointReconcilerType: 'lease',
  kubernetesServiceNodePort: 0,
  dnsPort: 10053,
  proxyMode: 'iptables',
  dataplane: 'files',
  clusterCIDR: '10.244.0.0/16',
  nodeCPU: '4',
} as const;

/** The node name kubesvc up uses by default: the host's name, lower-cased as a DNS label. */
export function defaultNodeName(): string {
  const name = hostname().toLowerCase().replace(/[^a-z0-9.-]/g, '-');
  return name === '' ? 'node-1' : name;
}

/** Which ClusterIP allocator runs, and the gates that chose it: the start-up line and the summary's. */
export function clusterIPAllocationText(allocation: ClusterIPAllocation): string {
  if (allocation.allocator === 'bitmap') return 'the RangeAllocation bitmap (MultiCIDRServiceAllocator off)';
  return `IPAddress objects (MultiCIDRServiceAllocator), dual write to the RangeAllocation ${allocation.dualWrite ? 'on' : 'off (DisableAllocatorDualWrite)'}`;
}
