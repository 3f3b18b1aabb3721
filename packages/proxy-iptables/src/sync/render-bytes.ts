// The bytes a sync keeps per Service. A sync renders the Services it must render into three
// streams of bytes (filter rules, nat chain declarations, nat rules), each Service's lines one
// run in each, then packs the runs into blocks of bytes the state keeps: a Service's Rendered
// is a few ranges of one block. A later sync copies those ranges into its restore buffer
// (Uint8Array.set) and never prints or encodes them again.
//
// A block holds consecutive Services: their filter runs, then their declaration runs, then their
// nat runs, each as the streams had them, then a copy of each one's top-level nat rules (its
// KUBE-SERVICES and KUBE-NODEPORTS lines, what a partial sync writes for an unchanged Service),
// so that a sync writing many Services of one block copies each region in one piece, a partial
// sync's top-level rules included.
// Blocks are at most BLOCK bytes (but for a Service larger than that on its own): the memory of a
// dropped state's blocks is then of a size the allocator hands out again, instead of a large
// mapping given back and faulted in afresh by the next state.

import { copyCodeUnits } from '../generate/text-bytes.js';
import type { Constant, TextOut } from '../rule-kernel.js';
import type { Rendered } from './state.js';

const encoder = new TextEncoder();

/** The most bytes a block holds (see the file's opening comment). */
export const BLOCK = 1 << 20;

/** A growable stream of printed text, as UTF-8 bytes: the restore text is ASCII but for what users write into names. */
export class ByteStream implements TextOut {
  private buffer: Uint8Array;
  length = 0;

  constructor(initialBytes = 1 << 12) {
    this.buffer = new Uint8Array(initialBytes);
  }

  /** The bytes, valid until the next write. */
  get bytes(): Uint8Array {
    return this.buffer;
  }

  /** Starts over (the memory stays). */
  reset(): void {
    this.length = 0;
  }

  private reserve(more: number): void {
    const needed = this.length + more;
    if (needed <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(needed, this.buffer.length * 2));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }

  text(text: string): void {
    const n = text.length;
    this.reserve(n);
    const at = this.length;
    if (copyCodeUnits(text, this.buffer, at) <= 0x7f) {
      this.length = at + n;
      return;
    }
    // Not ASCII: encoded again as UTF-8 (up to 3 bytes per UTF-16 unit).
    this.reserve(3 * n);
    this.length = at + encoder.encodeInto(text, this.buffer.subarray(at)).written;
  }

  constant(constant: Constant): void {
    this.text(constant.text);
  }

  /** Appends bytes. */
  append(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }
}

/** What a sink records of one Service while it renders: its runs in the three streams. */
export interface RenderItem {
  readonly target: { rendered: Rendered };
  readonly filterFrom: number;
  filterTo: number;
  readonly declFrom: number;
  declTo: number;
  readonly natFrom: number;
  natTo: number;
  /** Offsets in the nat stream of the first run of top-level lines (-1: none). */
  topFrom: number;
  topTo: number;
  /** Start, end, start, end … of any further runs (a Service of several ports); mostly none, so no array. */
  moreTop: number[] | undefined;
  filterLines: number;
  topLines: number;
  natLines: number;
  chainCount: number;
}

export function renderItem(target: { rendered: Rendered }, filterFrom: number, declFrom: number, natFrom: number): RenderItem {
  return { target, filterFrom, filterTo: filterFrom, declFrom, declTo: declFrom, natFrom, natTo: natFrom, topFrom: -1, topTo: -1, moreTop: undefined, filterLines: 0, topLines: 0, natLines: 0, chainCount: 0 };
}

/** The top-level lines' bytes beyond its nat run's that a Service needs (none when they are one run, or all of it). */
/** The runs of a Service's top-level nat rules in the nat stream: start, end, start, end … */
function topRuns(item: RenderItem): readonly number[] {
  if (item.topLines === 0) return [];
  if (item.topLines === item.natLines) return [item.natFrom, item.natTo];
  return item.moreTop === undefined ? [item.topFrom, item.topTo] : [item.topFrom, item.topTo, ...item.moreTop];
}

/** The bytes of a Service's top-level nat rules. */
function topSize(item: RenderItem): number {
  if (item.topLines === 0) return 0;
  if (item.topLines === item.natLines) return item.natTo - item.natFrom;
  let bytes = item.topTo - item.topFrom;
  const more = item.moreTop;
  if (more !== undefined) for (let i = 0; i + 1 < more.length; i += 2) bytes += (more[i + 1] as number) - (more[i] as number);
  return bytes;
}

