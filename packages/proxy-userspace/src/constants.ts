// Constants of kube-proxy's userspace mode, with their upstream sources.

/**
 * Dial timeouts of the successive attempts to reach an endpoint, in ms: 4 attempts, each
 * waiting longer. upstream: pkg/proxy/userspace/proxysocket.go (EndpointDialTimeouts)
 */
export const ENDPOINT_DIAL_TIMEOUTS_MS: readonly number[] = [250, 500, 1000, 2000];

/**
 * How long a UDP client association lives without traffic, in ms (kube-proxy --udp-timeout).
 * upstream: pkg/proxy/apis/config/v1alpha1/defaults.go (UDPIdleTimeout)
 */
export const DEFAULT_UDP_IDLE_TIMEOUT_MS = 250;

/**
 * The affinity timeout used when a service port is created with 0 seconds: 3 hours.
 * upstream: pkg/proxy/userspace/roundrobin.go (newServiceInternal), core/v1 DefaultClientIPServiceAffinitySeconds
 */
export const DEFAULT_AFFINITY_TTL_SECONDS = 10800;
