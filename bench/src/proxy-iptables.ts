// Bench suite "proxy-iptables": kube-proxy's iptables sync on the shapes of kube-proxy's own
// benchmark, against kube-proxy v1.26.0 timed side by side on the same machine kind (both in
// docs/performance.md, "Reference: kube-proxy v1.26.0" and "Side by side with kube-proxy"). Per shape N×M (1000×10, 5000×10, 10000×10, 1000×100):
// - first sync, feed included: `sync(undefined, …)` from the Service and EndpointSlice objects,
//   which it converts into service ports and endpoints (kube-proxy's feed, OnServiceAdd and
//   OnEndpointSliceAdd, does that before its InitialSync's syncProxyRules);
// - the feed alone: the same objects converted with @kubesvc/proxy's servicePortInfos and
//   endpointsMap, so that the first sync without its feed can be told (the difference);
// - full resync, cached: `sync(state, …, { full: true })` with nothing changed (FullSync's
//   situation), which writes every line again from the text the state keeps per Service;
// - full resync, re-rendered: the same objects synced under a config that differs only in a
//   setting that changes no line (largeClusterThreshold 1000 ↔ 999, large-cluster mode either
//   way), so nothing cached is reusable and every Service is rendered again, as FullSync does;
// - partial sync after changing one Service: service N/2's port toggles 80 ↔ 81 (PartialSyncSvc);
// - partial sync after changing one EndpointSlice: endpoint 10.255.255.1 is added to or removed
//   from slice N/2 (PartialSyncEps). As upstream, making the changed object is timed too.
// Targets, as ratios to kube-proxy v1.26.0 measured side by side on the same machine (see
// docs/performance.md, "Side by side with kube-proxy"): first sync ≤ 0.4× InitialSync, full
// resync ≤ 0.5× FullSync, partial syncs ≤ 0.1× PartialSyncSvc, the text-only `generateRules`
// ≤ 0.8× FullSync. A missed target is printed as MISSED (`--strict` makes it an error).
// The sync state keeps each service's rendered text, so a cached full resync writes every line
// again but renders none of them (kube-proxy re-renders everything): its cost is writing the
// text's bytes into the task's buffer, which every timed sync but the first includes
// (`handOffSync`; a first sync takes no buffer and hands off views of its state's bytes, as the
// node agent's first sync does); the re-rendered resync renders everything, as kube-proxy's FullSync does. `generateRules` per shape (a full sync
// without any state, text only: the path of `kubesvc rules`) renders everything, as
// kube-proxy's FullSync does, into the task's reused buffer, and is held to 0.8× FullSync; the same with its typed Ruleset
// (built on first access) is shown without a target.
//
// The shape, as §1.3 and upstream's NewFakeProxier: namespace `ns`, services `svc<i>`
// (ClusterIP 172.30.0.0 + (i+1), port p80 TCP 80 → 8080), one slice `svc<i>-0` with M ready
// endpoints 10.128.0.0 + (i·M + j + 1) on node-<j mod 50>, never the local node; hostname
// test-hostname, node IP 192.168.0.2, mark 0x4000, local detector 10.0.0.0/8, nodePortAddresses
// empty. This package follows kube-proxy v1.31, which has `localhostNodePorts`; v1.26 had no
// such setting and wrote neither the KUBE-FIREWALL "block incoming localnet connections" chain
// and rule (2 lines) that v1.31 writes with localhostNodePorts on, so the bench turns it off.
// The full text then has exactly kube-proxy's 21 + N·(3 + 4M) lines (`linesDiff` = 0) and 17
// bytes more: v1.31 writes `! -d 127.0.0.0/8` on the final KUBE-NODEPORTS jump when localhost
// node ports are off (`bytesDiff` = 17 for full syncs; partial texts carry the same rule).
//
// Metrics: lines and bytes of the restore text, the kube-proxy figures of §1.5 where there is
// one (kpLines, kpBytes), and heap figures from one extra run after the timed ones, bracketed by
// full GCs: heapPeakMiB is heapUsed right after the sync minus heapUsed after a full GC just
// before it (inputs and the previous state alive). That is a lower bound of the true peak: a
// scavenge during the sync frees short-lived garbage uncounted; node has no allocation counter.
// heapRetainedMiB is what is still alive after a full GC, with the sync's result (text and new
// state) held: the state's own size plus the text, minus whatever the old state no longer needed.
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { endpointChainName, generateRules, RestoreBuffer, sync, type ProxierConfig, type SyncState } from '@kubesvc/proxy-iptables';
import { endpointsMap, servicePortInfos } from '@kubesvc/proxy';
import { fullGC } from './full-gc.js';
import { CONFIG, firstSync, handOffSync } from './proxy-iptables-config.js';
import { cluster, EMPTY, ENDPOINT_BASE, ipv4, label, service, SHAPES, slice, type Cluster, type Shape } from './proxy-shapes.js';
import type { BenchSuite, BenchTarget, BenchTask } from './harness.js';

