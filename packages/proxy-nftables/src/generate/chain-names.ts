// The names of a service port's chains and of an endpoint's chain and affinity set: a
// prefix and `HASH-namespace/name/protocol/port` (with `__ip/port` for an endpoint).
// upstream: pkg/proxy/nftables/proxier.go (v1.33: newServiceInfo, newEndpointInfo,
// servicePortChainNameBase, servicePortEndpointChainNameBase, isServiceChainName,
// isAffinitySetName and the name prefixes).

import { flat, type L4Protocol } from '@kubesvc/proxy';
import { hashAndTruncate, prefixedHashAndTruncate } from './hash.js';

export const SERVICE_CHAIN_PREFIX = 'service-';
export const LOCAL_CHAIN_PREFIX = 'local-';
export const EXTERNAL_CHAIN_PREFIX = 'external-';
export const ENDPOINT_CHAIN_PREFIX = 'endpoint-';
export const AFFINITY_SET_PREFIX = 'affinity-';
export const FIREWALL_CHAIN_PREFIX = 'firewall-';

/** A service port's chains (servicePortInfo's clusterPolicyChainName and the others). */
export interface NftServiceChainNames {
  /** `service-…`: the endpoints of Cluster traffic policy. */
  readonly cluster: string;
  /** `local-…`: the endpoints of Local traffic policy. */
  readonly local: string;
  /** `external-…`: what NodePort, external IP and load-balancer traffic goes to. */
  readonly external: string;
  /** `firewall-…`: the loadBalancerSourceRanges check. */
  readonly firewall: string;
}

/** `HASH-namespace/name/protocol/port`, e.g. `ULMVA6XW-ns1/svc1/tcp/p80`. */
export function servicePortChainNameBase(namespace: string, name: string, portName: string, protocol: L4Protocol): string {
  return hashAndTruncate(`${namespace}/${name}/${protocol}/${portName}`);
}

export function serviceChainNames(namespace: string, name: string, portName: string, protocol: L4Protocol): NftServiceChainNames {
  const base = servicePortChainNameBase(namespace, name, portName, protocol);
  return {
    cluster: flat(SERVICE_CHAIN_PREFIX + base),
    local: flat(LOCAL_CHAIN_PREFIX + base),
    external: flat(EXTERNAL_CHAIN_PREFIX + base),
    firewall: flat(FIREWALL_CHAIN_PREFIX + base),
  };
}

/**
 * `HASH-namespace/name/protocol/port__ip/port`, the IP with its colons written as dots
 * (`fd00.10.180..1`): a chain name cannot hold a colon.
 */
export function servicePortEndpointChainNameBase(namespace: string, name: string, portName: string, protocol: L4Protocol, ip: string, port: number): string {
  return hashAndTruncate(endpointChainNameText(namespace, name, portName, protocol, ip, port));
}

function endpointChainNameText(namespace: string, name: string, portName: string, protocol: L4Protocol, ip: string, port: number): string {
  return `${namespace}/${name}/${protocol}/${portName}__${ip.includes(':') ? ip.replaceAll(':', '.') : ip}/${port}`;
}

/** An endpoint's chain and its affinity set. */
export interface NftEndpointNames {
  readonly chain: string;
  readonly affinitySet: string;
}

export function endpointNames(namespace: string, name: string, portName: string, protocol: L4Protocol, ip: string, port: number): NftEndpointNames {
  const chain = prefixedHashAndTruncate(ENDPOINT_CHAIN_PREFIX, endpointChainNameText(namespace, name, portName, protocol, ip, port));
  // The affinity set's name is the chain's with its prefix changed.
  return { chain, affinitySet: AFFINITY_SET_PREFIX + chain.slice(ENDPOINT_CHAIN_PREFIX.length) };
}

/** A service port's or an endpoint's chain: only these have a `/` in their names. */
export function isServiceChainName(chain: string): boolean {
  return chain.includes('/');
}

export function isAffinitySetName(set: string): boolean {
  return set.startsWith(AFFINITY_SET_PREFIX);
}
