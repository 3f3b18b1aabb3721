// The sinks a sync renders Services into, keeping per Service the bytes a later sync reuses
// (render-bytes.ts): ByteSink (the JavaScript printer, any names) and KernelSink (the
// WebAssembly kernel's text session, ASCII names), and the fixed head and tail of the text
// (makeFrame).

import { endpointChain, sepNameAt } from '../endpoint-chains.js';
import type { EndpointInfo } from '@kubesvc/proxy';
import { COMMIT_LINE, tableLine, writeChainLine, writeRuleLine } from '../generate/print-restore.js';
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
import type { RuleKernel, TextOut } from '../rule-kernel.js';
import { DECL_LINE } from '../wasm/kernel-layout.js';
import { ByteStream, closeTop, openTop, packRendered, renderItem, renderScratch, type RenderItem, type RenderScratch } from './render-bytes.js';
import { EMPTY_RENDERED, NON_ASCII, type Frame, type Placed, type PortEntry, type Rendered } from './state.js';

/**
 * Prints what the builder writes for the Services of a sync as bytes, keeping the three streams
 * apart (the filter rules, the nat chain declarations, the nat rules) and each Service's run in
 * each (render-bytes.ts); finish() packs the runs into the blocks the state keeps. The filter
 * rules go into a stream of the sync state's scratch; where the other two go is the subclass's.
 */
abstract class ServiceSink implements RuleSink {
  protected readonly items: RenderItem[] = [];
  protected current: RenderItem | undefined;
  private inTop = false;

  constructor(
    protected readonly filterOut: ByteStream,
    protected readonly declOut: TextOut,
    protected readonly natOut: TextOut,
  ) {}

  protected abstract declOffset(): number;
  protected abstract natOffset(): number;
  abstract natEndpointBlock(block: EndpointBlock): boolean;

  begin(target: { rendered: Rendered }): void {
    this.current = renderItem(target, this.filterOut.length, this.declOffset(), this.natOffset());
  }

  end(): void {
    const item = this.current;
    if (item === undefined) return;
    this.closeTop();
    item.filterTo = this.filterOut.length;
    item.declTo = this.declOffset();
    item.natTo = this.natOffset();
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
      openTop(item, this.natOffset());
      this.inTop = true;
    }
    writeRuleLine(this.natOut, chain, matches, target);
    item.topLines++;
    item.natLines++;
  }
  natChain(chain: string): void {
    if (this.current !== undefined) this.current.chainCount++;
    writeChainLine(this.declOut, chain);
  }
  nat(chain: string, matches: readonly Match[], target?: Target): void {
    const item = this.current;
    if (item === undefined) return;
    this.closeTop();
    writeRuleLine(this.natOut, chain, matches, target);
    item.natLines++;
  }
  natPrinted(_chain: string, text: string, lines: number): void {
    const item = this.current;
    if (item === undefined) return;
    this.closeTop();
    this.natOut.text(text);
    item.natLines += lines;
  }
  protected closeTop(): void {
    if (this.inTop) {
      if (this.current !== undefined) closeTop(this.current, this.natOffset());
      this.inTop = false;
    }
  }
}

/** The JavaScript printer: all three streams are the scratch's (UTF-8, any names). */
export class ByteSink extends ServiceSink {
  /** `scratch`: its streams empty (resetScratch). */
  constructor(private readonly scratch: RenderScratch) {
    super(scratch.filter, scratch.decl, scratch.nat);
  }
  protected declOffset(): number {
    return this.scratch.decl.length;
  }
  protected natOffset(): number {
    return this.scratch.nat.length;
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
    this.natOut.text(kernel.takeRules());
    item.natLines += ruleLines;
    this.declOut.text(kernel.takeDeclarations());
    item.chainCount += names.length;
    return true;
  }

  /** Packs what was rendered into blocks, and hands every Service its Rendered. */
  finish(): void {
    const { filter, decl, nat } = this.scratch;
    packRendered(this.items, filter.bytes, decl.bytes, nat.bytes);
    this.items.length = 0;
    filter.reset();
    decl.reset();
    nat.reset();
  }
}

/**
 * The kernel's printer: the chain declarations and the nat rules go into the kernel's text
 * session (rule-kernel.ts), a large cluster's endpoints printed by the kernel itself from the
 * records the hashing left (`placed`, an arena) or from the names the state keeps; finish()
 * packs them from the kernel's memory. For ASCII input only (callers check).
 */
class KernelSink extends ServiceSink {
  constructor(
    private readonly kernel: RuleKernel,
    private readonly scratch: RenderScratch,
    private readonly placed: ReadonlyMap<readonly EndpointInfo[], Placed> | undefined,
  ) {
    super(scratch.filter, kernel.declStream, kernel.natStream);
  }
  protected declOffset(): number {
    return this.kernel.declOffset();
  }
  protected natOffset(): number {
    return this.kernel.natOffset();
  }
  natEndpointBlock(block: EndpointBlock): boolean {
    const item = this.current;
    if (item === undefined) return false;
    const placed = this.placed?.get(block.endpoints);
    this.closeTop();
    const ruleLines = printEndpointBlock(block, placed === undefined ? block.sepChain : undefined, placed);
    if (ruleLines < 0) return false;
    item.natLines += ruleLines;
    item.chainCount += block.endpoints.length;
    return true;
  }

