// The KUBE-SEP- chain names of a service port's endpoints, hashed in the rule kernel when there
// is one: the iptables decoration of @kubesvc/proxy's endpoints.
// upstream: pkg/proxy/iptables/proxier.go (servicePortEndpointChainName, endpointInfo.ChainName)

import { flat, hostPortLength, type EndpointInfo } from '@kubesvc/proxy';
import { endpointChainName, SEP_PREFIX } from './chain-names.js';
import type { RuleKernel } from './rule-kernel.js';
import type { ServicePortInfo } from './service-ports.js';

/** The KUBE-SEP- chain of an endpoint of a service port. */
export function endpointChain(svc: ServicePortInfo, ep: EndpointInfo): string {
  return endpointChainName(svc.nameString, svc.protocol, ep.hostPort);
}

/** What hashEndpointRecords left: the endpoints the kernel did not name, and whether every record took its endpoint. */
interface KernelHashing {
  /** Endpoints the kernel cannot name: hashed one by one. */
  readonly others: readonly number[];
  /** False when a record could not take its endpoint: then the records cannot be printed from. */
  readonly placed: boolean;
}

/**
 * Puts `endpoints` into the kernel's records and hashes their names there, four at a time (as
 * chain-names.ts's endpointChainNames, from the IPs and ports). Undefined without a kernel or
 * when it could not hash them: then every name is to be made by endpointChain.
 */
function hashEndpointRecords(kernel: RuleKernel | undefined, svc: ServicePortInfo, endpoints: readonly EndpointInfo[]): KernelHashing | undefined {
  const n = endpoints.length;
  if (n === 0 || kernel === undefined) return undefined;
  const head = svc.nameString + svc.protocol;
  const others: number[] = [];
  let placed = true;
  kernel.beginRecords(n);
  for (let i = 0; i < n; i++) {
    const ep = endpoints[i] as EndpointInfo;
    const put = kernel.putEndpoint(i, ep.ip, ep.ipv4, ep.port, ep.portSuffix, ep.bracketed);
    if (!put) placed = false;
    if (!put || !kernel.hashedInKernel(head.length, hostPortLength(ep))) others.push(i);
  }
  kernel.expandRecords(n);
  return kernel.hashRecords(head, n) ? { others, placed } : undefined;
}

/**
 * endpointChain of each of `endpoints`, by index: hashed by `kernel` when there is one.
 * `placed` is told where the kernel's records are when they hold every endpoint and its name, so
 * that an open arena can print from them.
 */
export function endpointChains(
  kernel: RuleKernel | undefined,
  svc: ServicePortInfo,
  endpoints: readonly EndpointInfo[],
  placed?: (at: number) => void,
): string[] {
  const n = endpoints.length;
  const names = new Array<string>(n);
  const hashing = hashEndpointRecords(kernel, svc, endpoints);
  if (hashing === undefined || kernel === undefined) {
    for (let i = 0; i < n; i++) names[i] = endpointChain(svc, endpoints[i] as EndpointInfo);
    return names;
  }
  for (let i = 0; i < n; i++) names[i] = kernel.recordName(i);
  for (const i of hashing.others) {
    names[i] = endpointChain(svc, endpoints[i] as EndpointInfo);
    kernel.putRecordName(i, names[i]);
  }
  if (placed !== undefined && hashing.placed) placed(kernel.recordsAt());
  return names;
}

/** The characters of a KUBE-SEP- name after its prefix (upstream's portProtoHash: 16 of base32). */
const HASH_CHARS = 16;

/**
 * endpointChain of each of `endpoints` without its `KUBE-SEP-` prefix, concatenated in their
 * order: what a sync keeps of its endpoints' names. One string per service port, not one per
 * endpoint: a first sync's state is young while it is built, and every scavenge copies it.
 * sepNameAt gives a name back. `placed` as for endpointChains.
 */
export function endpointChainHashes(
  kernel: RuleKernel | undefined,
  svc: ServicePortInfo,
  endpoints: readonly EndpointInfo[],
  placed?: (at: number) => void,
): string {
  const n = endpoints.length;
  const hashing = hashEndpointRecords(kernel, svc, endpoints);
  if (hashing === undefined || kernel === undefined) {
    let hashes = '';
    for (let i = 0; i < n; i++) hashes += endpointChain(svc, endpoints[i] as EndpointInfo).slice(SEP_PREFIX.length);
    return flat(hashes);
  }
  for (const i of hashing.others) kernel.putRecordName(i, endpointChain(svc, endpoints[i] as EndpointInfo));
  if (placed !== undefined && hashing.placed) placed(kernel.recordsAt());
  return kernel.recordHashes(n);
}

/** The KUBE-SEP- name of endpoint `i` of hashes that endpointChainHashes made. */
export function sepNameAt(hashes: string, i: number): string {
  return SEP_PREFIX + hashes.slice(HASH_CHARS * i, HASH_CHARS * (i + 1));
}

/** endpointChainHashes of names already made. */
export function joinChainHashes(names: readonly string[]): string {
  let hashes = '';
  for (const name of names) hashes += name.slice(SEP_PREFIX.length);
  return flat(hashes);
}