/**
 * What writing generateRules' text to iptables-restore needs first: one contiguous string (a
 * concatenation is copied into one flat string the first time it is read; kube-proxy's figures
 * include building its contiguous buffer). ToNumber flattens a string before parsing it (and
 * stops at the first character, `*`).
 */
function handOff(text: string): void {
  if (!Number.isNaN(Number(text))) throw new Error('a restore text is not a number');
}

/**
 * kube-proxy v1.26.0 timed side by side with this suite (interleaved rounds on one machine,
 * medians; docs/performance.md, "Side by side with kube-proxy"), in ms, and its output size
 * (docs/performance.md, "Reference: kube-proxy v1.26.0"). The side-by-side run timed PartialSyncSvc; kube-proxy's
 * PartialSyncEps took within 10 % of it in every earlier run, so both partial targets use it.
 */
interface Anchor {
  readonly first: number;
  readonly full: number;
  readonly partialSvc: number;
  readonly partialEps: number;
  readonly fullBytes: number;
  readonly fullLines: number;
  readonly partialBytes: number;
  readonly partialLines: number;
}

const ANCHORS: ReadonlyMap<string, Anchor> = new Map([
  ['1000x10', { first: 33.8, full: 9.36, partialSvc: 1.48, partialEps: 1.48, fullBytes: 3_234_113, fullLines: 43_021, partialBytes: 138_522, partialLines: 1_063 }],
  ['5000x10', { first: 182, full: 57.4, partialSvc: 15.8, partialEps: 15.8, fullBytes: 16_249_829, fullLines: 215_021, partialBytes: 683_204, partialLines: 5_063 }],
  ['10000x10', { first: 389, full: 137, partialSvc: 44.1, partialEps: 44.1, fullBytes: 32_506_337, fullLines: 430_021, partialBytes: 1_366_088, partialLines: 10_063 }],
  ['1000x100', { first: 255, full: 80.0, partialSvc: 12.0, partialEps: 12.0, fullBytes: 30_069_209, fullLines: 403_021, partialBytes: 165_504, partialLines: 1_423 }],
]);


/** CONFIG with another largeClusterThreshold: the same text (large-cluster mode either way), nothing of a state under CONFIG reusable. */
const CONFIG_RERENDER: ProxierConfig = { ...CONFIG, largeClusterThreshold: CONFIG.largeClusterThreshold - 1 };


const MiB = 2 ** 20;

/** heapPeakMiB and heapRetainedMiB of one run of `run` (see the file comment). */
function heapOf(run: () => unknown): { heapPeakMiB: number; heapRetainedMiB: number } {
  fullGC();
  const before = process.memoryUsage().heapUsed;
  const kept = run();
  const peak = process.memoryUsage().heapUsed;
  fullGC();
  const retained = process.memoryUsage().heapUsed;
  if (kept === undefined) throw new Error('nothing kept');
  return { heapPeakMiB: (peak - before) / MiB, heapRetainedMiB: (retained - before) / MiB };
}

function target(medianMs: number, ratio: number, benchmark: string, label: string): BenchTarget {
  return {
    medianMs: Math.round(medianMs * ratio * 1000) / 1000,
    source: `${ratio}x kube-proxy v1.26.0 ${benchmark} ${label} (${medianMs} ms), side by side, docs/performance.md`,
  };
}


