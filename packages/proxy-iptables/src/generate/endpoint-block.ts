// A large cluster's per-endpoint lines of one service port, printed by the WebAssembly kernel
// (wasm/kernel-emitter.ts): the load-balancing rules of the KUBE-SVC-/KUBE-SVL- chains, and each
// endpoint's KUBE-SEP- chain declaration and two rules. These lines are most of a large sync's
// text; printed as strings they were two million concatenations at 10000×10. The kernel writes
// them as bytes from the endpoints' `ip:port` and chain names, and they come back as two strings
// per service port, exactly what the string printers give (the property tests compare them).

import { endpointChain, hostPortLength, type EndpointInfo } from '../endpoints.js';
import type { EndpointBlock } from './rule-builder.js';
import {
  beginRecords,
  declarationMark,
  expandRecords,
  hashedInKernel,
  hashRecords,
  kernelReady,
  printEndpointChains,
  printLoadBalancing,
  putIndex,
  putEndpoint,
  outputMark,
  putRecordName,
  resetOutput,
  usePlacedRecords,
} from '../wasm/kernel.js';

/**
 * Prints `block` with the kernel: its nat rules (the load-balancing rules, then every endpoint
 * chain's two rules) and its chain declarations, into the kernel's output (a text session's
 * regions, or the batch's output that takeRules and takeDeclarations give). Returns the number
 * of rules, or -1 (nothing printed) when the kernel is not there or cannot take the block.
 * `names` gives known chain names (a sync keeps them); without it the kernel hashes them, and
 * they are never made into strings. `placed` is where an open arena holds the endpoints'
 * records, written and named already (wasm/kernel.ts, openArena): then nothing is written again.
 */
export function printEndpointBlock(block: EndpointBlock, names?: (ep: EndpointInfo) => string, placed?: number): number {
  const { endpoints, svc, ctx } = block;
  const n = endpoints.length;
  if (n === 0 || !kernelReady()) return -1;
  beginRecords(n);
  const natMark = outputMark();
  const declMark = declarationMark();
  if (placed !== undefined) {
    usePlacedRecords(placed);
  } else {
    for (let i = 0; i < n; i++) {
      const ep = endpoints[i] as EndpointInfo;
      if (!putEndpoint(i, ep.ip, ep.ipv4, ep.port, ep.portSuffix, ep.bracketed)) return -1;
    }
    expandRecords(n);
    if (names !== undefined) {
      for (let i = 0; i < n; i++) putRecordName(i, names(endpoints[i] as EndpointInfo));
    } else {
      const head = svc.nameString + svc.protocol;
      const hashed = hashRecords(head, n);
      for (let i = 0; i < n; i++) {
        const ep = endpoints[i] as EndpointInfo;
        if (!hashed || !hashedInKernel(head.length, hostPortLength(ep))) putRecordName(i, endpointChain(svc, ep));
      }
    }
  }
  let ruleLines = 2 * n;
  for (const [chain, list] of [
    [block.clusterChain, block.clusterEndpoints],
    [block.localChain, block.localEndpoints],
  ] as const) {
    if (chain === undefined || list.length === 0) continue;
    const indexed = list !== endpoints;
    if (
      (indexed && !putIndexes(list, endpoints)) ||
      !printLoadBalancing('-A ' + chain, list.length, indexed, ctx.statisticJump, ctx.config.probabilityFormat)
    ) {
      resetOutput(natMark, declMark);
      return -1;
    }
    ruleLines += list.length;
  }
  if (!printEndpointChains(block.template.beforeIP, block.template.beforeHostPort, n)) {
    resetOutput(natMark, declMark);
    return -1;
  }
  return ruleLines;
}

/** The record index of each endpoint of `list`, a subsequence of `endpoints` (both are sorted by `ip:port`). */
function putIndexes(list: readonly EndpointInfo[], endpoints: readonly EndpointInfo[]): boolean {
  let j = 0;
  for (let k = 0; k < list.length; k++) {
    const ep = list[k];
    while (j < endpoints.length && endpoints[j] !== ep) j++;
    if (j === endpoints.length) return false;
    putIndex(k, j);
  }
  return true;
}
