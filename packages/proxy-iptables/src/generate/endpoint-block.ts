// A large cluster's per-endpoint lines of one service port, printed by the config's kernel
// (rule-kernel.ts; the WebAssembly one is tools/wasm-kernel/src/kernel-emitter.ts's): the
// load-balancing rules of the KUBE-SVC-/KUBE-SVL- chains, and each endpoint's KUBE-SEP- chain declaration and two rules. These lines are most of a large sync's
// text; printed as strings they were two million concatenations at 10000×10. The kernel writes
// them as bytes from the endpoints' `ip:port` and chain names, and they come back as two strings
// per service port, exactly what the string printers give (the property tests compare them).

import { endpointChain } from '../endpoint-chains.js';
import { type EndpointInfo, hostPortLength } from '@kubesvc/proxy';
import { ruleHead } from './print-restore.js';
import type { EndpointBlock } from './rule-builder.js';
import type { RuleKernel } from '../rule-kernel.js';

/**
 * Prints `block` with the config's kernel: its nat rules (the load-balancing rules, then every endpoint
 * chain's two rules) and its chain declarations, into the kernel's output (a text session's
 * regions, or the batch's output that takeRules and takeDeclarations give). Returns the number
 * of rules, or -1 (nothing printed) when the config has no kernel or it cannot take the block.
 * `names` gives known chain names (a sync keeps them); without it the kernel hashes them, and
 * they are never made into strings. `placed` is where an open arena holds the endpoints'
 * records, written and named already (rule-kernel.ts, openArena): then nothing is written again.
 */
export function printEndpointBlock(block: EndpointBlock, names?: (ep: EndpointInfo) => string, placed?: number): number {
  const { endpoints, svc, ctx } = block;
  const n = endpoints.length;
  const kernel = ctx.config.kernel;
  if (n === 0 || kernel === undefined) return -1;
  kernel.beginRecords(n);
  const natMark = kernel.outputMark();
  const declMark = kernel.declarationMark();
  if (placed !== undefined) {
    kernel.usePlacedRecords(placed);
  } else {
    for (let i = 0; i < n; i++) {
      const ep = endpoints[i] as EndpointInfo;
      if (!kernel.putEndpoint(i, ep.ip, ep.ipv4, ep.port, ep.portSuffix, ep.bracketed)) return -1;
    }
    kernel.expandRecords(n);
    if (names !== undefined) {
      for (let i = 0; i < n; i++) kernel.putRecordName(i, names(endpoints[i] as EndpointInfo));
    } else {
      const head = svc.nameString + svc.protocol;
      const hashed = kernel.hashRecords(head, n);
      for (let i = 0; i < n; i++) {
        const ep = endpoints[i] as EndpointInfo;
        if (!hashed || !kernel.hashedInKernel(head.length, hostPortLength(ep))) kernel.putRecordName(i, endpointChain(svc, ep));
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
      (indexed && !putIndexes(kernel, list, endpoints)) ||
      !kernel.printLoadBalancing(ruleHead(chain), list.length, indexed, ctx.statisticJump, ctx.config.probabilityFormat)
    ) {
      kernel.resetOutput(natMark, declMark);
      return -1;
    }
    ruleLines += list.length;
  }
  if (!kernel.printEndpointChains(block.template.beforeIP, block.template.beforeHostPort, n)) {
    kernel.resetOutput(natMark, declMark);
    return -1;
  }
  return ruleLines;
}

/** The record index of each endpoint of `list`, a subsequence of `endpoints` (both are sorted by `ip:port`). */
function putIndexes(kernel: RuleKernel, list: readonly EndpointInfo[], endpoints: readonly EndpointInfo[]): boolean {
  let j = 0;
  for (let k = 0; k < list.length; k++) {
    const ep = list[k];
    while (j < endpoints.length && endpoints[j] !== ep) j++;
    if (j === endpoints.length) return false;
    kernel.putIndex(k, j);
  }
  return true;
}