function anchorOf(shape: Shape): Anchor {
  const anchor = ANCHORS.get(label(shape));
  if (anchor === undefined) throw new Error(`no kube-proxy anchor for ${label(shape)}`);
  return anchor;
}

/** kube-proxy's full-sync line count for the shape (docs/performance.md, "Reference: kube-proxy v1.26.0"). */
function kubeProxyFullLines(shape: Shape): number {
  return 21 + shape.services * (3 + 4 * shape.endpoints);
}

interface Written {
  lines: number;
  bytes: number;
}

function fullMetrics(shape: Shape, anchor: Anchor, written: Written): Record<string, number> {
  return {
    lines: written.lines,
    bytes: written.bytes,
    linesDiff: written.lines - kubeProxyFullLines(shape),
    bytesDiff: written.bytes - anchor.fullBytes,
  };
}

function firstSyncTask(shape: Shape): BenchTask {
  const anchor = anchorOf(shape);
  let input = EMPTY;
  const written: Written = { lines: 0, bytes: 0 };
  const run = () => {
    const result = firstSync(input);
    written.lines = result.stats.lines;
    written.bytes = result.stats.bytes;
    return result;
  };
  return {
    name: `first sync, feed included (objects converted in the sync) ${label(shape)}`,
    setup: () => {
      input = cluster(shape);
    },
    fn: run,
    target: target(anchor.first, 0.4, 'InitialSync', label(shape)),
    metrics: () => {
      const heap = heapOf(run);
      const metrics = { ...fullMetrics(shape, anchor, written), ...heap };
      input = EMPTY;
      return metrics;
    },
  };
}

/**
 * A full resync with nothing changed: `cached`, the state's text per Service written again (no
 * Service rendered); otherwise under the other config each time (CONFIG_RERENDER), every
 * Service rendered again.
 */
function fullResyncTask(shape: Shape, cached: boolean): BenchTask {
  const anchor = anchorOf(shape);
  let input = EMPTY;
  let state: SyncState | undefined;
  let flip = false;
  let buffer = new RestoreBuffer();
  const written: Written = { lines: 0, bytes: 0 };
  const run = () => {
    flip = !flip;
    const config = cached || !flip ? CONFIG : CONFIG_RERENDER;
    const result = sync(state, input.services, input.slices, config, { full: true, buffer });
    handOffSync(result);
    if (!result.stats.full) throw new Error('a full resync was partial');
    state = result.state;
    written.lines = result.stats.lines;
    written.bytes = result.stats.bytes;
    return result;
  };
  return {
    name: cached ? `full resync, cached (nothing changed: the state's text per Service written again) ${label(shape)}` : `full resync, re-rendered (config changed in a setting no line shows: nothing cached reusable) ${label(shape)}`,
    setup: () => {
      input = cluster(shape);
      buffer = new RestoreBuffer();
      state = sync(undefined, input.services, input.slices, CONFIG, { buffer }).state;
      flip = false;
    },
    fn: run,
    target: target(anchor.full, 0.5, 'FullSync', label(shape)),
    metrics: () => {
      const heap = heapOf(run);
      const metrics = { ...fullMetrics(shape, anchor, written), kpLines: anchor.fullLines, kpBytes: anchor.fullBytes, ...heap };
      input = EMPTY;
      state = undefined;
      return metrics;
    },
  };
}

/**
 * kube-proxy's feed alone: every Service and EndpointSlice converted into service ports and
 * endpoints (@kubesvc/proxy, what a first sync does before it renders), the chain names not
 * hashed. A first sync without its feed is the first sync's figure minus this one.
 */
function feedTask(shape: Shape): BenchTask {
  let input = EMPTY;
  const run = () => {
    let ports = 0;
    let endpoints = 0;
    for (const svc of input.services) ports += servicePortInfos(svc, 4).length;
    for (const eps of endpointsMap(input.slices, 4, CONFIG.nodeName).values()) endpoints += eps.length;
    if (ports !== shape.services || endpoints !== shape.services * shape.endpoints) throw new Error(`fed ${ports} ports, ${endpoints} endpoints`);
    return endpoints;
  };
  return {
    name: `feed alone (objects converted to service ports and endpoints) ${label(shape)}`,
    setup: () => {
      input = cluster(shape);
    },
    fn: run,
    metrics: () => {
      input = EMPTY;
      return {};
    },
  };
}

