// kube-proxy's sync loop as a pure function over a persistent state: each call is one
// syncProxyRules, full or partial, as upstream does with MinimizeIPTablesRestore on.
// upstream: pkg/proxy/iptables/proxier.go (syncProxyRules: tryPartialSync, the
// skippedNatChains/skippedNatRules buffers, activeNATChains and the stale-chain `-X` cleanup),
// pkg/proxy/servicechangetracker.go and pkg/proxy/endpointschangetracker.go (a change whose
// result equals the previous state is dropped, so only content changes count).
//
// The state keeps, per Service (namespace/name, upstream's unit of change), the objects last
// seen, the derived service ports and endpoints, the memoised chain names and the rendered
// text. A sync first finds what changed — by object identity where the caller passes the same
// objects again (the cheap path: one pointer comparison per object), by content otherwise — then
// renders only the changed services and concatenates cached text for the rest.

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { LABEL_SERVICE_NAME, familyName } from '@kubesvc/api-types';
import { ServiceChainBatch, type ServiceChainNames } from '../chain-names.js';
import {
  compareStrings,
  endpointChain,
  endpointChainHashes,
  endpointsMap,
  joinChainHashes,
  sameHostPort,
  sepNameAt,
  servicePortKey,
  type EndpointInfo,
} from '../endpoints.js';
import { compareServices, generateRules, objectKey, RulesetSink, type RuleStats } from '../generate-rules.js';
import { chainLine, deleteChainLine, flat, printRestoreText, ruleHead, ruleLine, ruleLineAfter } from '../print-restore.js';
import type { ProxierConfig } from '../proxier-config.js';
import {
  fixedFilterChains,
  fixedNatChains,
  ruleContext,
  writeHeadRules,
  writeServicePortRules,
  writeTailRules,
  type EndpointBlock,
  type RuleContext,
  type RuleSink,
  type StatisticCache,
} from '../rule-builder.js';
import type { L4Protocol, Match, Ruleset, Target } from '../ruleset.js';
import { servicePortInfos, type ServicePortInfo } from '../service-ports.js';
import { printEndpointBlock } from '../endpoint-block.js';
import { TextBytes, writeChainLine, writeRuleLine } from '../text-bytes.js';
import {
  abortText,
  beginText,
  declOffset,
  declStream,
  finishText,
  closeArena,
  kernelReady,
  natOffset,
  openArena,
  natStream,
  takeDeclarations,
  takeRules,
  type FinishedText,
} from '../wasm/kernel.js';
import { DECL_LINE } from '../wasm/kernel-layout.js';

export interface SyncOptions {
  /** Force a full sync (every chain written, stale chains deleted). */
  readonly full?: boolean;
}

/** The proxier settings, plus how often a sync is full. */
export type SyncConfig = ProxierConfig & {
  /**
   * Every Nth sync is a full one (N-1 partial syncs follow each full sync); absent: only the
   * first sync, a config change, a largeClusterMode flip or `{ full: true }` make one.
   * Upstream uses a period of time (FullSyncPeriod, 1 h) instead of a count.
   */
  readonly fullSyncEvery?: number;
};

export interface SyncStats {
  /** Whether this sync was full. */
  readonly full: boolean;
  /** Lines of restoreText. */
  readonly lines: number;
  /** UTF-8 bytes of restoreText. */
  readonly bytes: number;
  /** Chain declaration lines written, both tables (those of deleted chains included). */
  readonly chainsWritten: number;
  /** `-X` lines. */
  readonly chainsDeleted: number;
  /** Services (namespace/name) added, removed, or whose service ports or endpoints changed since the last sync. */
  readonly servicesChanged: number;
  /** What generateRules reports, for the whole state after this sync. */
  readonly rules: RuleStats;
}

/**
 * What a sync leaves for the next one. Persistent: a sync never changes the state it is given,
 * so an old state stays usable (it describes the tables as that sync left them).
 */
export interface SyncState {
  /** Syncs made so far, this one included. */
  readonly syncs: number;
  /** Partial syncs since the last full one. */
  readonly partialSinceFull: number;
  readonly largeClusterMode: boolean;
}

export interface SyncResult {
  readonly state: SyncState;
  readonly restoreText: string;
  readonly stats: SyncStats;
}

/** One service port as last synced. */
interface PortEntry {
  readonly info: ServicePortInfo;
  readonly endpoints: readonly EndpointInfo[];
  /**
   * The KUBE-SEP- name of each endpoint, so that an unchanged endpoint is never hashed again:
   * their hashes, concatenated in the endpoints' order (endpointChainHashes, sepNameAt). One
   * string, not an array of names: a large first sync makes one per service port, and its
   * scavenges copy every object the state holds.
   */
  readonly sepHashes: string;
}

/** The text one Service contributes; every text is whole lines, each ending in "\n". */
interface Rendered {
  readonly filterText: string;
  readonly filterLines: number;
  readonly filterBytes: number;
  /** Its KUBE-SERVICES / KUBE-NODEPORTS nat rules: what a partial sync writes for an unchanged service. */
  readonly topText: string;
  readonly topLines: number;
  readonly topBytes: number;
  /** All its nat rules, top-level and per-service chains, in writing order. */
  readonly fullText: string;
  readonly fullLines: number;
  readonly fullBytes: number;
  readonly declText: string;
  readonly declBytes: number;
  /**
   * How many per-service nat chains it declares: declText holds one `:CHAIN - [0:0]` line each,
   * which renderedChains reads back when a sync needs the names (no array per service).
   */
  readonly chainCount: number;
}

/** The per-service nat chains of `rendered`, in declaration order, from its declarations. */
function renderedChains(rendered: Rendered): string[] {
  const chains: string[] = [];
  const text = rendered.declText;
  let at = 0;
  while (at < text.length) {
    const space = text.indexOf(' ', at);
    const end = text.indexOf('\n', space);
    if (space < 0 || end < 0) break;
    chains.push(text.slice(at + 1, space));
    at = end + 1;
  }
  return chains;
}

interface ServiceEntry {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly service: Service;
  /** Its EndpointSlices of the proxier's family (the last listing of each name), in input order. */
  readonly slices: readonly EndpointSlice[];
  readonly ports: readonly PortEntry[];
  readonly endpointCount: number;
  readonly rendered: Rendered;
}

/** The fixed parts of the text, for one config. */
interface Frame {
  readonly filterChainsText: string;
  readonly filterChains: number;
  readonly natChainsText: string;
  readonly natChains: number;
  readonly head: Rendered;
  readonly tail: Rendered;
}

interface StateData extends SyncState {
  readonly configKey: string;
  readonly config: ProxierConfig;
  readonly statistics: StatisticCache;
  readonly frame: Frame;
  /**
   * The arrays of the last call, copied, with per element the index of its entry (-1: ignored).
   * Their keys are not kept: a later sync needs them only for the elements it finds replaced,
   * and a first sync would otherwise keep a string per object alive.
   */
  readonly servicesIn: readonly Service[];
  readonly servicePos: Int32Array;
  readonly slicesIn: readonly EndpointSlice[];
  readonly slicePos: Int32Array;
  /**
   * Set by syncChanges: the position of each key (namespace/name) in servicesIn and slicesIn,
   * which then list each key once. Shared with the next state while no change adds or removes
   * a key, so a batch of updates costs no pass over all objects.
   */
  readonly serviceIndex: ReadonlyMap<string, number> | undefined;
  readonly sliceIndex: ReadonlyMap<string, number> | undefined;
  /** In namespace, then name order. */
  readonly entries: readonly ServiceEntry[];
  readonly totalEndpoints: number;
  /** Set by a kubeProxyVersion '1.8' sync (entries is then empty): what it wrote. */
  readonly v18?: V18State;
}

