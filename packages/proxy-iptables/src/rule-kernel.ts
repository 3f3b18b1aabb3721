// The fast kernel as the rule code sees it: a value passed in the proxier config
// (ProxierConfigOptions.kernel), never a switch of the package. `@kubesvc/proxy-iptables/wasm`'s
// loadKernel() makes the WebAssembly one (wasm/kernel.ts); without a kernel every path is the
// pure-JavaScript one, and the texts and names are the same bytes either way
// (INV-IPT-WASM-TEXT). The main entry point loads no WebAssembly: this file holds only the
// interface and the texts the printer registers for the kernel to copy (generate/print-restore.ts).

import { JS_CONSTANTS, JS_CONSTANTS_SIZE } from './wasm/kernel-layout.js';

/** A text the kernel copies into its output (declConstant, natConstant): registered once, at module load. */
export interface Constant {
  readonly text: string;
  /** Where it is in the kernel's memory. */
  readonly at: number;
}

/** Something text is printed into (generate/print-restore.ts): the kernel's streams, a byte buffer (text-bytes.ts) or a string. */
export interface TextOut {
  /** Appends `text`, which should be ASCII (a text that is not fails the session). */
  text(text: string): void;
  /** Appends a registered text (registerConstant). */
  constant(constant: Constant): void;
}

const constants: Constant[] = [];
let constantsTop = JS_CONSTANTS;

/**
 * Registers an ASCII text for the streams' constant() (call at module load). A kernel writes
 * the texts registered so far into its memory when it starts and any later ones when a text
 * session begins.
 */
export function registerConstant(text: string): Constant {
  if (constantsTop + text.length + 16 > JS_CONSTANTS + JS_CONSTANTS_SIZE) throw new Error('registerConstant: no room left');
  const constant = { text, at: constantsTop };
  constantsTop = (constantsTop + text.length + 16 + 15) & ~15;
  constants.push(constant);
  return constant;
}

/** The texts registered so far, in order. */
export function registeredConstants(): readonly Constant[] {
  return constants;
}

/**
 * The fast kernel (see the file's opening comment): it hashes chain names in batches and
 * prints a large cluster's per-endpoint lines and whole texts in its own memory. Its members
 * are the rule code's; a caller only makes one (loadKernel) and passes it in the config. One
 * kernel serves one render at a time (renders are synchronous).
 */
export interface RuleKernel {
  /** Starts a batch of `count` endpoint records (one service port's). */
  beginRecords(count: number): void;
  /** Record i: `hostPort` and where the IP is in it; false when the kernel cannot take it. */
  putRecord(i: number, hostPort: string, ipOffset: number, ipLength: number): boolean;
  /** Record i: an endpoint's `ip:port` from its parts; false when the kernel cannot take it. */
  putEndpoint(i: number, ip: string, ipv4: number, port: number, portSuffix: string, bracketed: boolean): boolean;
  /** Writes the `ip:port` text of the records putEndpoint gave as numbers. */
  expandRecords(count: number): void;
  /** Puts a known chain name (`KUBE-SEP-` and 16 characters) into record i. */
  putRecordName(i: number, name: string): void;
  /** The record's chain name, `KUBE-SEP-` and its 16 characters. */
  recordName(i: number): string;
  /** The 16 hash characters of records 0 .. count-1, one after the other. */
  recordHashes(count: number): string;
  /** The record's 16 hash characters. */
  recordHash(i: number): string;
  /** Hashes `head` + each record's `ip:port` into the records' names; false, doing nothing, when it cannot. */
  hashRecords(head: string, count: number): boolean;
  /** Whether hashRecords names a record of `hostPortLength` characters after a head of `headLength`. */
  hashedInKernel(headLength: number, hostPortLength: number): boolean;
  /** Record indices of a load-balancing list that is not the records' own order. */
  putIndex(k: number, record: number): void;
  /** Prints a large cluster's load-balancing rules; false, printing nothing, when it cannot. */
  printLoadBalancing(ruleHead: string, count: number, indexed: boolean, statistic: (denominator: number) => string, key: unknown): boolean;
  /** Prints the records' chain declarations and their two rules; false, printing nothing, when it cannot. */
  printEndpointChains(templateA: string, templateB: string, count: number): boolean;
  /** The nat rules printed since beginRecords. */
  takeRules(): string;
  /** The chain declarations printed since beginRecords. */
  takeDeclarations(): string;
  outputMark(): number;
  declarationMark(): number;
  /** Undoes what was printed since the marks. */
  resetOutput(natMark: number, declMark: number): void;
  /** Opens an arena: batches of records stay until closeArena. */
  openArena(maxEndpoints: number): void;
  closeArena(): void;
  /** Where the current batch's records are. */
  recordsAt(): number;
  /** Makes records put earlier in the open arena the current batch. */
  usePlacedRecords(at: number): void;
  /** Starts a text session. */
  beginText(maxEndpoints: number, declBound: number): void;
  /** Ends a session without a text. */
  abortText(): void;
  /** The session's chain declarations' stream. */
  readonly declStream: TextOut;
  /** The session's nat rules' stream. */
  readonly natStream: TextOut;
  declOffset(): number;
  natOffset(): number;
  /**
   * Ends the session without making a text: the bytes of its chain declarations and of its nat
   * rules, views of the kernel's memory valid until its next use; undefined when the session
   * failed (the caller then renders without the kernel).
   */
  finishBytes(): SessionBytes | undefined;
}

/** What finishBytes gives: the two regions of a text session, as bytes. */
export interface SessionBytes {
  readonly decl: Uint8Array;
  readonly nat: Uint8Array;
}