/**
 * generateRules: every rule rendered from the objects, no state kept. Its text's bytes are
 * written into the task's buffer, kept between calls as a sync task's (and as kube-proxy's
 * FullSync reuses its bytes.Buffer), and handed off as bytes: no string of the text is made.
 */
function generateTask(shape: Shape): BenchTask {
  const anchor = anchorOf(shape);
  let input = EMPTY;
  let buffer = new RestoreBuffer();
  let bytes: Uint8Array = new Uint8Array(0);
  const run = () => {
    const result = generateRules(input.services, input.slices, CONFIG, { buffer });
    if (result.restoreBytes[0] !== 0x2a) throw new Error('not a restore text');
    bytes = result.restoreBytes;
    return result;
  };
  return {
    name: `generateRules (render all, no state) ${label(shape)}`,
    setup: () => {
      input = cluster(shape);
      buffer = new RestoreBuffer();
    },
    fn: run,
    target: target(anchor.full, 0.8, 'FullSync', label(shape)),
    metrics: () => {
      const heap = heapOf(run);
      // Counted after the heap figures, so that counting allocates nothing they see.
      let lines = 0;
      for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) lines++;
      const written: Written = { lines, bytes: bytes.length };
      const metrics = { ...fullMetrics(shape, anchor, written), ...heap };
      input = EMPTY;
      bytes = new Uint8Array(0);
      return metrics;
    },
  };
}

/**
 * generateRules with its typed Ruleset: the text, then `.ruleset`, which the result builds on
 * first access (the tracer's and `kubesvc trace`'s path). Named apart from the text-only task.
 */
function generateWithRulesetTask(shape: Shape): BenchTask {
  let input = EMPTY;
  const run = () => {
    const result = generateRules(input.services, input.slices, CONFIG);
    handOff(result.restoreText);
    if (result.ruleset.tables[1].rules.length === 0) throw new Error('no nat rules');
    return result;
  };
  return {
    name: `typed Ruleset: generateRules(...).ruleset as well as the text ${label(shape)}`,
    setup: () => {
      input = cluster(shape);
    },
    fn: run,
    metrics: () => {
      const heap = heapOf(run);
      input = EMPTY;
      return heap;
    },
  };
}

/** A partial sync after `change` made the next cluster from the current one; both are timed. */
function partialTask(shape: Shape, kind: 'service' | 'slice'): BenchTask {
  const anchor = anchorOf(shape);
  const half = Math.floor(shape.services / 2);
  let input = EMPTY;
  let state: SyncState | undefined;
  let toggled = false;
  const written: Written = { lines: 0, bytes: 0 };
  let full = 0;
  let buffer = new RestoreBuffer();
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
  const run = () => {
    input = change();
    const result = sync(state, input.services, input.slices, CONFIG, { buffer });
    handOffSync(result);
    state = result.state;
    written.lines = result.stats.lines;
    written.bytes = result.stats.bytes;
    if (result.stats.full) full++;
    return result;
  };
  const benchmark = kind === 'service' ? 'PartialSyncSvc' : 'PartialSyncEps';
  return {
    name: `partial sync, 1 ${kind === 'service' ? 'Service' : 'EndpointSlice'} changed ${label(shape)}`,
    setup: () => {
      input = cluster(shape);
      buffer = new RestoreBuffer();
      state = sync(undefined, input.services, input.slices, CONFIG, { buffer }).state;
      toggled = false;
      full = 0;
    },
    fn: run,
    target: target(kind === 'service' ? anchor.partialSvc : anchor.partialEps, 0.1, benchmark, label(shape)),
    metrics: () => {
      const heap = heapOf(run);
      const metrics = {
        lines: written.lines,
        bytes: written.bytes,
        ...(kind === 'service' ? { kpLines: anchor.partialLines, kpBytes: anchor.partialBytes } : {}),
        // Syncs that turned out full (a periodic full sync would distort the median).
        fullSyncs: full,
        ...heap,
      };
      input = EMPTY;
      state = undefined;
      return metrics;
    },
  };
}

const NAME_SHAPE: Shape = { services: 10000, endpoints: 10 };