/** What a kube-proxy 1.8 sync leaves: the tables it wrote and a fingerprint per Service. */
interface V18State {
  readonly ruleset: Ruleset;
  /** Its service chains (KUBE-SVC-, KUBE-SEP-, KUBE-FW-, KUBE-XLB-): those a later sync deletes when gone. */
  readonly serviceChains: readonly string[];
  /** Per Service (namespace/name): its object and its slices, as JSON. */
  readonly fingerprints: ReadonlyMap<string, string>;
}

const EMPTY_SLICES: readonly EndpointSlice[] = [];
const NO_PORTS: ReadonlyMap<string, PortEntry> = new Map();
const EMPTY_RENDERED: Rendered = {
  filterText: '',
  filterLines: 0,
  filterBytes: 0,
  topText: '',
  topLines: 0,
  topBytes: 0,
  fullText: '',
  fullLines: 0,
  fullBytes: 0,
  declText: '',
  declBytes: 0,
  chainCount: 0,
};

/** The slice's identity for the change tracker: its key, the service it feeds, its family. */
function sliceId(slice: EndpointSlice): string {
  return `${objectKey(slice.metadata.namespace, slice.metadata.name)}\u0000${slice.metadata.labels?.[LABEL_SERVICE_NAME] ?? ''}\u0000${slice.addressType}`;
}

function configKeyOf(config: ProxierConfig): string {
  return JSON.stringify([
    config.nodeName,
    config.nodeIPs,
    config.nodeIP,
    config.family,
    config.localDetector,
    config.masqueradeBit,
    config.masqueradeMark,
    config.masqueradeAll,
    config.nodePortAddresses,
    config.localhostNodePorts,
    config.largeClusterThreshold,
    config.nfacctCounters,
    config.randomFully,
    config.conntrackTCPLiberal,
    config.probabilityFormat,
    config.kubeProxyVersion,
  ]);
}

