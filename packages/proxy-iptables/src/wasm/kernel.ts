// The JavaScript side of the WebAssembly kernel (tools/wasm-kernel/src/kernel-emitter.ts):
// instantiation, the memory map of kernel-layout.ts, and the calls a service port makes. Callers put one record per
// endpoint (its `ip:port`), have the records' chain names hashed or put known names in, and print
// the endpoints' lines, which come back as two strings (the nat rules and the chain
// declarations), decoded once per service port.
//
// WebAssembly is a global of the language's host, like TextDecoder: the kernel does no I/O and
// works on its own memory. loadKernel() instantiates one, with its own memory, as a value the
// caller passes in the proxier config (rule-kernel.ts has its interface); where WebAssembly is
// missing or refuses the module (a runtime without SIMD, `node --jitless`) it gives undefined
// and the renders take the string paths. This file and the module's bytes are loaded only
// through `@kubesvc/proxy-iptables/wasm`: the package's main entry point never loads them.

import {
  CONSTANT_TEXTS,
  DECL_LINE,
  HASH_HEAD_AT,
  HOSTPORT_MAX,
  MESSAGE_MAX,
  QUADS_PER_CALL,
  RECORD,
  RECORD_HOSTPORT,
  RECORD_HOSTPORT_LENGTH,
  RECORD_IP_LENGTH,
  RECORD_IP_OFFSET,
  RECORD_IPV4,
  RECORD_NAME,
  RECORD_NUMERIC,
  RECORD_PORT,
  RULE_HEAD_AT,
  STATISTIC_ENTRY,
  STATISTICS,
  TEMPLATE_A_AT,
  TEMPLATE_B_AT,
  TEXT_MAX,
} from './kernel-layout.js';
import { KERNEL_MODULE_BASE64 } from './kernel-module.js';
import { registeredConstants, type Constant, type RuleKernel, type SessionBytes, type TextOut } from '../rule-kernel.js';

/** The part of the WebAssembly API used here (the package's TypeScript libraries do not declare it). */
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
}

interface Memory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

interface WasmExports {
  readonly memory: Memory;
  readonly hash: (quads: number) => void;
  readonly prepare: (headLength: number, records: number, count: number) => void;
  readonly stash: (records: number, count: number) => void;
  readonly printLoadBalancing: (out: number, headLength: number, records: number, indices: number, count: number) => number;
  readonly printEndpointChains: (out: number, decl: number, records: number, count: number, lengthA: number, lengthB: number) => number;
  readonly expand: (records: number, count: number) => void;
  readonly copyText: (target: number, source: number, length: number) => number;
}

/** Endpoints one hash call takes. */
export const SLOTS = QUADS_PER_CALL * 4;
/** The longest statistic text a table entry holds. */
const STATISTIC_MAX = STATISTIC_ENTRY - 2;
const PAGE = 65536;

// No byte-order mark is ever printed; ignoreBOM keeps a text's first bytes as they are regardless.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The module's exports, instantiated; undefined where WebAssembly is missing or refuses the module. */
function instantiate(): WasmExports | undefined {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (wasm === undefined) return undefined;
  try {
    const { exports } = new wasm.Instance(new wasm.Module(base64Bytes(KERNEL_MODULE_BASE64)), {});
    return {
      memory: exports['memory'] as Memory,
      hash: exports['hash'] as WasmExports['hash'],
      prepare: exports['prepare'] as WasmExports['prepare'],
      stash: exports['stash'] as WasmExports['stash'],
      printLoadBalancing: exports['printLoadBalancing'] as WasmExports['printLoadBalancing'],
      printEndpointChains: exports['printEndpointChains'] as WasmExports['printEndpointChains'],
      expand: exports['expand'] as WasmExports['expand'],
      copyText: exports['copyText'] as WasmExports['copyText'],
    };
  } catch {
    return undefined;
  }
}

