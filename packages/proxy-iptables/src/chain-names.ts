// Per-service and per-endpoint chain names: a prefix plus the first 16 characters of
// base32(sha256(servicePortName + protocol [+ endpoint])). iptables chain names are at most
// 28 characters; the longest prefix, "KUBE-SVC-" (9), gives 25.
// upstream: pkg/proxy/iptables/proxier.go (portProtoHash, servicePortPolicyClusterChain,
// servicePortPolicyLocalChainName, serviceFirewallChainName, serviceExternalChainName,
// servicePortEndpointChainName, isServiceChainName)

import type { RuleKernel } from './rule-kernel.js';
import { flat, sha256Base32Prefix16, shortPrefixedHash9 } from '@kubesvc/proxy';

export const SVC_PREFIX = 'KUBE-SVC-';
export const SVL_PREFIX = 'KUBE-SVL-';
export const FW_PREFIX = 'KUBE-FW-';
export const EXT_PREFIX = 'KUBE-EXT-';
export const SEP_PREFIX = 'KUBE-SEP-';

/** The 16-character hash of a service port name and lowercase protocol. */
export function portProtoHash(servicePortName: string, protocol: string): string {
  return sha256Base32Prefix16(servicePortName, protocol);
}

/**
 * prefix + hash as one flat string. A bare `+` would make a two-piece rope, and a chain name is
 * printed into several lines and compared (sync's printer keeps the `-A CHAIN` of the last
 * line): each use would walk both pieces. Reading a character flattens it once, at about a
 * third of the cost of joining an array.
 */
function chainName(prefix: string, hash: string): string {
  return flat(prefix + hash);
}

export interface ServiceChainNames {
  readonly cluster: string;
  readonly local: string;
  readonly firewall: string;
  readonly external: string;
}

export function serviceChainNames(servicePortName: string, protocol: string): ServiceChainNames {
  const hash = portProtoHash(servicePortName, protocol);
  return {
    cluster: chainName(SVC_PREFIX, hash),
    local: chainName(SVL_PREFIX, hash),
    firewall: chainName(FW_PREFIX, hash),
    external: chainName(EXT_PREFIX, hash),
  };
}

type MutableChainNames = { -readonly [K in keyof ServiceChainNames]: ServiceChainNames[K] };

/**
 * The chain names of many service ports, hashed together (four at a time by `kernel` when there
 * is one): `defer` stands in for serviceChainNames and returns names that `name()` fills in. A
 * large cluster has a service port per Service.
 */
export class ServiceChainBatch {
  constructor(private readonly kernel: RuleKernel | undefined) {}

  private readonly pending: { readonly spn: string; readonly protocol: string; readonly chains: MutableChainNames }[] = [];

  readonly defer = (servicePortName: string, protocol: string): ServiceChainNames => {
    const chains: MutableChainNames = { cluster: '', local: '', firewall: '', external: '' };
    this.pending.push({ spn: servicePortName, protocol, chains });
    return chains;
  };

  /** Fills in the names `defer` gave out. */
  name(): void {
    const pending = this.pending;
    const n = pending.length;
    const hashes = new Array<string | undefined>(n);
    const kernel = this.kernel;
    if (n > 1 && kernel !== undefined) {
      kernel.beginRecords(n);
      for (let i = 0; i < n; i++) {
        const { spn, protocol } = pending[i] as (typeof pending)[number];
        // The whole text is the record's: no head.
        if (kernel.putRecord(i, spn + protocol, 0, 0) && kernel.hashedInKernel(0, spn.length + protocol.length)) hashes[i] = '';
      }
      if (kernel.hashRecords('', n)) {
        for (let i = 0; i < n; i++) if (hashes[i] === '') hashes[i] = kernel.recordHash(i);
      } else {
        hashes.fill(undefined);
      }
    }
    for (let i = 0; i < n; i++) {
      const { spn, protocol, chains } = pending[i] as (typeof pending)[number];
      const hash = hashes[i] ?? portProtoHash(spn, protocol);
      chains.cluster = chainName(SVC_PREFIX, hash);
      chains.local = chainName(SVL_PREFIX, hash);
      chains.firewall = chainName(FW_PREFIX, hash);
      chains.external = chainName(EXT_PREFIX, hash);
    }
    pending.length = 0;
  }
}

/** KUBE-SEP- name; `endpoint` is `ip:port` (`[ip]:port` for IPv6). */
export function endpointChainName(servicePortName: string, protocol: string, endpoint: string): string {
  // The parts go to the hash separately: a concatenation would be built and flattened per endpoint.
  return (
    shortPrefixedHash9(SEP_PREFIX, servicePortName, protocol, endpoint) ??
    chainName(SEP_PREFIX, sha256Base32Prefix16(servicePortName, protocol, endpoint))
  );
}

/**
 * The KUBE-SEP- names of many endpoints (`ip:port` in hostPort) of one service port, index by
 * index: what endpointChainName gives for each, hashed four at a time by `kernel` when there is
 * one (names it cannot take, long or not ASCII, are hashed one by one).
 */
export function endpointChainNames(
  servicePortName: string,
  protocol: string,
  endpoints: readonly { readonly hostPort: string }[],
  kernel: RuleKernel | undefined,
): string[] {
  const n = endpoints.length;
  const names = new Array<string>(n);
  const head = servicePortName + protocol;
  const hostPort = (i: number): string => (endpoints[i] as { hostPort: string }).hostPort;
  // Endpoints the kernel cannot name: hashed one by one.
  let others: number[] | undefined;
  let hashed = false;
  if (n > 0 && kernel !== undefined) {
    kernel.beginRecords(n);
    for (let i = 0; i < n; i++) {
      const text = hostPort(i);
      if (!kernel.putRecord(i, text, 0, 0) || !kernel.hashedInKernel(head.length, text.length)) (others ??= []).push(i);
    }
    hashed = kernel.hashRecords(head, n);
  }
  if (!hashed || kernel === undefined) {
    for (let i = 0; i < n; i++) names[i] = endpointChainName(servicePortName, protocol, hostPort(i));
    return names;
  }
  for (let i = 0; i < n; i++) names[i] = kernel.recordName(i);
  for (const i of others ?? []) names[i] = endpointChainName(servicePortName, protocol, hostPort(i));
  return names;
}

/** True for the chains kube-proxy creates per service or endpoint (and deletes when stale). */
export function isServiceChainName(chain: string): boolean {
  return [SVC_PREFIX, SVL_PREFIX, SEP_PREFIX, FW_PREFIX, EXT_PREFIX].some((prefix) => chain.startsWith(prefix));
}
