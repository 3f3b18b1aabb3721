// The source of the WebAssembly module in sha256x4-module.ts: a SHA-256 (FIPS 180-4) that
// compresses four messages at once, one per 32-bit lane of WebAssembly's 128-bit SIMD vectors.
// The package ships the module's bytes, not this emitter (building them at load time took longer
// than the first sync it would speed up); a test re-emits them and checks that they agree.
//
// The module exports its memory and `hash(quads)`; sha256x4-layout.ts says where the messages
// and the digests are. The caller pads each message itself (0x80, zeros, 64-bit bit length);
// messages up to 119 bytes fit two blocks. Only the first 80 bits of a digest name a chain, so
// only three words of each come back.

import { QUAD_DIGEST, QUAD_MASK, QUAD_STRIDE } from './sha256x4-layout.js';

const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
  0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
  0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
  0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
  0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];
const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

// Opcodes (WebAssembly core 2.0, with the fixed-width SIMD proposal's 0xfd-prefixed ones).
const BLOCK = 0x02;
const LOOP = 0x03;
const IF = 0x04;
const ELSE = 0x05;
const END = 0x0b;
const BR = 0x0c;
const BR_IF = 0x0d;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const I32_CONST = 0x41;
const I32_EQZ = 0x45;
const I32_EQ = 0x46;
const I32_ADD = 0x6a;
const I32_SUB = 0x6b;
const VOID = 0x40;
const TYPE_I32 = 0x7f;
const TYPE_V128 = 0x7b;
const SIMD = 0xfd;
const V128_LOAD = 0x00;
const V128_STORE = 0x0b;
const V128_CONST = 0x0c;
const V128_OR = 0x50;
const V128_XOR = 0x51;
const V128_BITSELECT = 0x52;
const V128_ANY_TRUE = 0x53;
const I32X4_SHL = 0xab;
const I32X4_SHR_U = 0xad;
const I32X4_ADD = 0xae;
/** log2 of a v128 access's alignment. */
const ALIGN_16 = 4;

function unsignedLEB(n: number): number[] {
  const out: number[] = [];
  let rest = n >>> 0;
  do {
    let byte = rest & 0x7f;
    rest >>>= 7;
    if (rest !== 0) byte |= 0x80;
    out.push(byte);
  } while (rest !== 0);
  return out;
}

