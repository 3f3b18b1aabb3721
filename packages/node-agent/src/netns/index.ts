// `@kubesvc/node-agent/netns`: the data plane of `--dataplane netns`, apart from the package's
// main entry so that only a caller that asks for it loads @kubesvc/netlab.
export { netnsDataplane, netnsUnavailable, NetnsDataplane } from './netns-dataplane.js';
export type { NetnsDataplaneOptions } from './netns-dataplane.js';
// The pod network: a namespace for every node (its kube-proxy's rules) and pod (its servers).
export { podNetworkDataplane, podNetworkRefusal, PodNetworkNodeDataplane } from './pod-network-dataplane.js';
export { startPodNetworkPods } from './pod-network-pods.js';
export type { PodNetworkPods, PodNetworkPodsOptions } from './pod-network-pods.js';
export { DEFAULT_HTTP_PORT, ignoredCommandContainers, ignoredCommandMessage, isHttpPort, podLogDir, resolvConf, sandboxContainers, wantsSandbox } from './pod-sandbox-spec.js';
export type { ClusterDnsSettings, SandboxContainer, SandboxPort } from './pod-sandbox-spec.js';
export { startUnixRelays } from './unix-relay.js';
export type { UnixRelays, UnixRelayTarget } from './unix-relay.js';
// What the shell needs of the pod network itself, so that it never imports @kubesvc/netlab.
export { POD_NETWORK_HOST_IP, PodNetwork, podNetworkNodeIP, podNetworkPrefix, removePodNetworkLeftovers } from '@kubesvc/netlab';
// The node side of pods/exec, attach, log and portforward for the pod network's pods.
export { netnsContainerRuntime } from './container-runtime.js';
export type { NetnsContainerRuntimeOptions } from './container-runtime.js';