/**
 * A WebAssembly kernel of its own (its memory, its batches and sessions), to pass in the
 * proxier config (ProxierConfigOptions.kernel). Undefined where WebAssembly is missing or
 * refuses the module (a runtime without SIMD, `node --jitless`): the config then goes without
 * one and every render takes the string paths, which print the same bytes.
 */
export function loadKernel(): RuleKernel | undefined {
  const instance = instantiate();
  if (instance === undefined) return undefined;
  const kernel: WasmExports = instance;
  /** The registered constants (rule-kernel.ts) written into memory so far. */
  let constantsWritten = 0;
  let bytes = new Uint8Array(kernel.memory.buffer);
  let words = new Int32Array(kernel.memory.buffer);

  // The statistic table: entries 2 .. statisticFilled hold the texts for `statisticKey`.
  let statisticCapacity = 0;
  let statisticFilled = 1;
  let statisticKey: unknown;

  // The current batch of records (kernel-layout.ts: records, indices, declarations, rules).
  let records = 0;
  let indices = 0;
  let declStart = 0;
  let declAt = 0;
  let natStart = 0;
  let natAt = 0;

  // A text session (beginText … finishBytes): the records area is laid out once for the largest
  // service port, the chain declarations and the nat rules of the whole text accumulate in two
  // regions, which finishBytes hands out as bytes (no text made).
  let session = false;
  let sessionCapacity = 0;
  let declLimit = 0;
  /** The texts at TEMPLATE_A_AT and TEMPLATE_B_AT. */
  const templates: (string | undefined)[] = [undefined, undefined];
  /** Set when a session's text could not be kept (a region's bound exceeded, a text that is not ASCII): finishBytes then gives undefined. */
  let sessionFailed = false;
  /** Where a session's printEndpointBlock puts records it writes itself. */
  let sessionRecords = 0;

  // An arena (openArena … closeArena): batches of records stay, one after the other, so that a
  // sync renders the endpoints its derivation hashed without writing or naming them again.
  let arena = false;
  let arenaTop = 0;



  /** Writes the constants registered since the last call (rule-kernel.ts, registerConstant). */
  function writeConstants(): void {
    const all = registeredConstants();
    for (; constantsWritten < all.length; constantsWritten++) {
      const constant = all[constantsWritten] as Constant;
      putText(constant.at, constant.text);
    }
  }

  /** Grows the memory to at least `size` bytes. */
  function ensureMemory(size: number): void {
    const k = kernel;
    if (size <= bytes.length) return;
    k.memory.grow(Math.ceil((size - bytes.length) / PAGE));
    bytes = new Uint8Array(k.memory.buffer);
    words = new Int32Array(k.memory.buffer);
  }

  function align16(at: number): number {
    return (at + 15) & ~15;
  }

  /**
   * Starts a batch of `count` endpoint records, the records of one service port. The printed
   * text of a previous batch that was not taken is dropped.
   */
  function beginRecords(count: number): void {
    if (session) {
      // The session's records area was laid out for its largest service port.
      if (count > sessionCapacity) throw new Error(`beginRecords: ${count} records in a session laid out for ${sessionCapacity}`);
      records = sessionRecords;
      return;
    }
    if (arena) {
      records = arenaTop;
      arenaTop = align16(arenaTop + RECORD * count);
      layOutOutput(arenaTop, count);
      return;
    }
    if (count + 1 > statisticCapacity) {
      // The table sits before the records: it grows only here, between batches.
      statisticCapacity = Math.max(count + 1, statisticCapacity * 2, 64);
    }
    records = align16(STATISTICS + STATISTIC_ENTRY * statisticCapacity);
    layOutOutput(records + RECORD * count, count);
  }

  /** The index list and the batch's output after `at`, for `count` records. */
  function layOutOutput(at: number, count: number): void {
    indices = at + 64;
    declStart = align16(indices + 4 * count + 16);
    declAt = declStart;
    natStart = align16(declStart + DECL_LINE * count + 64);
    natAt = natStart;
    ensureMemory(natStart + 1024);
  }

  /**
   * Opens an arena: until closeArena, every batch's records stay where beginRecords put them
   * (recordsAt says where), and usePlacedRecords prints from them again. Service ports printed
   * from the arena may have at most `maxEndpoints` endpoints (the statistic table is laid out for
   * them before it).
   */
  function openArena(maxEndpoints: number): void {
    if (maxEndpoints + 1 > statisticCapacity) statisticCapacity = Math.max(maxEndpoints + 1, statisticCapacity * 2, 64);
    arenaTop = align16(STATISTICS + STATISTIC_ENTRY * statisticCapacity);
    arena = true;
  }

  function closeArena(): void {
    arena = false;
  }

  /** Where the current batch's records are. */
  function recordsAt(): number {
    return records;
  }

  /** Makes the records put at `at` (recordsAt of an earlier batch in the open arena) the current batch. */
  function usePlacedRecords(at: number): void {
    records = at;
  }

  /** Copies `text` into memory at `at` if it is ASCII; false (memory then undefined there) if not. */
  function putText(at: number, text: string): boolean {
    const b = bytes;
    let units = 0;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      units |= unit;
      b[at + i] = unit;
    }
    return units <= 0x7f;
  }

  /**
   * Record i: `hostPort` (`ip:port`, `[ip]:port` for IPv6) and where the IP is in it. False when
   * the kernel cannot take it (too long, not ASCII).
   */
  function putRecord(i: number, hostPort: string, ipOffset: number, ipLength: number): boolean {
    if (hostPort.length > HOSTPORT_MAX) return false;
    const at = records + RECORD * i;
    const b = bytes;
    b[at + RECORD_NUMERIC] = 0;
    b[at + RECORD_HOSTPORT_LENGTH] = hostPort.length;
    b[at + RECORD_IP_OFFSET] = ipOffset;
    b[at + RECORD_IP_LENGTH] = ipLength;
    return putText(at + RECORD_HOSTPORT, hostPort);
  }

  /**
   * Record i: an endpoint's `ip:port`, as putRecord takes it, without making that text: from the
   * IPv4 address's value and the port when `ipv4` is not -1 (the kernel writes the text, see
   * expandRecords), else from `ip` + `portSuffix` (`:port`), the IP bracketed for IPv6. False
   * when the kernel cannot take it.
   */
  function putEndpoint(i: number, ip: string, ipv4: number, port: number, portSuffix: string, bracketed: boolean): boolean {
    const at = records + RECORD * i;
    const b = bytes;
    if (ipv4 >= 0 && port >= 0 && port <= 0xffff) {
      b[at + RECORD_NUMERIC] = 1;
      words[(at + RECORD_IPV4) >> 2] = ipv4 | 0;
      words[(at + RECORD_PORT) >> 2] = port;
      return true;
    }
    b[at + RECORD_NUMERIC] = 0;
    const open = bracketed ? 1 : 0;
    const length = ip.length + portSuffix.length + 2 * open;
    if (length > HOSTPORT_MAX) return false;
    b[at + RECORD_HOSTPORT_LENGTH] = length;
    b[at + RECORD_IP_OFFSET] = open;
    b[at + RECORD_IP_LENGTH] = ip.length;
    let to = at + RECORD_HOSTPORT;
    if (bracketed) b[to++] = 91; // [
    let units = 0;
    for (let k = 0; k < ip.length; k++) {
      const unit = ip.charCodeAt(k);
      units |= unit;
      b[to + k] = unit;
    }
    to += ip.length;
    if (bracketed) b[to++] = 93; // ]
    for (let k = 0; k < portSuffix.length; k++) b[to + k] = portSuffix.charCodeAt(k);
    return units <= 0x7f;
  }

  /** Writes the `ip:port` text of records 0 .. count-1 that putEndpoint gave as numbers. */
  function expandRecords(count: number): void {
    kernel.expand(records, count);
  }

  /** Puts a known chain name (`KUBE-SEP-` and 16 characters) into record i. */
  function putRecordName(i: number, name: string): void {
    const at = records + RECORD * i + RECORD_NAME;
    const b = bytes;
    for (let k = 0; k < 16; k++) b[at + k] = name.charCodeAt(9 + k);
  }

  /** The record's chain name, `KUBE-SEP-` and its 16 characters. */
  function recordName(i: number): string {
    const at = records + RECORD * i + RECORD_NAME;
    const b = bytes;
    return String.fromCharCode(
      75, 85, 66, 69, 45, 83, 69, 80, 45, // KUBE-SEP-
      b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number,
      b[at + 4] as number, b[at + 5] as number, b[at + 6] as number, b[at + 7] as number,
      b[at + 8] as number, b[at + 9] as number, b[at + 10] as number, b[at + 11] as number,
      b[at + 12] as number, b[at + 13] as number, b[at + 14] as number, b[at + 15] as number,
    );
  }

  /** Where recordHashes gathers the records' hash characters before decoding them in one call. */
  let hashScratch = new Uint8Array(16 * 64);

  /**
   * The 16 hash characters of records 0 .. count-1, one after the other, as one string: a sync
   * keeps its endpoints' names so (one string per service port instead of one per endpoint, which
   * every scavenge during a first sync copied), and one decode costs less than a string per name.
   */
  function recordHashes(count: number): string {
    if (hashScratch.length < 16 * count) hashScratch = new Uint8Array(32 * count);
    const out = hashScratch;
    const b = bytes;
    for (let i = 0; i < count; i++) {
      const at = records + RECORD * i + RECORD_NAME;
      const to = 16 * i;
      for (let k = 0; k < 16; k++) out[to + k] = b[at + k] as number;
    }
    return decoder.decode(out.subarray(0, 16 * count));
  }

  /** The record's 16 hash characters (after hashRecords). */
  function recordHash(i: number): string {
    const at = records + RECORD * i + RECORD_NAME;
    const b = bytes;
    return String.fromCharCode(
      b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number,
      b[at + 4] as number, b[at + 5] as number, b[at + 6] as number, b[at + 7] as number,
      b[at + 8] as number, b[at + 9] as number, b[at + 10] as number, b[at + 11] as number,
      b[at + 12] as number, b[at + 13] as number, b[at + 14] as number, b[at + 15] as number,
    );
  }

  /**
   * Hashes `head` + record i's `ip:port` for records 0 .. count-1 into the records' names. False,
   * doing nothing, when `head` is not ASCII or too long; a record whose message is longer than
   * MESSAGE_MAX gets a meaningless name, which the caller replaces (hashedInKernel says which).
   */
  function hashRecords(head: string, count: number): boolean {
    const k = kernel;
    if (head.length > TEXT_MAX || !putText(HASH_HEAD_AT, head)) return false;
    for (let first = 0; first < count; first += SLOTS) {
      const n = Math.min(SLOTS, count - first);
      const at = records + RECORD * first;
      k.prepare(head.length, at, n);
      k.hash((n + 3) >> 2);
      k.stash(at, n);
    }
    return true;
  }

  /** Whether hashRecords names a record whose `ip:port` has `hostPortLength` characters after a head of `headLength`. */
  function hashedInKernel(headLength: number, hostPortLength: number): boolean {
    return headLength + hostPortLength <= MESSAGE_MAX;
  }

  /** Record indices of a load-balancing list that is not the records' own order. */
  function putIndex(k: number, record: number): void {
    words[(indices >> 2) + k] = record;
  }

  /**
   * Prints a large cluster's load-balancing rules into the batch's nat text: `ruleHead`
   * (`-A KUBE-SVC-…`), then per endpoint k of `count` the statistic text `statistic(count - k)`
   * (none for the last), the chain name of record k (of record putIndex(k) when `indexed`). False,
   * printing nothing, when a text is too long for the kernel or not ASCII. `statisticKey` says
   * which texts `statistic` gives (the table is kept while it is the same).
   */
  function printLoadBalancing(
    ruleHead: string,
    count: number,
    indexed: boolean,
    statistic: (denominator: number) => string,
    key: unknown,
  ): boolean {
    const k = kernel;
    // The table was laid out for the batch (or, in an arena, for the ports it expects).
    if (count + 1 > statisticCapacity) return false;
    if (ruleHead.length > TEXT_MAX || !putText(RULE_HEAD_AT, ruleHead)) return false;
    if (key !== statisticKey) {
      statisticKey = key;
      statisticFilled = 1;
    }
    for (let n = statisticFilled + 1; n <= count; n++) {
      const text = statistic(n);
      const entry = STATISTICS + STATISTIC_ENTRY * n;
      if (text.length > STATISTIC_MAX || !putText(entry, text)) {
        statisticFilled = 1;
        return false;
      }
      bytes[entry + STATISTIC_ENTRY - 1] = text.length;
      statisticFilled = n;
    }
    ensureMemory(natAt + count * (ruleHead.length + STATISTIC_ENTRY + 48) + 64);
    natAt = k.printLoadBalancing(natAt, ruleHead.length, records, indexed ? indices : 0, count);
    return true;
  }

  /**
   * Prints the chain declarations and the two rules of the chains of records 0 .. count-1 (see
   * printEndpointChains in tools/wasm-kernel/src/kernel-emitter.ts). False, printing nothing, when a template is too long
   * for the kernel or not ASCII.
   */
  function printEndpointChains(templateA: string, templateB: string, count: number): boolean {
    const k = kernel;
    if (templateA.length > TEXT_MAX || templateB.length > TEXT_MAX) return false;
    if (session && declAt + DECL_LINE * count > declLimit) return false;
    // Most service ports of a large cluster have the same two templates: written when they change.
    if (templateA !== templates[0] || templateB !== templates[1]) {
      templates[0] = templates[1] = undefined;
      if (!putText(TEMPLATE_A_AT, templateA) || !putText(TEMPLATE_B_AT, templateB)) return false;
      templates[0] = templateA;
      templates[1] = templateB;
    }
    ensureMemory(natAt + count * (templateA.length + templateB.length + 2 * HOSTPORT_MAX + 96) + 64);
    natAt = k.printEndpointChains(natAt, declAt, records, count, templateA.length, templateB.length);
    declAt += DECL_LINE * count;
    return true;
  }

  /** The nat rules printed since beginRecords, as one string. */
  function takeRules(): string {
    return natAt === natStart ? '' : decoder.decode(bytes.subarray(natStart, natAt));
  }

  /** The chain declarations printed since beginRecords, as one string. */
  function takeDeclarations(): string {
    return declAt === declStart ? '' : decoder.decode(bytes.subarray(declStart, declAt));
  }

  /** Where the printed output stands, to undo a block that failed half way. */
  function outputMark(): number {
    return natAt;
  }

  /** Undoes what was printed since `natMark` and `declMark` (outputMark and declarationMark). */
  function resetOutput(natMark: number, declMark: number): void {
    natAt = natMark;
    declAt = declMark;
  }

  function declarationMark(): number {
    return declAt;
  }

  /**
   * Starts a text session for a render whose service ports have at most `maxEndpoints`
   * endpoints and whose chain declarations take at most `declBound` bytes. Until finishBytes, the
   * kernel's blocks and the declStream/natStream writers print into the session's regions.
   */
  function beginText(maxEndpoints: number, declBound: number): void {
    writeConstants();
    let base: number;
    if (arena) {
      // After the arena's records, which the render prints from.
      base = arenaTop;
    } else {
      if (maxEndpoints + 1 > statisticCapacity) statisticCapacity = Math.max(maxEndpoints + 1, statisticCapacity * 2, 64);
      base = align16(STATISTICS + STATISTIC_ENTRY * statisticCapacity);
    }
    sessionRecords = base;
    records = base;
    indices = records + RECORD * maxEndpoints + 64;
    declStart = align16(indices + 4 * maxEndpoints + 16);
    declAt = declStart;
    declLimit = declStart + declBound;
    natStart = align16(declLimit + 64);
    natAt = natStart;
    ensureMemory(natStart + (1 << 16));
    session = true;
    sessionCapacity = maxEndpoints;
    sessionFailed = false;
  }

  /** Ends a session without a text (a render that gave up). */
  function abortText(): void {
    session = false;
  }

  /** Writes `text` at `at`, one byte per UTF-16 unit; false when a unit is not ASCII (the bytes are then not the text). */
  function putAscii(at: number, text: string): boolean {
    const b = bytes;
    let units = 0;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      units |= unit;
      b[at + i] = unit;
    }
    return units <= 0x7f;
  }

  /** The chain declarations' stream of the session (bounded by beginText's declBound). */
  const declStream: TextOut = {
    text(text: string): void {
      const n = text.length;
      const at = declAt;
      if (at + n > declLimit) {
        sessionFailed = true;
        return;
      }
      if (!putAscii(at, text)) sessionFailed = true;
      declAt = at + n;
    },
    constant: declConstant,
  };

  /** The session's chain declarations, appended a registered text (a kernel copy, no loop over its characters). */
  function declConstant(constant: Constant): void {
    const n = constant.text.length;
    if (declAt + n > declLimit) {
      sessionFailed = true;
      return;
    }
    declAt = kernel.copyText(declAt, constant.at, n);
  }

  /** The session's nat rules, appended a registered text. */
  function natConstant(constant: Constant): void {
    const n = constant.text.length;
    if (natAt + n + 64 > bytes.length) ensureMemory(Math.max(natAt + n + 64, bytes.length * 2));
    natAt = kernel.copyText(natAt, constant.at, n);
  }

  /** The nat rules' stream of the session (grows the memory as it needs). */
  const natStream: TextOut = {
    text(text: string): void {
      const n = text.length;
      const at = natAt;
      if (at + n + 64 > bytes.length) ensureMemory(Math.max(at + n + 64, bytes.length * 2));
      if (!putAscii(at, text)) sessionFailed = true;
      natAt = at + n;
    },
    constant: natConstant,
  };

  /** Byte offsets of the session's declarations and nat rules so far, from their regions' starts. */
  function declOffset(): number {
    return declAt - declStart;
  }
  function natOffset(): number {
    return natAt - natStart;
  }

  /** Ends the session: its two regions, as views of the memory (no text made). */
  function finishBytes(): SessionBytes | undefined {
    session = false;
    if (sessionFailed) return undefined;
    return { decl: bytes.subarray(declStart, declAt), nat: bytes.subarray(natStart, natAt) };
  }

  for (const [at, text] of CONSTANT_TEXTS) putText(at, text);
  writeConstants();
  return {
    beginRecords,
    putRecord,
    putEndpoint,
    expandRecords,
    putRecordName,
    recordName,
    recordHashes,
    recordHash,
    hashRecords,
    hashedInKernel,
    putIndex,
    printLoadBalancing,
    printEndpointChains,
    takeRules,
    takeDeclarations,
    outputMark,
    declarationMark,
    resetOutput,
    openArena,
    closeArena,
    recordsAt,
    usePlacedRecords,
    beginText,
    abortText,
    declStream,
    natStream,
    declOffset,
    natOffset,
    finishBytes,
  };
}
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The bytes of standard base64 text. */
export function base64Bytes(text: string): Uint8Array {
  const values = new Uint8Array(128);
  for (let i = 0; i < BASE64.length; i++) values[BASE64.charCodeAt(i)] = i;
  let length = text.length;
  while (length > 0 && text.charCodeAt(length - 1) === 61) length--;
  const out = new Uint8Array((length * 3) >> 2);
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < length; i++) {
    buffer = ((buffer << 6) | (values[text.charCodeAt(i) & 127] as number)) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
  }
  return out;
}