  /** Ends the session and packs its bytes; false (nothing handed out) when the session failed. */
  finish(): boolean {
    const session = this.kernel.finishBytes();
    if (session === undefined) return false;
    packRendered(this.items, this.scratch.filter.bytes, session.decl, session.nat);
    this.items.length = 0;
    this.scratch.filter.reset();
    return true;
  }
}

export function makeFrame(config: ProxierConfig): Frame {
  const scratch = renderScratch();
  const sink = new ByteSink(scratch);
  const head = { rendered: EMPTY_RENDERED };
  sink.begin(head);
  writeHeadRules(sink, config);
  sink.end();
  const tail = { rendered: EMPTY_RENDERED };
  sink.begin(tail);
  writeTailRules(sink, config);
  sink.end();
  sink.finish();
  const filterChains = fixedFilterChains(config);
  const natChains = fixedNatChains();
  const filterOpen = new ByteStream();
  filterOpen.text(tableLine('filter'));
  for (const chain of filterChains) writeChainLine(filterOpen, chain);
  filterOpen.append(head.rendered.bytes.subarray(head.rendered.filterAt, head.rendered.filterAt + head.rendered.filterBytes));
  const natOpen = new ByteStream();
  natOpen.append(tail.rendered.bytes.subarray(tail.rendered.filterAt, tail.rendered.filterAt + tail.rendered.filterBytes));
  natOpen.text(COMMIT_LINE);
  natOpen.text(tableLine('nat'));
  for (const chain of natChains) writeChainLine(natOpen, chain);
  return {
    filterChains: filterChains.length,
    natChains: natChains.length,
    head: head.rendered,
    tail: tail.rendered,
    filterOpen: filterOpen.bytes.slice(0, filterOpen.length),
    natOpen: natOpen.bytes.slice(0, natOpen.length),
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

type ToRender = readonly { readonly entry: { rendered: Rendered }; readonly ports: readonly PortEntry[] }[];

/**
 * Renders the services of `toRender` in their order, each into bytes the state keeps
 * (render-bytes.ts), with the JavaScript printer: any names.
 */
export function renderBytes(toRender: ToRender, ctx: RuleContext, scratch: RenderScratch): void {
  resetScratch(scratch);
  const sink = new ByteSink(scratch);
  for (const { entry, ports } of toRender) {
    sink.begin(entry);
    for (const port of ports) writeServicePortRules(sink, port.info, port.endpoints, ctx, sepChainOf(port));
    sink.end();
  }
  sink.finish();
}

/**
 * The most chain declarations and endpoint lines (a service port's four chains plus one per
 * endpoint) one text session of renderWithKernel takes: about 320 KB of nat rules and 80 KB of
 * declarations. A render of more runs in several sessions, one after the other in the same
 * region of the kernel's memory, each packed into the state's blocks as it ends: the memory then
 * holds one session's text, not the whole text once more beside the blocks (a WebAssembly memory
 * never shrinks, so what a first sync touched there the process would keep). Small sessions keep
 * that region small, so that a fresh process's first sync faults in few pages of it and writes
 * the rest over the same pages: at 1000×10 a first sync in a fresh process took 9 to 12 ms less
 * with sessions of 1,024 to 4,096 chains than with one session of 16,384 (12 alternated runs, a
 * fresh page 10.9 µs; 2,048 matched 1,024 in a second set), and no more time at 10000×10. The
 * bytes written are the same whatever the sessions.
 */
export const SESSION_CHAINS = 2048;

/**
 * Renders the services of `toRender` as renderBytes does, in the kernel's text sessions (at most
 * SESSION_CHAINS chains each): false (the sessions' work dropped) when a session cannot be had
 * (the config has no kernel, a name or config string is not ASCII, a session failed), and the
 * caller renders them all with renderBytes.
 */
export function renderWithKernel(
  toRender: ToRender,
  ctx: RuleContext,
  scratch: RenderScratch,
  configAscii: boolean,
  placed: ReadonlyMap<readonly EndpointInfo[], Placed> | undefined,
): boolean {
  const kernel = ctx.config.kernel;
  if (!configAscii || kernel === undefined || toRender.length === 0) return false;
  let maxEndpoints = 0;
  for (const { ports } of toRender) {
    for (const port of ports) {
      if (NON_ASCII.test(port.info.nameString)) return false;
      if (port.endpoints.length > maxEndpoints) maxEndpoints = port.endpoints.length;
    }
  }
  let first = 0;
  while (first < toRender.length) {
    // The services of the next session: at least one, then as many as stay under SESSION_CHAINS.
    let end = first;
    let chains = 0;
    while (end < toRender.length) {
      let more = 0;
      // At most a service port's four chains and one per endpoint are declared.
      for (const port of (toRender[end] as ToRender[number]).ports) more += 4 + port.endpoints.length;
      if (end > first && chains + more > SESSION_CHAINS) break;
      chains += more;
      end++;
    }
    resetScratch(scratch);
    kernel.beginText(maxEndpoints, DECL_LINE * chains + 64);
    const sink = new KernelSink(kernel, scratch, placed);
    try {
      for (let i = first; i < end; i++) {
        const { entry, ports } = toRender[i] as ToRender[number];
        sink.begin(entry);
        for (const port of ports) writeServicePortRules(sink, port.info, port.endpoints, ctx, sepChainOf(port));
        sink.end();
      }
    } catch (error) {
      kernel.abortText();
      throw error;
    }
    if (!sink.finish()) return false;
    first = end;
  }
  return true;
}

function resetScratch(scratch: RenderScratch): void {
  scratch.filter.reset();
  scratch.decl.reset();
  scratch.nat.reset();
}