// The restore text is ASCII except for what users write into names; count bytes only then.
// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\u0000-\u007f]/;
function utf8Length(text: string): number {
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Prints what the builder writes for many services into shared texts, keeping the streams
 * apart: the filter rules, the nat rules (top-level and per-service chains, in writing order,
 * with the ranges that are top-level), the chain declarations. The texts grow by concatenation
 * (ropes) and `finish` flattens each once and gives every service slices of it: a large string
 * goes straight to V8's large-object space, where ten thousand 3 kB strings would each be
 * copied by the young-generation collector before settling.
 */
class TextSink implements RuleSink {
  private full = '';
  private decl = '';
  private readonly items: SinkItem[] = [];
  private current: SinkItem | undefined;
  private filterText = '';
  private inTop = false;
  // The `-A CHAIN` of the last nat rule, for the next one: a KUBE-SVC- chain has a rule per
  // endpoint and a KUBE-SEP- chain two, so this saves a string per line of most lines.
  private lastChain = '';
  private lastHead = '';

  begin(target: { rendered: Rendered }, ascii: boolean): void {
    this.filterText = '';
    this.current = {
      target,
      ascii,
      fullFrom: this.full.length,
      fullTo: 0,
      declFrom: this.decl.length,
      declTo: 0,
      top: [],
      topFirst: true,
      filterText: '',
      filterLines: 0,
      topLines: 0,
      fullLines: 0,
      chainCount: 0,
    };
  }

  end(): void {
    const item = this.current;
    if (item === undefined) return;
    this.closeTop();
    item.fullTo = this.full.length;
    item.declTo = this.decl.length;
    item.filterText = flat(this.filterText);
    this.items.push(item);
    this.current = undefined;
  }

  get size(): number {
    return this.full.length;
  }

  filter(chain: string, matches: readonly Match[], target?: Target): void {
    this.filterText += ruleLine(chain, matches, target);
    if (this.current !== undefined) this.current.filterLines++;
  }
  natTop(chain: string, matches: readonly Match[], target?: Target): void {
    const item = this.current;
    if (item === undefined) return;
    if (!this.inTop) {
      if (item.fullLines > item.topLines) item.topFirst = false;
      item.top.push(this.full.length);
      this.inTop = true;
    }
    this.full += ruleLine(chain, matches, target);
    item.topLines++;
    item.fullLines++;
  }
  natChain(chain: string): void {
    if (this.current !== undefined) this.current.chainCount++;
    this.decl += chainLine(chain);
  }
  nat(chain: string, matches: readonly Match[], target?: Target): void {
    const item = this.current;
    if (item === undefined) return;
    this.closeTop();
    if (chain !== this.lastChain) {
      this.lastChain = chain;
      this.lastHead = ruleHead(chain);
    }
    this.full += ruleLineAfter(this.lastHead, matches, target);
    item.fullLines++;
  }
  natPrinted(_chain: string, text: string, lines: number): void {
    const item = this.current;
    if (item === undefined) return;
    this.closeTop();
    this.full += text;
    item.fullLines += lines;
  }
  natEndpointBlock(block: EndpointBlock): boolean {
    const item = this.current;
    if (item === undefined) return false;
    // The names the state keeps, in the endpoints' order (sepChainOf looks each up once).
    const names = block.endpoints.map(block.sepChain);
    let i = 0;
    const ruleLines = printEndpointBlock(block, () => names[i++] as string);
    if (ruleLines < 0) return false;
    this.closeTop();
    this.full += takeRules();
    item.fullLines += ruleLines;
    this.decl += takeDeclarations();
    item.chainCount += names.length;
    return true;
  }
  private closeTop(): void {
    if (this.inTop) {
      this.current?.top.push(this.full.length);
      this.inTop = false;
    }
  }

  /** Flattens, and hands every service its Rendered. */
  finish(): void {
    const full = flat(this.full);
    const decl = flat(this.decl);
    for (const item of this.items) {
      const fullText = full.slice(item.fullFrom, item.fullTo);
      let topText: string;
      if (item.topLines === item.fullLines) topText = fullText;
      else if (item.topLines === 0) topText = '';
      else if (item.topFirst) topText = fullText.slice(0, (item.top[1] ?? item.fullFrom) - item.fullFrom);
      else {
        topText = '';
        for (let i = 0; i + 1 < item.top.length; i += 2) topText += full.slice(item.top[i] ?? 0, item.top[i + 1] ?? 0);
        topText = flat(topText);
      }
      const declText = decl.slice(item.declFrom, item.declTo);
      const bytes = item.ascii ? (text: string): number => text.length : utf8Length;
      const topBytes = bytes(topText);
      item.target.rendered = {
        filterText: item.filterText,
        filterLines: item.filterLines,
        filterBytes: bytes(item.filterText),
        topText,
        topLines: item.topLines,
        topBytes,
        fullText,
        fullLines: item.fullLines,
        fullBytes: fullText === topText ? topBytes : bytes(fullText),
        declText,
        declBytes: bytes(declText),
        chainCount: item.chainCount,
      };
    }
    this.full = '';
    this.decl = '';
    this.items.length = 0;
  }
}

/**
 * A first sync's printer: the whole text goes into the WebAssembly kernel's text session
 * (wasm/kernel.ts) and is decoded once, and every service's texts are slices of it; see
 * TextSink for what each service's Rendered holds. For ASCII input only (callers check).
 */
class KernelSink implements RuleSink {
  constructor(private readonly placed: ReadonlyMap<readonly EndpointInfo[], Placed> | undefined) {}
  private readonly filterOut = new TextBytes();
  private readonly items: KernelItem[] = [];
  private current: KernelItem | undefined;
  private inTop = false;

  begin(target: { rendered: Rendered }): void {
    this.current = {
      target,
      fullFrom: natOffset(),
      fullTo: 0,
      declFrom: declOffset(),
      declTo: 0,
      filterFrom: this.filterOut.length,
      filterTo: 0,
      top: [],
      topFirst: true,
      filterLines: 0,
      topLines: 0,
      fullLines: 0,
      chainCount: 0,
    };
  }

  end(): void {
    const item = this.current;
    if (item === undefined) return;
    this.closeTop();
    item.fullTo = natOffset();
    item.declTo = declOffset();
    item.filterTo = this.filterOut.length;
    this.items.push(item);
    this.current = undefined;
  }

  filter(chain: string, matches: readonly Match[], target?: Target): void {
    writeRuleLine(this.filterOut, chain, matches, target);
    if (this.current !== undefined) this.current.filterLines++;
  }
  natTop(chain: string, matches: readonly Match[], target?: Target): void {
    const item = this.current;
    if (item === undefined) return;
    if (!this.inTop) {
      if (item.fullLines > item.topLines) item.topFirst = false;
      item.top.push(natOffset());
      this.inTop = true;
    }
    writeRuleLine(natStream, chain, matches, target);
    item.topLines++;
    item.fullLines++;
  }
  natChain(chain: string): void {
    if (this.current !== undefined) this.current.chainCount++;
    writeChainLine(declStream, chain);
  }
  nat(chain: string, matches: readonly Match[], target?: Target): void {
    const item = this.current;
    if (item === undefined) return;
    this.closeTop();
    writeRuleLine(natStream, chain, matches, target);
    item.fullLines++;
  }
  natPrinted(_chain: string, text: string, lines: number): void {
    const item = this.current;
    if (item === undefined) return;
    this.closeTop();
    natStream.text(text);
    item.fullLines += lines;
  }
  natEndpointBlock(block: EndpointBlock): boolean {
    const item = this.current;
    if (item === undefined) return false;
    // Endpoints derived in this sync: printed from the records the hashing left (the arena).
    const placed = this.placed?.get(block.endpoints);
    this.closeTop();
    const ruleLines = printEndpointBlock(block, placed === undefined ? block.sepChain : undefined, placed);
    if (ruleLines < 0) return false;
    item.fullLines += ruleLines;
    item.chainCount += block.endpoints.length;
    return true;
  }
  private closeTop(): void {
    if (this.inTop) {
      this.current?.top.push(natOffset());
      this.inTop = false;
    }
  }

  /** The filter rules printed, as bytes (finishText puts them in place). */
  filterBytes(): Uint8Array | undefined {
    return this.filterOut.failed ? undefined : this.filterOut.view();
  }

  /** Hands every service its Rendered: slices of the session's text. */
  finish(finished: FinishedText): void {
    const text = finished.text;
    for (const item of this.items) {
      const at = finished.natAt;
      const fullText = text.slice(at + item.fullFrom, at + item.fullTo);
      let topText: string;
      if (item.topLines === item.fullLines) topText = fullText;
      else if (item.topLines === 0) topText = '';
      else if (item.topFirst) topText = text.slice(at + item.fullFrom, at + (item.top[1] ?? item.fullFrom));
      else {
        topText = '';
        for (let i = 0; i + 1 < item.top.length; i += 2) topText += text.slice(at + (item.top[i] ?? 0), at + (item.top[i + 1] ?? 0));
        topText = flat(topText);
      }
      const declText = text.slice(finished.declAt + item.declFrom, finished.declAt + item.declTo);
      const filterText = text.slice(finished.filterAt + item.filterFrom, finished.filterAt + item.filterTo);
      item.target.rendered = {
        filterText,
        filterLines: item.filterLines,
        filterBytes: filterText.length,
        topText,
        topLines: item.topLines,
        topBytes: topText.length,
        fullText,
        fullLines: item.fullLines,
        fullBytes: fullText.length,
        declText,
        declBytes: declText.length,
        chainCount: item.chainCount,
      };
    }
    this.items.length = 0;
  }
}

interface KernelItem {
  readonly target: { rendered: Rendered };
  readonly fullFrom: number;
  fullTo: number;
  readonly declFrom: number;
  declTo: number;
  readonly filterFrom: number;
  filterTo: number;
  /** Byte offsets in the nat region: start, end, start, end … of the runs of top-level lines. */
  readonly top: number[];
  topFirst: boolean;
  filterLines: number;
  topLines: number;
  fullLines: number;
  chainCount: number;
}

interface SinkItem {
  readonly target: { rendered: Rendered };
  readonly ascii: boolean;
  readonly fullFrom: number;
  fullTo: number;
  readonly declFrom: number;
  declTo: number;
  /** Character offsets in the shared text: start, end, start, end … of the runs of top-level lines. */
  readonly top: number[];
  topFirst: boolean;
  filterText: string;
  filterLines: number;
  topLines: number;
  fullLines: number;
  chainCount: number;
}

/**
 * A sink is flattened when its text reaches this many characters: just past V8's largest
 * regular object (128 KiB), so every batch still goes to the large-object space, while the
 * rope awaiting the flattening stays small enough to die young. With 1 MiB batches most of a
 * rope's pieces outlived a scavenge or two, and copying them was a fifth of a large first sync.
 */
const CHARS_PER_BATCH = 1 << 17;

function makeFrame(config: ProxierConfig): Frame {
  const sink = new TextSink();
  const head = { rendered: EMPTY_RENDERED };
  sink.begin(head, false);
  writeHeadRules(sink, config);
  sink.end();
  const tail = { rendered: EMPTY_RENDERED };
  sink.begin(tail, false);
  writeTailRules(sink, config);
  sink.end();
  sink.finish();
  const filterChains = fixedFilterChains(config);
  const natChains = fixedNatChains();
  return {
    filterChainsText: filterChains.map(chainLine).join(''),
    filterChains: filterChains.length,
    natChainsText: natChains.map(chainLine).join(''),
    natChains: natChains.length,
    head: head.rendered,
    tail: tail.rendered,
  };
}

/**
 * The builder asks for the names of the endpoints in their order (once for the load-balancing
 * rules, once for the chains), usually of all of them: so the next index is tried first, then
 * a search by identity (the builder passes the port's own EndpointInfo objects).
 */
function sepChainOf(port: PortEntry): (ep: EndpointInfo) => string {
  const { endpoints, sepHashes } = port;
  let next = 0;
  return (ep) => {
    const i = endpoints[next] === ep ? next : endpoints.indexOf(ep);
    next = i + 1;
    return i >= 0 ? sepNameAt(sepHashes, i) : endpointChain(port.info, ep);
  };
}

/**
 * Renders a service's rules into `sink`; sink.finish() sets `target.rendered`. Scanning 30 MB
 * for non-ASCII characters to count bytes costs more than printing it, so the scan is skipped
 * when it cannot find any: every piece of a service's text is a constant, a chain name
 * (base32), a printed number or address, a config string, or the service port name — only the
 * last two can hold other characters.
 */
function render(sink: TextSink, target: { rendered: Rendered }, ports: readonly PortEntry[], ctx: RuleContext, configAscii: boolean): void {
  let ascii = configAscii;
  for (const port of ports) if (NON_ASCII.test(port.info.nameString)) ascii = false;
  sink.begin(target, ascii);
  for (const port of ports) writeServicePortRules(sink, port.info, port.endpoints, ctx, sepChainOf(port));
  sink.end();
  if (sink.size >= CHARS_PER_BATCH) sink.finish();
}

/**
 * Renders a first sync's services in the kernel's text session and decodes the whole text once;
 * every rendered service gets slices of it. Undefined (nothing rendered) when the session
 * cannot be had: the kernel is not there, or a name or config string is not ASCII.
 */
function renderWithKernel(
  toRender: readonly { readonly entry: { rendered: Rendered }; readonly ports: readonly PortEntry[] }[],
  ctx: RuleContext,
  frame: Frame,
  configAscii: boolean,
  placed: ReadonlyMap<readonly EndpointInfo[], Placed> | undefined,
): FinishedText | undefined {
  if (!configAscii || !kernelReady()) return undefined;
  let maxEndpoints = 0;
  let chains = 0;
  for (const { ports } of toRender) {
    for (const port of ports) {
      if (NON_ASCII.test(port.info.nameString)) return undefined;
      if (port.endpoints.length > maxEndpoints) maxEndpoints = port.endpoints.length;
      // At most a service port's four chains and one per endpoint are declared.
      chains += 4 + port.endpoints.length;
    }
  }
  beginText(maxEndpoints, DECL_LINE * chains + 64);
  const sink = new KernelSink(placed);
  try {
    for (const { entry, ports } of toRender) {
      sink.begin(entry);
      for (const port of ports) writeServicePortRules(sink, port.info, port.endpoints, ctx, sepChainOf(port));
      sink.end();
    }
  } catch (error) {
    abortText();
    throw error;
  }
  const filter = sink.filterBytes();
  if (filter === undefined) {
    abortText();
    return undefined;
  }
  const finished = finishText(
    '*filter\n' + frame.filterChainsText + frame.head.filterText,
    filter,
    frame.tail.filterText + 'COMMIT\n*nat\n' + frame.natChainsText,
    frame.head.fullText,
    frame.tail.fullText + 'COMMIT\n',
  );
  if (finished !== undefined) sink.finish(finished);
  return finished;
}

function sameObjects<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** ServicePortInfo equality, as upstream's tracker compares its servicePortInfo values. */
function sameInfo(a: ServicePortInfo, b: ServicePortInfo): boolean {
  return (
    a.nameString === b.nameString &&
    a.protocol === b.protocol &&
    a.clusterIP === b.clusterIP &&
    a.port === b.port &&
    a.nodePort === b.nodePort &&
    a.healthCheckNodePort === b.healthCheckNodePort &&
    a.clientIPAffinity === b.clientIPAffinity &&
    a.stickyMaxAgeSeconds === b.stickyMaxAgeSeconds &&
    a.externalPolicyLocal === b.externalPolicyLocal &&
    a.internalPolicyLocal === b.internalPolicyLocal &&
    sameObjects(a.externalIPs, b.externalIPs) &&
    sameObjects(a.loadBalancerVIPs, b.loadBalancerVIPs) &&
    sameObjects(a.loadBalancerSourceRanges, b.loadBalancerSourceRanges)
  );
}

function sameEndpoints(a: readonly EndpointInfo[], b: readonly EndpointInfo[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined) return false;
    if (
      !sameHostPort(x, y) ||
      x.isLocal !== y.isLocal ||
      x.ready !== y.ready ||
      x.serving !== y.serving ||
      x.terminating !== y.terminating
    ) {
      return false;
    }
  }
  return true;
}

