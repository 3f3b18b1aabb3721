// The sinks a sync renders Services into, keeping per Service the texts a later partial sync
// reuses: TextSink (batches of strings) and KernelSink (a first sync's whole text in the
// WebAssembly kernel's text session), and the fixed head and tail of the text (makeFrame).

import { endpointChain, sepNameAt } from '../endpoint-chains.js';
import { type EndpointInfo, flat } from '@kubesvc/proxy';
import { chainLine, COMMIT_LINE, ruleHead, ruleLine, ruleLineAfter, tableLine, writeChainLine, writeRuleLine } from '../generate/print-restore.js';
import type { ProxierConfig } from '../proxier-config.js';
import {
  fixedFilterChains,
  fixedNatChains,
  writeHeadRules,
  writeServicePortRules,
  writeTailRules,
  type EndpointBlock,
  type RuleContext,
  type RuleSink,
} from '../generate/rule-builder.js';
import type { Match, Target } from '../ruleset.js';
import { printEndpointBlock } from '../generate/endpoint-block.js';
import { TextBytes } from '../generate/text-bytes.js';
import type { FinishedText, RuleKernel, TextOut } from '../rule-kernel.js';
import { DECL_LINE } from '../wasm/kernel-layout.js';
import { EMPTY_RENDERED, NON_ASCII, utf8Length, type Frame, type Placed, type PortEntry, type Rendered } from './state.js';

/**
 * Prints what the builder writes for many services into shared texts, keeping the streams
 * apart: the filter rules, the nat rules (top-level and per-service chains, in writing order,
 * with the ranges that are top-level), the chain declarations. The texts grow by concatenation
 * (ropes) and `finish` flattens each once and gives every service slices of it: a large string
 * goes straight to V8's large-object space, where ten thousand 3 kB strings would each be
 * copied by the young-generation collector before settling.
 */
export class TextSink implements RuleSink {
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
    const kernel = block.ctx.config.kernel;
    const ruleLines = kernel === undefined ? -1 : printEndpointBlock(block, () => names[i++] as string);
    if (kernel === undefined || ruleLines < 0) return false;
    this.closeTop();
    this.full += kernel.takeRules();
    item.fullLines += ruleLines;
    this.decl += kernel.takeDeclarations();
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
 * A first sync's printer: the whole text goes into the kernel's text session (rule-kernel.ts)
 * and is decoded once, and every service's texts are slices of it; see
 * TextSink for what each service's Rendered holds. For ASCII input only (callers check).
 */
class KernelSink implements RuleSink {
  private readonly declStream: TextOut;
  private readonly natStream: TextOut;

  constructor(
    private readonly kernel: RuleKernel,
    private readonly placed: ReadonlyMap<readonly EndpointInfo[], Placed> | undefined,
  ) {
    this.declStream = kernel.declStream;
    this.natStream = kernel.natStream;
  }
  private readonly filterOut = new TextBytes();
  private readonly items: KernelItem[] = [];
  private current: KernelItem | undefined;
  private inTop = false;

  begin(target: { rendered: Rendered }): void {
    this.current = {
      target,
      fullFrom: this.kernel.natOffset(),
      fullTo: 0,
      declFrom: this.kernel.declOffset(),
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
    item.fullTo = this.kernel.natOffset();
    item.declTo = this.kernel.declOffset();
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
      item.top.push(this.kernel.natOffset());
      this.inTop = true;
    }
    writeRuleLine(this.natStream, chain, matches, target);
    item.topLines++;
    item.fullLines++;
  }
  natChain(chain: string): void {
    if (this.current !== undefined) this.current.chainCount++;
    writeChainLine(this.declStream, chain);
  }
  nat(chain: string, matches: readonly Match[], target?: Target): void {
    const item = this.current;
    if (item === undefined) return;
    this.closeTop();
    writeRuleLine(this.natStream, chain, matches, target);
    item.fullLines++;
  }
  natPrinted(_chain: string, text: string, lines: number): void {
    const item = this.current;
    if (item === undefined) return;
    this.closeTop();
    this.natStream.text(text);
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
      this.current?.top.push(this.kernel.natOffset());
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

export function makeFrame(config: ProxierConfig): Frame {
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
export function sepChainOf(port: PortEntry): (ep: EndpointInfo) => string {
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
export function render(sink: TextSink, target: { rendered: Rendered }, ports: readonly PortEntry[], ctx: RuleContext, configAscii: boolean): void {
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
 * cannot be had: the config has no kernel, or a name or config string is not ASCII.
 */
export function renderWithKernel(
  toRender: readonly { readonly entry: { rendered: Rendered }; readonly ports: readonly PortEntry[] }[],
  ctx: RuleContext,
  frame: Frame,
  configAscii: boolean,
  placed: ReadonlyMap<readonly EndpointInfo[], Placed> | undefined,
): FinishedText | undefined {
  const kernel = ctx.config.kernel;
  if (!configAscii || kernel === undefined) return undefined;
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
  kernel.beginText(maxEndpoints, DECL_LINE * chains + 64);
  const sink = new KernelSink(kernel, placed);
  try {
    for (const { entry, ports } of toRender) {
      sink.begin(entry);
      for (const port of ports) writeServicePortRules(sink, port.info, port.endpoints, ctx, sepChainOf(port));
      sink.end();
    }
  } catch (error) {
    kernel.abortText();
    throw error;
  }
  const filter = sink.filterBytes();
  if (filter === undefined) {
    kernel.abortText();
    return undefined;
  }
  const finished = kernel.finishText(
    tableLine('filter') + frame.filterChainsText + frame.head.filterText,
    filter,
    frame.tail.filterText + COMMIT_LINE + tableLine('nat') + frame.natChainsText,
    frame.head.fullText,
    frame.tail.fullText + COMMIT_LINE,
  );
  if (finished !== undefined) sink.finish(finished);
  return finished;
}
