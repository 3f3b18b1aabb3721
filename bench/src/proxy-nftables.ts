// Bench suite "proxy-nftables": kube-proxy's nftables mode (v1.33) on the shapes of kube-proxy's
// own proxier benchmark (proxy-shapes.ts): a fresh proxier's first sync (generateNftablesRules:
// its nft -f text as bytes, in a buffer of its own as a fresh proxier has; the transaction value
// and the decoded text are built only when read, and are not), and partial syncs (syncNftables
// from the state a full sync left) with one Service changed (its port toggled 80 ↔ 81) or one
// EndpointSlice changed (an endpoint added or removed), the new lists made as an informer's
// are (the same objects but the changed one). The lines and bytes written are counted after the
// timed runs. No targets here: upstream's figures are measured apart (docs/performance.md).
import { generateNftablesRules, INITIAL_NFTABLES_SYNC_STATE, nftablesProxierConfig, syncNftables, type NftablesSyncState } from '@kubesvc/proxy-nftables';
import type { BenchSuite, BenchTask } from './harness.js';
import { cluster, EMPTY, label, service, SHAPES, slice, type Cluster, type Shape } from './proxy-shapes.js';

const CHECKED_CONFIG = nftablesProxierConfig({
  nodeName: 'test-hostname',
  nodeIPs: ['192.168.0.2'],
  masqueradeMark: '0x4000',
  localDetector: { kind: 'cidr', cidr: '10.0.0.0/8' },
  serviceCIDRs: ['172.30.0.0/16'],
});
if (!CHECKED_CONFIG.ok) throw new Error(CHECKED_CONFIG.error.message);
const CONFIG = CHECKED_CONFIG.value;

/** Lines and bytes of the text a task wrote last (one operation per line). */
interface Written {
  lines: number;
  bytes: number;
  operations: number;
}

const NEWLINE = 0x0a;
const encoder = new TextEncoder();

function counted(bytes: Uint8Array | undefined): Written {
  if (bytes === undefined) return { lines: 0, bytes: 0, operations: 0 };
  let lines = 0;
  for (let i = bytes.indexOf(NEWLINE); i >= 0; i = bytes.indexOf(NEWLINE, i + 1)) lines++;
  return { lines, bytes: bytes.length, operations: lines };
}

function firstSyncTask(shape: Shape): BenchTask {
  let input = EMPTY;
  let last: Uint8Array | undefined;
  return {
    name: `nftables first sync ${label(shape)}`,
    setup: () => {
      input = cluster(shape);
    },
    fn: () => {
      const rules = generateNftablesRules(input.services, input.slices, CONFIG);
      last = rules.bytes;
      return rules;
    },
    metrics: () => {
      const figures = { ...counted(last) };
      // Read once, after the timed runs: the inputs and text go, so that later tasks' garbage
      // collections do not walk them.
      input = EMPTY;
      last = undefined;
      return figures;
    },
  };
}

function partialTask(shape: Shape, kind: 'service' | 'slice'): BenchTask {
  const half = Math.floor(shape.services / 2);
  let input = EMPTY;
  let state: NftablesSyncState = INITIAL_NFTABLES_SYNC_STATE;
  let toggled = false;
  let now = 0;
  let full = 0;
  let last: string | undefined;
  const change = (): Cluster => {
    toggled = !toggled;
    if (kind === 'service') {
      const services = input.services.slice();
      services[half] = service(half, toggled ? 81 : 80);
      return { services, slices: input.slices };
    }
    const slices = input.slices.slice();
    slices[half] = slice(half, shape.endpoints, toggled);
    return { services: input.services, slices };
  };
  return {
    name: `nftables partial sync ${label(shape)}, 1 ${kind === 'service' ? 'Service' : 'EndpointSlice'}`,
    setup: () => {
      input = cluster(shape);
      const first = syncNftables(INITIAL_NFTABLES_SYNC_STATE, input.services, input.slices, CONFIG, { now });
      if (!first.ok) throw new Error(first.error.message);
      state = first.value.state;
    },
    fn: () => {
      const next = change();
      // 10 ms apart: a stale endpoint chain is deleted by the sync after next (grace 1 s, every 100 syncs).
      now += 10;
      const result = syncNftables(state, next.services, next.slices, CONFIG, { now });
      if (!result.ok) throw new Error(result.error.message);
      state = result.value.state;
      if (result.value.full) full++;
      last = result.value.text;
      return result;
    },
    metrics: () => {
      const figures = { ...counted(last === undefined ? undefined : encoder.encode(last)), fullSyncs: full };
      // Read once, after the timed runs: the state (a whole table and its index) goes, so that
      // later tasks' garbage collections do not walk it.
      input = EMPTY;
      state = INITIAL_NFTABLES_SYNC_STATE;
      return figures;
    },
  };
}

export function proxyNftablesSuite(): BenchSuite {
  return {
    name: 'proxy-nftables',
    description: "kube-proxy nftables (v1.33) sync on the shapes of kube-proxy's own benchmark: first sync, partial syncs",
    tasks: SHAPES.flatMap((shape) => [firstSyncTask(shape), partialTask(shape, 'service'), partialTask(shape, 'slice')]),
  };
}