function samePorts(a: readonly PortEntry[], b: readonly PortEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined || !sameInfo(x.info, y.info) || !sameEndpoints(x.endpoints, y.endpoints)) return false;
  }
  return true;
}

/** The service ports and endpoints of a Service, reusing the chain names `previous` knows. */
function deriveService(
  service: Service,
  slices: readonly EndpointSlice[],
  config: ProxierConfig,
  previous: ServiceEntry | undefined,
  batch: ServiceChainBatch,
  placed: Map<readonly EndpointInfo[], Placed> | undefined,
): { ports: PortEntry[]; endpointCount: number } {
  // A first sync has nothing to reuse: no map per Service then.
  let oldPorts: ReadonlyMap<string, PortEntry> = NO_PORTS;
  if (previous !== undefined && previous.ports.length > 0) {
    const byName = new Map<string, PortEntry>();
    for (const port of previous.ports) byName.set(port.info.nameString + port.info.protocol, port);
    oldPorts = byName;
  }
  const chainNames =
    oldPorts.size === 0
      ? batch.defer
      : (spn: string, protocol: L4Protocol): ServiceChainNames => oldPorts.get(spn + protocol)?.info.chains ?? batch.defer(spn, protocol);
  const infos = servicePortInfos(service, config.family, chainNames);
  const epMap = slices.length === 0 ? undefined : endpointsMap(slices, config.family, config.nodeName);
  let endpointCount = 0;
  const ports = infos.map((info): PortEntry => {
    const endpoints = epMap?.get(servicePortKey(info.namespace, info.name, info.portName, info.protocol)) ?? [];
    endpointCount += endpoints.length;
    const old = oldPorts.size === 0 ? undefined : oldPorts.get(info.nameString + info.protocol);
    let sepHashes: string;
    if (old === undefined) {
      let at = -1;
      sepHashes = endpointChainHashes(info, endpoints, placed === undefined ? undefined : (where) => (at = where));
      if (placed !== undefined && at >= 0) placed.set(endpoints, at);
    } else if (sameEndpoints(old.endpoints, endpoints)) {
      sepHashes = old.sepHashes;
    } else {
      const known = new Map<string, string>();
      old.endpoints.forEach((ep, i) => known.set(ep.hostPort, sepNameAt(old.sepHashes, i)));
      const unknown = endpoints.filter((ep) => !known.has(ep.hostPort));
      const hashed = endpointChainHashes(info, unknown);
      unknown.forEach((ep, i) => known.set(ep.hostPort, sepNameAt(hashed, i)));
      sepHashes = joinChainHashes(endpoints.map((ep) => known.get(ep.hostPort) as string));
    }
    return { info, endpoints, sepHashes };
  });
  return { ports, endpointCount };
}

/** Where an open kernel arena holds a port's endpoint records, hashed and named (recordsAt). */
type Placed = number;

/** The most endpoints the slices of one Service hold: a bound on any of its service ports' endpoints. */
function mostEndpoints(candidates: Iterable<Candidate>): number {
  let most = 0;
  for (const { slices } of candidates) {
    let count = 0;
    for (const slice of slices) count += (slice.endpoints ?? EMPTY_LIST).length * Math.max(1, (slice.ports ?? EMPTY_LIST).length);
    if (count > most) most = count;
  }
  return most;
}

const EMPTY_LIST: readonly never[] = [];

/** What the sync found per Service before rendering. */
interface Candidate {
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly service: Service;
  readonly slices: readonly EndpointSlice[];
  /** The entry of the previous sync under the same key, if any. */
  readonly previous: ServiceEntry | undefined;
}

interface Matched {
  /** The previous entries that keep their positions (the cheap path), or undefined. */
  readonly base: readonly ServiceEntry[] | undefined;
  /** Position → what may have changed there: every position on the general path. */
  readonly work: ReadonlyMap<number, Candidate>;
  readonly count: number;
  readonly servicePos: Int32Array;
  readonly slicePos: Int32Array;
  /** Previous entries whose Service is gone. */
  readonly removed: readonly ServiceEntry[];
}

