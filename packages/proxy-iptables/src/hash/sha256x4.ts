// Chain-name hashes four at a time: the SHA-256 of sha256x4-emitter.ts, run as WebAssembly SIMD
// (one message per 32-bit lane). A large sync names one KUBE-SEP- chain per endpoint, and this
// takes about a fifth of the time per name of the scalar code in short-hash.ts. The caller puts
// up to SLOTS messages into slots, hashes them with one call and reads each slot's name.
// WebAssembly is a global of the language's host, like TextEncoder: no I/O, and the module is
// pure computation on its own memory. Where it is missing or refuses the module (a runtime
// without SIMD, `node --jitless`), `simdHashing()` is false and callers take the scalar path.

import { prefixedBase32Words } from './sha256-block.js';
import { QUAD_DIGEST, QUAD_MASK, QUAD_STRIDE, QUADS_PER_CALL } from './sha256x4-layout.js';
import { SHA256X4_MODULE_BASE64 } from './sha256x4-module.js';

/** Messages one hashSlots call takes. */
export const SLOTS = QUADS_PER_CALL * 4;
/** The longest message a slot holds: two blocks with its 0x80 byte and 64-bit length. */
export const SLOT_MAX_LENGTH = 119;

const STRIDE_WORDS = QUAD_STRIDE / 4;
const MASK_WORD = QUAD_MASK / 4;
const DIGEST_WORD = QUAD_DIGEST / 4;

/** The part of the WebAssembly API used here (the package's TypeScript libraries do not declare it). */
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
}

interface Engine {
  /** The module's memory, as 32-bit words. */
  readonly words: Int32Array;
  readonly hash: (quads: number) => void;
}

/** undefined: not tried yet; null: unavailable. Instantiated on first use, so that a caller that never hashes never pays for it. */
let engine: Engine | null | undefined;
let enabled = true;

function instantiate(): Engine | null {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (wasm === undefined) return null;
  try {
    const instance = new wasm.Instance(new wasm.Module(base64Bytes(SHA256X4_MODULE_BASE64)), {});
    const memory = instance.exports['memory'] as { readonly buffer: ArrayBuffer };
    const hash = instance.exports['hash'] as (quads: number) => void;
    return { words: new Int32Array(memory.buffer), hash };
  } catch {
    return null;
  }
}

function engineOf(): Engine | null {
  if (!enabled) return null;
  if (engine === undefined) engine = instantiate();
  return engine;
}

/** Whether the SIMD path is there; callers hash with the scalar code otherwise. */
export function simdHashing(): boolean {
  return engineOf() !== null;
}

/**
 * Turns the SIMD path off (or on again), so that tests and benchmarks can compare it with the
 * scalar path in one process.
 */
export function setSimdHashing(on: boolean): void {
  enabled = on;
}

/**
 * Puts the message a + b + c, padded, into `slot` (0 .. SLOTS-1). False, leaving the slot's
 * result meaningless, when the message is not ASCII or longer than SLOT_MAX_LENGTH: the caller
 * names it with the scalar code. Call only while simdHashing() is true.
 */
export function putMessage(slot: number, a: string, b: string, c: string): boolean {
  const n = a.length + b.length + c.length;
  if (n > SLOT_MAX_LENGTH) return false;
  const words = (engine as Engine).words;
  const quad = (slot >> 2) * STRIDE_WORDS;
  const lane = slot & 3;
  // Word t of this slot's message is words[base + 4t].
  const base = quad + lane;
  let at = base;
  let word = 0;
  let shift = 24;
  let units = 0;
  for (let part = 0; part < 3; part++) {
    const text = part === 0 ? a : part === 1 ? b : c;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      units |= unit;
      word |= unit << shift;
      if (shift === 0) {
        words[at] = word;
        at += 4;
        word = 0;
        shift = 24;
      } else {
        shift -= 8;
      }
    }
  }
  if (units > 0x7f) return false;
  words[at] = word | (0x80 << shift);
  at += 4;
  const blocks = n <= 55 ? 1 : 2;
  const last = base + 4 * (16 * blocks - 1);
  while (at < last) {
    words[at] = 0;
    at += 4;
  }
  // The bit length: its high word is 0 (written above), its low word n · 8.
  words[last] = n * 8;
  words[quad + MASK_WORD + lane] = blocks === 2 ? -1 : 0;
  return true;
}

/** Hashes slots 0 .. count-1. */
export function hashSlots(count: number): void {
  (engine as Engine).hash((count + 3) >> 2);
}

/** `prefix` (nine characters) and the first 16 base32 characters of the digest of `slot`, after hashSlots. */
export function slotName(prefix: string, slot: number): string {
  const words = (engine as Engine).words;
  const at = (slot >> 2) * STRIDE_WORDS + DIGEST_WORD + (slot & 3);
  return prefixedBase32Words(prefix, words[at] as number, words[at + 4] as number, words[at + 8] as number);
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The bytes of unpadded-or-padded standard base64 text. */
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