/** Marks the start of a run of top-level lines at `at` in the nat stream. */
export function openTop(item: RenderItem, at: number): void {
  if (item.topFrom < 0) item.topFrom = at;
  else (item.moreTop ??= []).push(at);
}

/** Marks the end of the run of top-level lines open. */
export function closeTop(item: RenderItem, at: number): void {
  if (item.moreTop === undefined) item.topTo = at;
  else item.moreTop.push(at);
}

/**
 * Packs the rendered items into blocks and hands every item's target its Rendered. The streams'
 * bytes are read between each item's offsets (filter, decl and nat are the three streams).
 */
export function packRendered(items: readonly RenderItem[], filter: Uint8Array, decl: Uint8Array, nat: Uint8Array): void {
  let first = 0;
  while (first < items.length) {
    // The items of the next block: at least one, then as many as fit.
    const a = items[first] as RenderItem;
    let last = first;
    let size = itemSize(a);
    while (last + 1 < items.length) {
      const more = itemSize(items[last + 1] as RenderItem);
      if (size + more > BLOCK) break;
      size += more;
      last++;
    }
    const b = items[last] as RenderItem;
    const block = new Uint8Array(size);
    const filterBase = 0;
    block.set(filter.subarray(a.filterFrom, b.filterTo), filterBase);
    const declBase = b.filterTo - a.filterFrom;
    block.set(decl.subarray(a.declFrom, b.declTo), declBase);
    const natBase = declBase + (b.declTo - a.declFrom);
    block.set(nat.subarray(a.natFrom, b.natTo), natBase);
    let topEnd = natBase + (b.natTo - a.natFrom);
    for (let i = first; i <= last; i++) {
      const item = items[i] as RenderItem;
      const natAt = natBase + item.natFrom - a.natFrom;
      const natBytes = item.natTo - item.natFrom;
      const topAt = topEnd;
      const runs = topRuns(item);
      for (let k = 0; k + 1 < runs.length; k += 2) {
        const from = runs[k] as number;
        const to = runs[k + 1] as number;
        block.copyWithin(topEnd, natBase + from - a.natFrom, natBase + to - a.natFrom);
        topEnd += to - from;
      }
      const topBytes = topEnd - topAt;
      item.target.rendered = {
        bytes: block,
        filterAt: filterBase + item.filterFrom - a.filterFrom,
        filterBytes: item.filterTo - item.filterFrom,
        filterLines: item.filterLines,
        declAt: declBase + item.declFrom - a.declFrom,
        declBytes: item.declTo - item.declFrom,
        chainCount: item.chainCount,
        fullAt: natAt,
        fullBytes: natBytes,
        fullLines: item.natLines,
        topAt,
        topBytes,
        topLines: item.topLines,
      };
    }
    first = last + 1;
  }
}

function itemSize(item: RenderItem): number {
  return item.filterTo - item.filterFrom + (item.declTo - item.declFrom) + (item.natTo - item.natFrom) + topSize(item);
}

/**
 * Copies ranges of blocks into a restore buffer, joining a range that starts where the last one
 * ended in the same block to it: the Services of one block, written in order, are one copy per
 * region.
 */
export class RangeWriter {
  private bytes: Uint8Array | undefined;
  private from = 0;
  private to = 0;

  constructor(private readonly write: (bytes: Uint8Array, from: number, to: number) => void) {}

  add(bytes: Uint8Array, at: number, length: number): void {
    if (length === 0) return;
    if (bytes === this.bytes && at === this.to) {
      this.to += length;
      return;
    }
    this.flush();
    this.bytes = bytes;
    this.from = at;
    this.to = at + length;
  }

  flush(): void {
    if (this.bytes !== undefined && this.to > this.from) this.write(this.bytes, this.from, this.to);
    this.bytes = undefined;
  }
}

/** The three streams a sync renders into (state.ts, StateData.scratch). */
export interface RenderScratch {
  readonly filter: ByteStream;
  readonly decl: ByteStream;
  readonly nat: ByteStream;
}

export function renderScratch(): RenderScratch {
  return { filter: new ByteStream(), decl: new ByteStream(), nat: new ByteStream() };
}