/**
 * The cheap path: both arrays have the lengths and, element by element, the keys of the last
 * call, so every entry keeps its position and only the elements that are other objects need a
 * look. Undefined when that does not hold.
 */
function matchByPosition(prev: StateData, services: readonly Service[], slices: readonly EndpointSlice[]): Matched | undefined {
  if (services.length !== prev.servicesIn.length || slices.length !== prev.slicesIn.length) return undefined;
  const dirtyService = new Map<number, Service>();
  const dirtySlices = new Map<number, Map<EndpointSlice, EndpointSlice>>();
  for (let i = 0; i < services.length; i++) {
    const service = services[i];
    const old = prev.servicesIn[i];
    if (service === old) continue;
    if (service === undefined || old === undefined) return undefined;
    if (objectKey(service.metadata.namespace, service.metadata.name) !== objectKey(old.metadata.namespace, old.metadata.name)) return undefined;
    const pos = prev.servicePos[i] ?? -1;
    if (pos >= 0) dirtyService.set(pos, service);
  }
  for (let i = 0; i < slices.length; i++) {
    const slice = slices[i];
    const old = prev.slicesIn[i];
    if (slice === old) continue;
    if (slice === undefined || old === undefined) return undefined;
    if (sliceId(slice) !== sliceId(old)) return undefined;
    const pos = prev.slicePos[i] ?? -1;
    if (pos < 0) continue;
    let replaced = dirtySlices.get(pos);
    if (replaced === undefined) {
      replaced = new Map();
      dirtySlices.set(pos, replaced);
    }
    replaced.set(old, slice);
  }
  const work = new Map<number, Candidate>();
  for (const pos of [...dirtyService.keys(), ...dirtySlices.keys()]) {
    const entry = prev.entries[pos];
    if (entry === undefined || work.has(pos)) continue;
    const replaced = dirtySlices.get(pos);
    work.set(pos, {
      key: entry.key,
      namespace: entry.namespace,
      name: entry.name,
      service: dirtyService.get(pos) ?? entry.service,
      slices: replaced === undefined ? entry.slices : entry.slices.map((s) => replaced.get(s) ?? s),
      previous: entry,
    });
  }
  return {
    base: prev.entries,
    work,
    count: prev.entries.length,
    servicePos: prev.servicePos,
    slicePos: prev.slicePos,
    removed: [],
  };
}

function sameSlices(previous: readonly EndpointSlice[] | undefined, current: readonly EndpointSlice[]): readonly EndpointSlice[] {
  return previous !== undefined && sameObjects(previous, current) ? previous : current;
}

/** The general path: group and sort everything, then pair with the previous entries by key. */
function matchByKey(prev: StateData | undefined, services: readonly Service[], slices: readonly EndpointSlice[], family: 4 | 6): Matched {
  const serviceKeys = services.map((s) => objectKey(s.metadata.namespace, s.metadata.name));
  const lastIndex = new Map<string, number>();
  serviceKeys.forEach((key, i) => lastIndex.set(key, i));
  const winners = [...lastIndex.values()];
  winners.sort((a, b) => {
    const x = services[a];
    const y = services[b];
    return x === undefined || y === undefined ? 0 : compareServices(x, y);
  });
  const servicePos = new Int32Array(services.length).fill(-1);
  const posOfKey = new Map<string, number>();
  winners.forEach((inputIndex, pos) => {
    servicePos[inputIndex] = pos;
    posOfKey.set(serviceKeys[inputIndex] ?? '', pos);
  });

  // Slices: of the proxier's family, the last listing of each name wins (as endpointsMap does).
  const addressType = familyName(family);
  const slicePos = new Int32Array(slices.length).fill(-1);
  const lastSlice = new Map<string, number>();
  slices.forEach((slice, i) => {
    if (slice.addressType === addressType) lastSlice.set(objectKey(slice.metadata.namespace, slice.metadata.name), i);
  });
  const slicesOf = new Map<number, EndpointSlice[]>();
  const sortedLast = [...lastSlice.values()].sort((a, b) => a - b);
  for (const i of sortedLast) {
    const slice = slices[i];
    const label = slice?.metadata.labels?.[LABEL_SERVICE_NAME];
    if (slice === undefined || label === undefined || label === '') continue;
    const pos = posOfKey.get(objectKey(slice.metadata.namespace, label));
    if (pos === undefined) continue;
    slicePos[i] = pos;
    let list = slicesOf.get(pos);
    if (list === undefined) {
      list = [];
      slicesOf.set(pos, list);
    }
    list.push(slice);
  }

  const previousByKey = new Map<string, ServiceEntry>();
  for (const entry of prev?.entries ?? []) previousByKey.set(entry.key, entry);
  const work = new Map<number, Candidate>();
  winners.forEach((inputIndex, pos) => {
    const service = services[inputIndex];
    if (service === undefined) return;
    const key = serviceKeys[inputIndex] ?? '';
    const previous = previousByKey.get(key);
    previousByKey.delete(key);
    work.set(pos, {
      key,
      namespace: service.metadata.namespace ?? 'default',
      name: service.metadata.name ?? '',
      service,
      // The previous array when it holds the same objects, so that an unchanged entry is kept as it is.
      slices: sameSlices(previous?.slices, slicesOf.get(pos) ?? EMPTY_SLICES),
      previous,
    });
  });
  return {
    base: undefined,
    work,
    count: winners.length,
    servicePos,
    slicePos,
    removed: [...previousByKey.values()],
  };
}

/**
 * One sync. `state` undefined is kube-proxy's first sync (full, nothing to delete). The
 * restore text is for `iptables-restore --noflush`.
 */
export function sync(
  state: SyncState | undefined,
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: SyncConfig | ProxierConfig,
  options: SyncOptions = {},
): SyncResult {
  return syncObjects(state, services, endpointSlices, config, options, undefined);
}

/**
 * A change as an informer's event handlers report it to kube-proxy's change trackers
 * (upstream: pkg/proxy/config/config.go, the ServiceHandler and EndpointSliceHandler
 * interfaces: OnServiceAdd/Update/Delete, OnEndpointSliceAdd/Update/Delete). An object is
 * known by its namespace and name. Upstream's update handlers also receive the old object;
 * the trackers key the change by the new one, and so does syncChanges, which keeps the old
 * one itself, so an update carries only the new object.
 */
export type ProxyChange =
  | { readonly kind: 'ServiceAdd'; readonly service: Service }
  | { readonly kind: 'ServiceUpdate'; readonly service: Service }
  | { readonly kind: 'ServiceDelete'; readonly service: Service }
  | { readonly kind: 'EndpointSliceAdd'; readonly endpointSlice: EndpointSlice }
  | { readonly kind: 'EndpointSliceUpdate'; readonly endpointSlice: EndpointSlice }
  | { readonly kind: 'EndpointSliceDelete'; readonly endpointSlice: EndpointSlice };

/**
 * One sync of what the last sync saw with `changes` applied in order: the incremental form of
 * `sync` for a node agent fed by a watch (upstream: pkg/proxy/servicechangetracker.go and
 * endpointschangetracker.go accumulate the handlers' changes; syncProxyRules consumes them).
 * Events accumulated between syncs are passed together. An add or update stores the object
 * under its namespace/name, replacing what was there; a delete removes the key (a delete of
 * an unknown key changes nothing). `state` undefined starts from no objects.
 *
 * The result is exactly `sync(state, services, endpointSlices, …)` of the objects so stored
 * (INV-IPT-EVENTS): same text, stats and next state, so the two can be mixed (a relist is a
 * `sync` with the full lists). Partial syncs write only the services whose content changed.
 * A batch of updates costs a copy of the two object arrays and nothing per unchanged object; a
 * batch that adds or deletes objects also re-sorts the services, as a `sync` with other lists does.
 */
