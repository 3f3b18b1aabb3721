// The sinks a full render writes to (the builders' RuleSink, generate/rule-builder.ts): the
// typed Ruleset (RulesetSink), the restore text as strings (RestoreTextSink), and the restore
// text as bytes in the kernel's text session (KernelTextSink: print-restore.ts's printer writing
// into TextBytes, text-bytes.ts, for the filter rules and into the streams of the config's
// kernel, rule-kernel.ts, for the nat table). A sync's sinks (sync/sinks.ts) are the same two
// outputs of the one printer that also keep each Service's slice of the text. Every text sink
// prints exactly what printRestoreText(ruleset) prints of the RulesetSink's rules
// (INV-IPT-DETERMINISTIC, INV-IPT-WASM-TEXT).

import { chainLine, COMMIT_LINE, ruleHead, ruleLine, ruleLineAfter, tableLine, writeChainLine, writeRuleLine } from './print-restore.js';
import { flat } from '@kubesvc/proxy';
import { TextBytes } from './text-bytes.js';
import type { RuleKernel, TextOut } from '../rule-kernel.js';
import type { EndpointBlock, RuleSink } from './rule-builder.js';
import { printEndpointBlock } from './endpoint-block.js';
import type { Match, Rule, Target } from '../ruleset.js';

/** A sink that collects Rule values, in writing order. */
export class RulesetSink implements RuleSink {
  readonly filterRules: Rule[] = [];
  readonly natRules: Rule[] = [];
  readonly natChains: string[] = [];
  filter(chain: string, matches: readonly Match[], target?: Target): void {
    this.filterRules.push(target === undefined ? { chain, matches } : { chain, matches, target });
  }
  natTop(chain: string, matches: readonly Match[], target?: Target): void {
    this.natRules.push(target === undefined ? { chain, matches } : { chain, matches, target });
  }
  natChain(chain: string): void {
    this.natChains.push(chain);
  }
  nat(chain: string, matches: readonly Match[], target?: Target): void {
    this.natRules.push(target === undefined ? { chain, matches } : { chain, matches, target });
  }
}

/**
 * Prints into the kernel's text session: the filter rules into bytes of their own, the chain
 * declarations and the nat rules into the session's regions, a large cluster's endpoints by the
 * kernel itself.
 */
export class KernelTextSink implements RuleSink {
  filterRules = 0;
  natRules = 0;
  natChains = 0;
  readonly filterOut = new TextBytes();
  private readonly declStream: TextOut;
  private readonly natStream: TextOut;

  constructor(kernel: RuleKernel) {
    this.declStream = kernel.declStream;
    this.natStream = kernel.natStream;
  }

  filter(chain: string, matches: readonly Match[], target?: Target): void {
    writeRuleLine(this.filterOut, chain, matches, target);
    this.filterRules++;
  }
  natTop(chain: string, matches: readonly Match[], target?: Target): void {
    this.nat(chain, matches, target);
  }
  natChain(chain: string): void {
    writeChainLine(this.declStream, chain);
    this.natChains++;
  }
  nat(chain: string, matches: readonly Match[], target?: Target): void {
    writeRuleLine(this.natStream, chain, matches, target);
    this.natRules++;
  }
  natPrinted(_chain: string, text: string, lines: number): void {
    this.natStream.text(text);
    this.natRules += lines;
  }
  natEndpointBlock(block: EndpointBlock): boolean {
    const ruleLines = printEndpointBlock(block);
    if (ruleLines < 0) return false;
    this.natChains += block.endpoints.length;
    this.natRules += ruleLines;
    return true;
  }
}

/**
 * Prints what the builder writes as restore text, keeping the three streams apart (filter
 * rules, nat chain declarations, nat rules) as printRestoreText orders them. Each stream grows
 * by concatenation and is flattened in batches (see TEXT_BATCH): a rope of a whole large
 * ruleset would live through many scavenges before its single flattening.
 */
export class RestoreTextSink implements RuleSink {
  filterRules = 0;
  natRules = 0;
  natChains = 0;
  private readonly filterStream = new BatchedText();
  private readonly declStream = new BatchedText();
  private readonly natStream = new BatchedText();
  // The `-A CHAIN` of the last nat rule: most chains get several rules in a row.
  private lastChain = '';
  private lastHead = '';

  filter(chain: string, matches: readonly Match[], target?: Target): void {
    this.filterStream.add(ruleLine(chain, matches, target));
    this.filterRules++;
  }
  natTop(chain: string, matches: readonly Match[], target?: Target): void {
    this.nat(chain, matches, target);
  }
  natChain(chain: string): void {
    this.declStream.add(chainLine(chain));
    this.natChains++;
  }
  nat(chain: string, matches: readonly Match[], target?: Target): void {
    if (chain !== this.lastChain) {
      this.lastChain = chain;
      this.lastHead = ruleHead(chain);
    }
    this.natStream.add(ruleLineAfter(this.lastHead, matches, target));
    this.natRules++;
  }
  natPrinted(_chain: string, text: string, lines: number): void {
    this.natStream.add(text);
    this.natRules += lines;
  }
  natEndpointBlock(block: EndpointBlock): boolean {
    const kernel = block.ctx.config.kernel;
    const ruleLines = kernel === undefined ? -1 : printEndpointBlock(block);
    if (kernel === undefined || ruleLines < 0) return false;
    this.declStream.add(kernel.takeDeclarations());
    this.natChains += block.endpoints.length;
    this.natStream.add(kernel.takeRules());
    this.natRules += ruleLines;
    return true;
  }

  /** The whole restore text, one flat string, with the fixed chains declared first. */
  text(filterChains: readonly string[], natChains: readonly string[]): string {
    const parts = [tableLine('filter')];
    for (const chain of filterChains) parts.push(chainLine(chain));
    this.filterStream.drainInto(parts);
    parts.push(COMMIT_LINE, tableLine('nat'));
    for (const chain of natChains) parts.push(chainLine(chain));
    this.declStream.drainInto(parts);
    this.natStream.drainInto(parts);
    parts.push(COMMIT_LINE);
    return parts.join('');
  }
}

/** A text built by concatenation, flattened every TEXT_BATCH characters. */
class BatchedText {
  private readonly batches: string[] = [];
  private current = '';
  add(piece: string): void {
    this.current += piece;
    if (this.current.length >= TEXT_BATCH) {
      this.batches.push(flat(this.current));
      this.current = '';
    }
  }
  drainInto(parts: string[]): void {
    for (const batch of this.batches) parts.push(batch);
    parts.push(this.current);
    this.batches.length = 0;
    this.current = '';
  }
}

/**
 * Just past V8's largest regular object (128 KiB): every batch goes to the large-object space,
 * and the rope awaiting its flattening is small enough to die young (as sync's batches).
 */
const TEXT_BATCH = 1 << 17;