function signedLEB(n: number): number[] {
  const out: number[] = [];
  let rest = n | 0;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    if ((rest === 0 && (byte & 0x40) === 0) || (rest === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

/** The function body's instructions, appended one at a time. */
class Code {
  readonly bytes: number[] = [];
  op(...bytes: number[]): void {
    for (const b of bytes) this.bytes.push(b);
  }
  get(local: number): void {
    this.op(LOCAL_GET, ...unsignedLEB(local));
  }
  set(local: number): void {
    this.op(LOCAL_SET, ...unsignedLEB(local));
  }
  i32(n: number): void {
    this.op(I32_CONST, ...signedLEB(n));
  }
  simd(op: number): void {
    this.op(SIMD, ...unsignedLEB(op));
  }
  /** A vector of four copies of the 32-bit `n`. */
  splat(n: number): void {
    this.simd(V128_CONST);
    for (let lane = 0; lane < 4; lane++) for (let byte = 0; byte < 4; byte++) this.op((n >>> (8 * byte)) & 0xff);
  }
  /** v128.load from the address in `pointer` plus `offset`. */
  load(pointer: number, offset: number): void {
    this.get(pointer);
    this.simd(V128_LOAD);
    this.op(ALIGN_16, ...unsignedLEB(offset));
  }
  /** v128.store (the address and the value are on the stack). */
  store(offset: number): void {
    this.simd(V128_STORE);
    this.op(ALIGN_16, ...unsignedLEB(offset));
  }
  rotr(local: number, n: number): void {
    this.get(local);
    this.i32(n);
    this.simd(I32X4_SHR_U);
    this.get(local);
    this.i32(32 - n);
    this.simd(I32X4_SHL);
    this.simd(V128_OR);
  }
  shr(local: number, n: number): void {
    this.get(local);
    this.i32(n);
    this.simd(I32X4_SHR_U);
  }
  /** rotr(x, r1) ^ rotr(x, r2) ^ (third < 0 ? x >>> -third : rotr(x, third)): the four Σ/σ functions. */
  sigma(local: number, r1: number, r2: number, third: number): void {
    this.rotr(local, r1);
    this.rotr(local, r2);
    this.simd(V128_XOR);
    if (third < 0) this.shr(local, -third);
    else this.rotr(local, third);
    this.simd(V128_XOR);
  }
}

// Locals: the parameter, then two i32s, then the vectors.
const QUADS = 0;
const POINTER = 1;
const BLOCK_POINTER = 2;
const STATE = 3; // a..h: 3..10
const W = 11; // the message schedule's last 16 words: 11..26
const T1 = 27;
const CHAIN = 28; // the chaining value: 28..35
const MASK = 36;
const I32_LOCALS = 2;
const V128_LOCALS = 34;

/** The 64 rounds of one compression, on the state a..h (locals), with the block's words in W. */
function rounds(code: Code): void {
  // Which local holds a, b, … h: renamed each round instead of moving values.
  let names = [0, 1, 2, 3, 4, 5, 6, 7];
  for (let t = 0; t < 64; t++) {
    const w = W + (t % 16);
    if (t >= 16) {
      // W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], in place of W[t-16].
      code.sigma(W + ((t - 2) % 16), 17, 19, -10);
      code.get(W + ((t - 7) % 16));
      code.simd(I32X4_ADD);
      code.sigma(W + ((t - 15) % 16), 7, 18, -3);
      code.simd(I32X4_ADD);
      code.get(w);
      code.simd(I32X4_ADD);
      code.set(w);
    }
    const [a, b, c, d, e, f, g, h] = names.map((i) => STATE + i) as [number, number, number, number, number, number, number, number];
    // T1 = h + Σ1(e) + Ch(e, f, g) + K[t] + W[t]; Ch is a bit select of f and g by e.
    code.get(h);
    code.sigma(e, 6, 11, 25);
    code.simd(I32X4_ADD);
    code.get(f);
    code.get(g);
    code.get(e);
    code.simd(V128_BITSELECT);
    code.simd(I32X4_ADD);
    code.splat(K[t] as number);
    code.simd(I32X4_ADD);
    code.get(w);
    code.simd(I32X4_ADD);
    code.set(T1);
    // d + T1 becomes the new e.
    code.get(d);
    code.get(T1);
    code.simd(I32X4_ADD);
    code.set(d);
    // T1 + Σ0(a) + Maj(a, b, c) becomes the new a; Maj is c where a and b differ, else a.
    code.get(T1);
    code.sigma(a, 2, 13, 22);
    code.simd(I32X4_ADD);
    code.get(c);
    code.get(a);
    code.get(a);
    code.get(b);
    code.simd(V128_XOR);
    code.simd(V128_BITSELECT);
    code.simd(I32X4_ADD);
    code.set(h);
    names = [names[7], names[0], names[1], names[2], names[3], names[4], names[5], names[6]] as number[];
  }
}

/** `hash(quads)`: hashes quads 0 .. quads-1 (see the file comment). */
function hashBody(): number[] {
  const code = new Code();
  code.op(BLOCK, VOID);
  code.op(LOOP, VOID); // per quad
  code.get(QUADS);
  code.op(I32_EQZ, BR_IF, 1);
  for (let i = 0; i < 8; i++) {
    code.splat(IV[i] as number);
    code.set(CHAIN + i);
  }
  code.get(POINTER);
  code.set(BLOCK_POINTER);
  code.op(LOOP, VOID); // per block: once, or twice when a lane needs it
  for (let i = 0; i < 8; i++) {
    code.get(CHAIN + i);
    code.set(STATE + i);
  }
  for (let t = 0; t < 16; t++) {
    code.load(BLOCK_POINTER, 16 * t);
    code.set(W + t);
  }
  rounds(code);
  for (let i = 0; i < 8; i++) {
    code.get(STATE + i);
    code.get(CHAIN + i);
    code.simd(I32X4_ADD);
    code.set(CHAIN + i);
  }
  code.get(BLOCK_POINTER);
  code.get(POINTER);
  code.op(I32_EQ, IF, VOID);
  // After block 1: its digest goes out; a second block follows if any lane has one.
  for (let i = 0; i < 3; i++) {
    code.get(POINTER);
    code.get(CHAIN + i);
    code.store(QUAD_DIGEST + 16 * i);
  }
  code.load(POINTER, QUAD_MASK);
  code.set(MASK);
  code.get(MASK);
  code.simd(V128_ANY_TRUE);
  code.op(IF, VOID);
  code.get(POINTER);
  code.i32(256);
  code.op(I32_ADD);
  code.set(BLOCK_POINTER);
  code.op(BR, 2); // to the block loop
  code.op(END);
  code.op(ELSE);
  // After block 2: the two-block lanes take its digest, the others keep block 1's.
  for (let i = 0; i < 3; i++) {
    code.get(POINTER);
    code.get(CHAIN + i);
    code.load(POINTER, QUAD_DIGEST + 16 * i);
    code.get(MASK);
    code.simd(V128_BITSELECT);
    code.store(QUAD_DIGEST + 16 * i);
  }
  code.op(END); // if
  code.op(END); // block loop
  code.get(POINTER);
  code.i32(QUAD_STRIDE);
  code.op(I32_ADD);
  code.set(POINTER);
  code.get(QUADS);
  code.i32(1);
  code.op(I32_SUB);
  code.set(QUADS);
  code.op(BR, 0); // to the quad loop
  code.op(END); // quad loop
  code.op(END); // block
  code.op(END); // function
  // Two runs of local declarations: the i32s, then the vectors.
  return [2, ...unsignedLEB(I32_LOCALS), TYPE_I32, ...unsignedLEB(V128_LOCALS), TYPE_V128, ...code.bytes];
}

function section(id: number, bytes: readonly number[]): number[] {
  return [id, ...unsignedLEB(bytes.length), ...bytes];
}

function name(text: string): number[] {
  return [...unsignedLEB(text.length), ...Array.from(text, (c) => c.charCodeAt(0))];
}

/** The module's bytes. */
export function emitSha256x4Module(): Uint8Array {
  const body = hashBody();
  const FUNC = 0x60;
  const MEMORY_EXPORT = 0x02;
  const FUNC_EXPORT = 0x00;
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, FUNC, 1, TYPE_I32, 0]), // type 0: (i32) -> ()
    ...section(3, [1, 0]), // function 0 has type 0
    ...section(5, [1, 0x00, 1]), // one memory, at least one page, no maximum
    ...section(7, [2, ...name('memory'), MEMORY_EXPORT, 0, ...name('hash'), FUNC_EXPORT, 0]),
    ...section(10, [1, ...unsignedLEB(body.length), ...body]),
  ]);
}