export function syncChanges(
  state: SyncState | undefined,
  changes: readonly ProxyChange[],
  config: SyncConfig | ProxierConfig,
  options: SyncOptions = {},
): SyncResult {
  const prev = state as StateData | undefined;
  const serviceOps: StoreOp<Service>[] = [];
  const sliceOps: StoreOp<EndpointSlice>[] = [];
  for (const change of changes) {
    if ('service' in change) serviceOps.push({ put: change.kind !== 'ServiceDelete', object: change.service });
    else sliceOps.push({ put: change.kind !== 'EndpointSliceDelete', object: change.endpointSlice });
  }
  const services = applyStoreOps(prev?.servicesIn ?? [], prev?.serviceIndex, serviceOps);
  const slices = applyStoreOps(prev?.slicesIn ?? [], prev?.sliceIndex, sliceOps);
  return syncObjects(state, services.items, slices.items, config, options, { services: services.index, slices: slices.index });
}

interface StoreOp<T> {
  /** true: add or update; false: delete. */
  readonly put: boolean;
  readonly object: T;
}

type Keyed = { readonly metadata: { readonly namespace?: string | undefined; readonly name?: string | undefined } };

function keyOf(object: Keyed): string {
  return objectKey(object.metadata.namespace, object.metadata.name);
}

/**
 * The objects after `ops`, one per key, and the position of each key. The arrays of the last
 * sync are copied, never changed; an index is copied only when a key comes or goes. Objects
 * keep their positions, an added key goes last, and a deleted one leaves no gap: the order a
 * Map keyed by namespace/name would give.
 */
function applyStoreOps<T extends Keyed>(
  previous: readonly T[],
  previousIndex: ReadonlyMap<string, number> | undefined,
  ops: readonly StoreOp<T>[],
): { items: readonly T[]; index: ReadonlyMap<string, number> } {
  let items: (T | undefined)[];
  let index: ReadonlyMap<string, number>;
  let owned: Map<string, number> | undefined;
  if (previousIndex === undefined) {
    // The last sync was given lists: one object per key, the last listing winning, as sync reads them.
    const byKey = new Map<string, T>();
    for (const object of previous) byKey.set(keyOf(object), object);
    items = [...byKey.values()];
    owned = new Map();
    for (const [i, object] of items.entries()) if (object !== undefined) owned.set(keyOf(object), i);
    index = owned;
  } else {
    if (ops.length === 0) return { items: previous, index: previousIndex };
    items = previous.slice();
    index = previousIndex;
  }
  const own = (): Map<string, number> => {
    owned ??= new Map(index);
    index = owned;
    return owned;
  };
  let holes = 0;
  for (const op of ops) {
    const key = keyOf(op.object);
    const at = index.get(key);
    if (op.put) {
      if (at !== undefined) items[at] = op.object;
      else {
        own().set(key, items.length);
        items.push(op.object);
      }
    } else if (at !== undefined) {
      own().delete(key);
      items[at] = undefined;
      holes++;
    }
  }
  if (holes === 0) return { items: items as T[], index };
  const kept = items.filter((object): object is T => object !== undefined);
  const compacted = new Map<string, number>();
  for (const [i, object] of kept.entries()) compacted.set(keyOf(object), i);
  return { items: kept, index: compacted };
}