/** The 110,000 (service port name, endpoint) pairs of a first sync at 10000×10; the endpoint is '' for the KUBE-SVC- hash. */
function chainNameInputs(): { spns: string[]; endpoints: string[] } {
  const spns = Array.from({ length: NAME_SHAPE.services }, (_, i) => `ns/svc${i}:p80`);
  const endpoints = Array.from({ length: NAME_SHAPE.services * NAME_SHAPE.endpoints }, (_, k) => `${ipv4(ENDPOINT_BASE + k + 1)}:8080`);
  return { spns, endpoints };
}

type NameFn = (spn: string, protocol: string, endpoint: string) => string;

function hashAllNames(name: NameFn, spns: readonly string[], endpoints: readonly string[]): number {
  let length = 0;
  for (let i = 0; i < spns.length; i++) {
    const spn = spns[i] ?? '';
    length += name(spn, 'tcp', '').length;
    for (let j = 0; j < NAME_SHAPE.endpoints; j++) length += name(spn, 'tcp', endpoints[i * NAME_SHAPE.endpoints + j] ?? '').length;
  }
  return length;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const utf8Encoder = new TextEncoder();
const nobleInput = new Uint8Array(1024);

/**
 * The same KUBE-SEP- name with @noble/hashes' SHA-256, used as well as that library allows: the
 * text encoded into one reused buffer, one digest, the first 80 bits as 16 base32 characters.
 */
function nobleEndpointChainName(spn: string, protocol: string, endpoint: string): string {
  const { written } = utf8Encoder.encodeInto(spn + protocol + endpoint, nobleInput);
  const digest = nobleSha256(nobleInput.subarray(0, written));
  let name = 'KUBE-SEP-';
  let buffer = 0;
  let bits = 0;
  for (let i = 0; i < 10; i++) {
    buffer = ((buffer << 8) | (digest[i] ?? 0)) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      name += BASE32[(buffer >>> (bits - 5)) & 31] ?? '';
      bits -= 5;
    }
  }
  name.charCodeAt(0); // one flat string, as the package's names are
  return name;
}

/**
 * The chain names of a first sync at 10000×10: one per service and per endpoint (SHA-256 +
 * base32), with the package's own SHA-256 or with @noble/hashes'. The two tasks hash the same
 * 110,000 texts; setup checks that they give the same names.
 */
function chainNamesTask(hash: 'ours' | 'noble'): BenchTask {
  let inputs = { spns: [] as string[], endpoints: [] as string[] };
  const name: NameFn = hash === 'ours' ? endpointChainName : nobleEndpointChainName;
  return {
    name: hash === 'ours' ? 'endpointChainName x110000 (10000x10 names)' : 'endpointChainName x110000 (10000x10 names), @noble/hashes sha256',
    setup: () => {
      inputs = chainNameInputs();
      for (let i = 0; i < inputs.endpoints.length; i += 997) {
        const spn = inputs.spns[Math.floor(i / NAME_SHAPE.endpoints)] ?? '';
        const endpoint = inputs.endpoints[i] ?? '';
        if (nobleEndpointChainName(spn, 'tcp', endpoint) !== endpointChainName(spn, 'tcp', endpoint)) throw new Error(`names differ for ${spn} ${endpoint}`);
      }
    },
    fn: () => hashAllNames(name, inputs.spns, inputs.endpoints),
    metrics: () => ({ names: NAME_SHAPE.services * (NAME_SHAPE.endpoints + 1) }),
  };
}

export function proxyIptablesSuite(): BenchSuite {
  return {
    name: 'proxy-iptables',
    description:
      'kube-proxy iptables sync on the shapes of kube-proxy\'s own benchmark: first sync, full resync, partial syncs; targets vs kube-proxy v1.26.0',
    tasks: [
      ...SHAPES.flatMap((shape) => [
        firstSyncTask(shape),
        feedTask(shape),
        fullResyncTask(shape, true),
        fullResyncTask(shape, false),
        generateTask(shape),
        generateWithRulesetTask(shape),
        partialTask(shape, 'service'),
        partialTask(shape, 'slice'),
      ]),
      chainNamesTask('ours'),
      chainNamesTask('noble'),
    ],
  };
}