function syncObjects(
  state: SyncState | undefined,
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: SyncConfig | ProxierConfig,
  options: SyncOptions,
  indexes: { readonly services: ReadonlyMap<string, number>; readonly slices: ReadonlyMap<string, number> } | undefined,
): SyncResult {
  if (config.kubeProxyVersion === '1.8') return syncV18(state as StateData | undefined, services, endpointSlices, config, indexes);
  const configKey = configKeyOf(config);
  const prev0 = state as StateData | undefined;
  const sameConfig = prev0 !== undefined && prev0.configKey === configKey;
  // After a config change nothing cached is reusable, but the chains that exist still do.
  const prev = sameConfig ? prev0 : undefined;
  const statistics: StatisticCache = prev?.statistics ?? new Map();
  const frame = prev?.frame ?? makeFrame(config);

  const matched =
    (prev !== undefined ? matchByPosition(prev, services, endpointSlices) : undefined) ??
    matchByKey(prev, services, endpointSlices, config.family);

  // Derive what may have changed, and find the content changes.
  interface Pending {
    readonly ports: readonly PortEntry[];
    readonly endpointCount: number;
    readonly changed: boolean;
  }
  let totalEndpoints = prev?.totalEndpoints ?? 0;
  const pending = new Map<number, Pending>();
  // The chain names of new service ports are hashed together once all are known (before rendering).
  const batch = new ServiceChainBatch();
  // A first sync renders every port it derives: the kernel keeps the endpoints' records from the
  // hashing to the printing (an arena), laid out for the most endpoints a Service's slices hold.
  const arenaRecords = prev0 === undefined && kernelReady() ? new Map<readonly EndpointInfo[], Placed>() : undefined;
  if (arenaRecords !== undefined) openArena(mostEndpoints(matched.work.values()));
  for (const [pos, candidate] of matched.work) {
    const previous = candidate.previous;
    if (previous !== undefined && previous.service === candidate.service && sameObjects(previous.slices, candidate.slices)) continue;
    const { ports, endpointCount } = deriveService(candidate.service, candidate.slices, config, previous, batch, arenaRecords);
    const changed = previous === undefined || !samePorts(previous.ports, ports);
    totalEndpoints += endpointCount - (previous?.endpointCount ?? 0);
    pending.set(pos, { ports, endpointCount, changed });
  }
  for (const gone of matched.removed) totalEndpoints -= gone.endpointCount;
  batch.name();

  const largeClusterMode = totalEndpoints > config.largeClusterThreshold;
  // A largeClusterMode flip changes the comments of every chain. Upstream's partial sync would
  // leave the old comments in unchanged chains until the next full sync; a full sync here keeps
  // the tables equal to a full sync's (see docs/deviations.md).
  const modeFlipped = prev !== undefined && prev.largeClusterMode !== largeClusterMode;
  const fullSyncEvery = (config as SyncConfig).fullSyncEvery;
  const full =
    prev === undefined ||
    options.full === true ||
    modeFlipped ||
    (fullSyncEvery !== undefined && prev.partialSinceFull + 1 >= fullSyncEvery);
  const ctx = ruleContext(config, largeClusterMode, statistics);
  const configAscii = !NON_ASCII.test(configKey);

  const entries: ServiceEntry[] = matched.base !== undefined ? matched.base.slice() : new Array<ServiceEntry>(matched.count);
  const written = new Set<number>();
  const staleChains: string[] = [];
  const retire = (oldChains: readonly string[], now: Rendered | undefined): void => {
    if (oldChains.length === 0) return;
    const keep = new Set(now === undefined ? [] : renderedChains(now));
    for (const chain of oldChains) if (!keep.has(chain)) staleChains.push(chain);
  };
  let servicesChanged = matched.removed.length;
  /** Entries to render, in the order of their text. */
  const toRender: { entry: { rendered: Rendered }; ports: readonly PortEntry[] }[] = [];
  /** Entries rendered now, with their previous chains: their stale chains are known once rendered. */
  const fresh: { entry: { rendered: Rendered }; previousChains: readonly string[] }[] = [];
  for (const [pos, candidate] of matched.work) {
    const previous = candidate.previous;
    const p = pending.get(pos);
    if (p?.changed === true) {
      servicesChanged++;
      written.add(pos);
    }
    const ports = p?.ports ?? previous?.ports ?? [];
    const reuse = p?.changed !== true && previous !== undefined && !modeFlipped;
    if (reuse && previous.service === candidate.service && previous.slices === candidate.slices) {
      entries[pos] = previous;
      continue;
    }
    const entry: ServiceEntry & { rendered: Rendered } = {
      key: candidate.key,
      namespace: candidate.namespace,
      name: candidate.name,
      service: candidate.service,
      slices: candidate.slices,
      ports,
      endpointCount: p?.endpointCount ?? previous?.endpointCount ?? 0,
      rendered: reuse ? previous.rendered : EMPTY_RENDERED,
    };
    entries[pos] = entry;
    if (!reuse) {
      if (ports.length > 0) toRender.push({ entry, ports });
      fresh.push({ entry, previousChains: previous === undefined ? [] : renderedChains(previous.rendered) });
    }
  }
  if (modeFlipped && matched.base !== undefined) {
    // The cheap path left the untouched entries as they were: re-render them too.
    for (let pos = 0; pos < entries.length; pos++) {
      const entry = entries[pos];
      if (entry === undefined || matched.work.has(pos)) continue;
      const copy: ServiceEntry & { rendered: Rendered } = { ...entry, rendered: EMPTY_RENDERED };
      entries[pos] = copy;
      if (entry.ports.length > 0) toRender.push({ entry: copy, ports: entry.ports });
      fresh.push({ entry: copy, previousChains: renderedChains(entry.rendered) });
    }
  }
  // A first sync renders everything, in the text's order: its whole text is made in the kernel
  // and decoded once. Other syncs render into batches of strings.
  let session: FinishedText | undefined;
  try {
    session = prev0 === undefined ? renderWithKernel(toRender, ctx, frame, configAscii, arenaRecords) : undefined;
  } finally {
    if (arenaRecords !== undefined) closeArena();
  }
  if (session === undefined) {
    const sink = new TextSink();
    for (const { entry, ports } of toRender) render(sink, entry, ports, ctx, configAscii);
    sink.finish();
  }
  for (const { entry, previousChains } of fresh) retire(previousChains, entry.rendered);
  for (const gone of matched.removed) retire(renderedChains(gone.rendered), undefined);
  // After a config change the old state's chains are all candidates for deletion.
  if (prev0 !== undefined && !sameConfig) {
    const active = new Set<string>();
    for (const entry of entries) for (const chain of renderedChains(entry.rendered)) active.add(chain);
    for (const entry of prev0.entries) for (const chain of renderedChains(entry.rendered)) if (!active.has(chain)) staleChains.push(chain);
    for (const chain of prev0.v18?.serviceChains ?? []) if (!active.has(chain)) staleChains.push(chain);
  }

  // Assemble: filter whole; nat chain lines and rules of written services; top-level rules of all.
  const filterParts: string[] = ['*filter\n', frame.filterChainsText, frame.head.filterText];
  const declParts: string[] = ['COMMIT\n*nat\n', frame.natChainsText];
  const natParts: string[] = [frame.head.fullText];
  // Where the services rendered now land in the decl and nat streams (character offsets), and
  // how many characters of the text they make: see `repoint` below.
  const freshEntries = new Set<{ rendered: Rendered }>();
  for (const { entry } of fresh) freshEntries.add(entry);
  const placed: { entry: { rendered: Rendered }; declAt: number; natAt: number }[] = [];
  let declChars = 0;
  let natChars = 0;
  for (const part of declParts) declChars += part.length;
  for (const part of natParts) natChars += part.length;
  let freshChars = 0;
  let filterLines = frame.filterChains + frame.head.filterLines + frame.tail.filterLines;
  let bytes = 8 + frame.filterChainsText.length + frame.head.filterBytes + frame.tail.filterBytes;
  let natRuleLines = frame.head.fullLines + frame.tail.fullLines;
  bytes += frame.head.fullBytes + frame.tail.fullBytes + 12 + frame.natChainsText.length + 7;
  let chainsWritten = frame.filterChains + frame.natChains;
  let totalFilterRules = frame.head.filterLines + frame.tail.filterLines;
  let totalNatRules = frame.head.fullLines + frame.tail.fullLines;
  let totalNatChains = frame.natChains;
  let servicePorts = 0;
  for (let pos = 0; pos < entries.length; pos++) {
    const entry = entries[pos] as ServiceEntry;
    const r = entry.rendered;
    servicePorts += entry.ports.length;
    totalFilterRules += r.filterLines;
    totalNatRules += r.fullLines;
    totalNatChains += r.chainCount;
    if (r.filterLines > 0) {
      if (session === undefined) filterParts.push(r.filterText);
      filterLines += r.filterLines;
      bytes += r.filterBytes;
    }
    if (full || written.has(pos)) {
      if (session === undefined && freshEntries.has(entry)) {
        placed.push({ entry, declAt: declChars, natAt: natChars });
        freshChars += r.declText.length + r.fullText.length;
      }
      if (r.chainCount > 0) {
        if (session === undefined) declParts.push(r.declText);
        declChars += r.declText.length;
        chainsWritten += r.chainCount;
        bytes += r.declBytes;
      }
      if (session === undefined) natParts.push(r.fullText);
      natChars += r.fullText.length;
      natRuleLines += r.fullLines;
      bytes += r.fullBytes;
    } else if (r.topLines > 0) {
      natParts.push(r.topText);
      natChars += r.topText.length;
      natRuleLines += r.topLines;
      bytes += r.topBytes;
    }
  }
  filterParts.push(frame.tail.filterText);
  natParts.push(frame.tail.fullText);
  if (staleChains.length > 0) {
    // In name order, so that the text depends only on the previous tables and the objects, not
    // on how the sync matched them (by position or by key); upstream walks a Go map here.
    staleChains.sort(compareStrings);
    // upstream writes a chain line (which flushes the chain) and then `-X`.
    const decl = staleChains.map(chainLine).join('');
    const deletes = staleChains.map(deleteChainLine).join('');
    declParts.push(decl);
    natParts.push(deletes);
    chainsWritten += staleChains.length;
    bytes += utf8Length(decl) + utf8Length(deletes);
  }
  natParts.push('COMMIT\n');
  // Concatenated, not joined: the parts are the services' slices of the flattened batches, and
  // joining would copy all of them (32 MB at 10000×10) into a new string only to be copied again
  // when the caller writes it out, which flattens it in any case (a join of each stream, as
  // before, also left a concatenation of three). So the text is a rope over the cached parts, and
  // costs no memory of its own until it is first read.
  // A first sync's text was made whole (renderWithKernel); its stale chains are none.
  let restoreText = session?.text ?? '';
  if (session === undefined) {
    for (const part of filterParts) restoreText += part;
    for (const part of declParts) restoreText += part;
    for (const part of natParts) restoreText += part;
  }
  // When most of the text was rendered now (a first or full sync after many changes), the text
  // is flattened here, which the caller would do anyway before writing it, and the services
  // rendered now keep slices of it instead of the batches they were rendered into: then the
  // batches die, and the state and the caller's text share one copy instead of holding two
  // (at 10000×10, 32 MB less retained). A partial sync keeps its small slices of the batches,
  // so that an unchanged text never pins a whole sync's text.
  if (session === undefined && freshChars * 2 >= restoreText.length) {
    restoreText = flat(restoreText);
    // The streams' lengths now: the stale chains' lines came after the services'.
    let declStart = 0;
    for (const part of filterParts) declStart += part.length;
    let natStart = declStart;
    for (const part of declParts) natStart += part.length;
    for (const { entry, declAt, natAt } of placed) {
      const r = entry.rendered;
      const fullText = restoreText.slice(natStart + natAt, natStart + natAt + r.fullText.length);
      let topText = r.topText;
      if (topText === r.fullText) topText = fullText;
      else if (topText !== '' && r.fullText.startsWith(topText)) topText = fullText.slice(0, topText.length);
      // Otherwise topText is a string of its own (the runs of top-level lines, joined), no batch's slice.
      const declText = r.declText === '' ? '' : restoreText.slice(declStart + declAt, declStart + declAt + r.declText.length);
      entry.rendered = { ...r, fullText, topText, declText };
    }
  }
  const lines = 4 + filterLines + (chainsWritten - frame.filterChains) + natRuleLines + staleChains.length;

  const next: StateData = {
    syncs: (prev0?.syncs ?? 0) + 1,
    partialSinceFull: full ? 0 : (prev?.partialSinceFull ?? 0) + 1,
    largeClusterMode,
    configKey,
    config,
    statistics,
    frame,
    servicesIn: services.slice(),
    servicePos: matched.servicePos,
    slicesIn: endpointSlices.slice(),
    slicePos: matched.slicePos,
    serviceIndex: indexes?.services,
    sliceIndex: indexes?.slices,
    entries,
    totalEndpoints,
  };
  return {
    state: next,
    restoreText,
    stats: {
      full,
      lines,
      bytes,
      chainsWritten,
      chainsDeleted: staleChains.length,
      servicesChanged,
      rules: {
        servicePorts,
        endpoints: totalEndpoints,
        largeClusterMode,
        filterRules: totalFilterRules,
        natRules: totalNatRules,
        filterChains: frame.filterChains,
        natChains: totalNatChains,
      },
    },
  };
}

/**
 * The Ruleset the tables hold after the sync that made `state`: what a full sync of the same
 * input writes (generateRules' ruleset), built by the same code as the text, for the tracer.
 */
export function syncedRuleset(state: SyncState): Ruleset {
  const data = state as StateData;
  if (data.v18 !== undefined) return data.v18.ruleset;
  const config = data.config;
  const ctx = ruleContext(config, data.largeClusterMode, data.statistics);
  const sink = new RulesetSink();
  writeHeadRules(sink, config);
  for (const entry of data.entries) {
    for (const port of entry.ports) writeServicePortRules(sink, port.info, port.endpoints, ctx, sepChainOf(port));
  }
  writeTailRules(sink, config);
  return {
    family: config.family,
    tables: [
      { name: 'filter', chains: fixedFilterChains(config), rules: sink.filterRules, deletedChains: [] },
      { name: 'nat', chains: [...fixedNatChains(), ...sink.natChains], rules: sink.natRules, deletedChains: [] },
    ],
  };
}

const V18_SERVICE_CHAIN = /^KUBE-(SVC|SEP|FW|XLB)-/;

/**
 * A kube-proxy 1.8 sync. v1.8's syncProxyRules had no partial syncs: every sync wrote every
 * chain and rule (generateRules' 1.8 text), then, for each chain of its own (KUBE-SVC-,
 * KUBE-SEP-, KUBE-FW-, KUBE-XLB-) that the tables held and this sync did not write, a chain
 * line (which flushes it) after the other chain lines and a `-X` after the rules.
 * upstream: pkg/proxy/iptables/proxier.go at v1.8.0, syncProxyRules ("Delete chains no longer in use").
 * Upstream reads the chains that exist from iptables-save; here they are the previous state's.
 */
function syncV18(
  prev0: StateData | undefined,
  services: readonly Service[],
  endpointSlices: readonly EndpointSlice[],
  config: SyncConfig | ProxierConfig,
  indexes: { readonly services: ReadonlyMap<string, number>; readonly slices: ReadonlyMap<string, number> } | undefined,
): SyncResult {
  const generated = generateRules(services, endpointSlices, config);
  const [filter, nat] = generated.ruleset.tables;
  const serviceChains = (nat?.chains ?? []).filter((chain) => V18_SERVICE_CHAIN.test(chain));
  const active = new Set(nat?.chains ?? []);
  const existing = new Set<string>(prev0?.v18?.serviceChains ?? []);
  for (const entry of prev0?.entries ?? []) for (const chain of renderedChains(entry.rendered)) if (V18_SERVICE_CHAIN.test(chain)) existing.add(chain);
  const stale = [...existing].filter((chain) => !active.has(chain)).sort(compareStrings);
  const written: Ruleset =
    stale.length === 0 || filter === undefined || nat === undefined
      ? generated.ruleset
      : { family: generated.ruleset.family, tables: [filter, { ...nat, chains: [...nat.chains, ...stale], deletedChains: stale }] };
  const restoreText = stale.length === 0 ? generated.restoreText : printRestoreText(written);

  // Services added, removed or whose object or slices changed (by content).
  const addressType = familyName(config.family);
  const slicesByService = new Map<string, EndpointSlice[]>();
  for (const slice of endpointSlices) {
    const label = slice.metadata.labels?.[LABEL_SERVICE_NAME];
    if (slice.addressType !== addressType || label === undefined || label === '') continue;
    const key = objectKey(slice.metadata.namespace, label);
    const list = slicesByService.get(key) ?? [];
    list.push(slice);
    slicesByService.set(key, list);
  }
  const fingerprints = new Map<string, string>();
  for (const service of services) {
    const key = objectKey(service.metadata.namespace, service.metadata.name);
    fingerprints.set(key, JSON.stringify([service, slicesByService.get(key) ?? []]));
  }
  const before = prev0?.v18?.fingerprints ?? new Map<string, string>();
  let servicesChanged = 0;
  for (const [key, print] of fingerprints) if (before.get(key) !== print) servicesChanged++;
  for (const key of before.keys()) if (!fingerprints.has(key)) servicesChanged++;

  const lines = restoreText.split('\n').length - 1;
  const next: StateData = {
    syncs: (prev0?.syncs ?? 0) + 1,
    partialSinceFull: 0,
    largeClusterMode: false,
    configKey: configKeyOf(config),
    config,
    statistics: new Map(),
    frame: makeFrame(config),
    servicesIn: services.slice(),
    servicePos: new Int32Array(services.length).fill(-1),
    slicesIn: endpointSlices.slice(),
    slicePos: new Int32Array(endpointSlices.length).fill(-1),
    serviceIndex: indexes?.services,
    sliceIndex: indexes?.slices,
    entries: [],
    totalEndpoints: generated.stats.endpoints,
    v18: { ruleset: generated.ruleset, serviceChains, fingerprints },
  };
  return {
    state: next,
    restoreText,
    stats: {
      full: true,
      lines,
      bytes: utf8Length(restoreText),
      chainsWritten: (filter?.chains.length ?? 0) + (nat?.chains.length ?? 0) + stale.length,
      chainsDeleted: stale.length,
      servicesChanged,
      rules: generated.stats,
    },
  };
}
