// The source of the WebAssembly kernel in kernel-module.ts: what a large sync does once per
// endpoint, in bulk, on bytes. It names each endpoint's KUBE-SEP- chain (a SHA-256 per endpoint,
// FIPS 180-4, computed for four endpoints at once in the 32-bit lanes of 128-bit vectors, and the
// base32 of its first 80 bits) and prints the endpoint's lines of a large cluster: the
// load-balancing rule, the chain declaration and the chain's two rules. JavaScript writes each
// endpoint's `ip:port` and the service port's texts into the kernel's memory, calls it once per
// service port and decodes the printed text into one string. kernel-layout.ts has the memory map.
//
// The package ships the module's bytes, not this emitter (building them at load time costs more
// than a small first sync); a test emits them again and checks that they are the shipped ones.
// upstream: pkg/proxy/iptables/proxier.go (servicePortEndpointChainName: base32 of sha256,
// first 16 characters; writeServiceToEndpointRules; the endpoint chain rules of syncProxyRules).

import {
  FunctionCode,
  I32,
  I32_ADD,
  I32_AND,
  I32_DIV_U,
  I32_REM_U,
  I32_EQ,
  I32_EQZ,
  I32_GE_U,
  I32_LT_U,
  I32_MUL,
  I32_OR,
  I32_SHL,
  I32_SHR_U,
  I32_SUB,
  SELECT,
  I32X4_ADD,
  I32X4_SHL,
  I32X4_SHR_U,
  V128,
  V128_ANY_TRUE,
  V128_BITSELECT,
  V128_OR,
  V128_XOR,
  assembleModule,
} from './assembler.js';
// proxy-iptables' memory map and @kubesvc/proxy's SHA-256 constants, by path: they are internal,
// not exported, and build-time tooling may read a package's sources.
// eslint-disable-next-line @nx/enforce-module-boundaries -- see above
import {
  ALPHABET_AT,
  DECL_HEAD_AT,
  DECL_TAIL_AT,
  HASH_HEAD_AT,
  LAST_JUMP_AT,
  MASQ_AT,
  MESSAGE_MAX,
  QUAD_DIGEST,
  QUAD_MASK,
  QUAD_STRIDE,
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
  SCRATCH,
  SEP_HEAD_AT,
  SEP_PREFIX_AT,
  STATISTIC_ENTRY,
  STATISTICS,
  TEMPLATE_A_AT,
  TEMPLATE_B_AT,
} from '../../../packages/proxy-iptables/src/wasm/kernel-layout.js';
// eslint-disable-next-line @nx/enforce-module-boundaries -- see above
import { SHA256_IV, SHA256_K } from '../../../packages/proxy/src/hash/sha256-block.js';

function rotr(code: FunctionCode, local: number, n: number): void {
  code.get(local).i32(n).simd(I32X4_SHR_U).get(local).i32(32 - n).simd(I32X4_SHL).simd(V128_OR);
}

/** rotr(x, r1) ^ rotr(x, r2) ^ (third < 0 ? x >>> -third : rotr(x, third)): the four Σ/σ functions. */
function sigma(code: FunctionCode, local: number, r1: number, r2: number, third: number): void {
  rotr(code, local, r1);
  rotr(code, local, r2);
  code.simd(V128_XOR);
  if (third < 0) code.get(local).i32(-third).simd(I32X4_SHR_U);
  else rotr(code, local, third);
  code.simd(V128_XOR);
}

/**
 * `hash(quads)`: SHA-256 of the four messages of each of quads 0 .. quads-1, in place (see
 * kernel-layout.ts). The message schedule's last 16 words and the state a..h live in locals, and
 * the 64 rounds are unrolled with the state's locals renamed each round instead of moved.
 */
function hashFunction(): FunctionCode {
  const code = new FunctionCode([I32], []);
  const quads = 0;
  const pointer = code.local(I32);
  const blockPointer = code.local(I32);
  const state = Array.from({ length: 8 }, () => code.local(V128));
  const w = Array.from({ length: 16 }, () => code.local(V128));
  const t1 = code.local(V128);
  const chain = Array.from({ length: 8 }, () => code.local(V128));
  const mask = code.local(V128);

  const rounds = (): void => {
    let names = [0, 1, 2, 3, 4, 5, 6, 7];
    for (let t = 0; t < 64; t++) {
      const wt = w[t % 16] as number;
      if (t >= 16) {
        // W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], in place of W[t-16].
        sigma(code, w[(t - 2) % 16] as number, 17, 19, -10);
        code.get(w[(t - 7) % 16] as number).simd(I32X4_ADD);
        sigma(code, w[(t - 15) % 16] as number, 7, 18, -3);
        code.simd(I32X4_ADD).get(wt).simd(I32X4_ADD).set(wt);
      }
      const [a, b, c, d, e, f, g, h] = names.map((i) => state[i] as number) as [number, number, number, number, number, number, number, number];
      // T1 = h + Σ1(e) + Ch(e, f, g) + K[t] + W[t]; Ch is a bit select of f and g by e.
      code.get(h);
      sigma(code, e, 6, 11, 25);
      code.simd(I32X4_ADD).get(f).get(g).get(e).simd(V128_BITSELECT).simd(I32X4_ADD);
      code.splat32(SHA256_K[t] as number).simd(I32X4_ADD).get(wt).simd(I32X4_ADD).set(t1);
      // d + T1 becomes the new e.
      code.get(d).get(t1).simd(I32X4_ADD).set(d);
      // T1 + Σ0(a) + Maj(a, b, c) becomes the new a; Maj is c where a and b differ, else a.
      code.get(t1);
      sigma(code, a, 2, 13, 22);
      code.simd(I32X4_ADD).get(c).get(a).get(a).get(b).simd(V128_XOR).simd(V128_BITSELECT).simd(I32X4_ADD).set(h);
      names = [names[7], names[0], names[1], names[2], names[3], names[4], names[5], names[6]] as number[];
    }
  };

  code.block(() => {
    code.loop(() => {
      // per quad
      code.get(quads).op(I32_EQZ).brIf(1);
      for (let i = 0; i < 8; i++) code.splat32(SHA256_IV[i] as number).set(chain[i] as number);
      code.get(pointer).set(blockPointer);
      code.loop(() => {
        // per block: once, or twice when a lane needs it
        for (let i = 0; i < 8; i++) code.get(chain[i] as number).set(state[i] as number);
        for (let t = 0; t < 16; t++) code.get(blockPointer).loadV128(16 * t).set(w[t] as number);
        rounds();
        for (let i = 0; i < 8; i++) code.get(state[i] as number).get(chain[i] as number).simd(I32X4_ADD).set(chain[i] as number);
        code.get(blockPointer).get(pointer).op(I32_EQ); // after block 1?
        code.ifElse(
          () => {
            // Block 1's digest goes out; a second block follows if any lane has one.
            for (let i = 0; i < 3; i++) code.get(pointer).get(chain[i] as number).storeV128(QUAD_DIGEST + 16 * i);
            code.get(pointer).loadV128(QUAD_MASK).set(mask);
            code.get(mask).simd(V128_ANY_TRUE);
            code.ifElse(() => {
              code.get(pointer).i32(256).op(I32_ADD).set(blockPointer);
              code.br(2); // to the block loop
            });
          },
          () => {
            // After block 2: the two-block lanes take its digest, the others keep block 1's.
            for (let i = 0; i < 3; i++) {
              code.get(pointer).get(chain[i] as number).get(pointer).loadV128(QUAD_DIGEST + 16 * i).get(mask).simd(V128_BITSELECT);
              code.storeV128(QUAD_DIGEST + 16 * i);
            }
          },
        );
      });
      code.get(pointer).i32(QUAD_STRIDE).op(I32_ADD).set(pointer);
      code.get(quads).i32(1).op(I32_SUB).set(quads);
      code.br(0);
    });
  });
  return code;
}

/**
 * Copies `length` bytes (a local) from the address `source` pushes to the address in `target`
 * (a local), 16 at a time, then advances `target` by `length`. Copies at least 16 bytes and
 * writes up to 15 past the end: callers leave that much slack, and whatever is written there is
 * overwritten by what follows or lies past the text's end.
 */
function copy(code: FunctionCode, target: number, source: () => void, length: number, scratch: number): void {
  code.i32(0).set(scratch);
  code.loop(() => {
    code.get(target).get(scratch).op(I32_ADD);
    source();
    code.get(scratch).op(I32_ADD).loadV128();
    code.storeV128();
    code.get(scratch).i32(16).op(I32_ADD).tee(scratch).get(length).op(I32_LT_U).brIf(0);
  });
  code.get(target).get(length).op(I32_ADD).set(target);
}

/** copy() of a fixed text of `length` ≤ 32 bytes at `at`: one or two vector moves. */
function copyFixed(code: FunctionCode, target: number, at: number, length: number): void {
  for (let offset = 0; offset < length; offset += 16) code.get(target).i32(at + offset).loadV128().storeV128(offset);
  code.get(target).i32(length).op(I32_ADD).set(target);
}

/** The 16 name characters of an endpoint record (a vector move). */
function copyName(code: FunctionCode, target: number, record: number): void {
  code.get(target).get(record).loadV128(RECORD_NAME).storeV128();
  code.get(target).i32(16).op(I32_ADD).set(target);
}

/**
 * `prepare(headLength, records, count)`: the messages of records 0 .. count-1 (the head at
 * HASH_HEAD_AT, then the record's `ip:port`), padded, into slots 0 .. count-1 of the quads. A
 * message longer than MESSAGE_MAX is replaced by the empty one (JavaScript names such endpoints
 * itself).
 */
function prepareFunction(): FunctionCode {
  const code = new FunctionCode([I32, I32, I32], []);
  const [headLength, records, count] = [0, 1, 2];
  const slot = code.local(I32);
  const record = code.local(I32);
  const length = code.local(I32);
  const target = code.local(I32);
  const scratch = code.local(I32);
  const tail = code.local(I32);
  const lane = code.local(I32);
  const words = code.local(I32);
  const row = code.local(I32);
  const at = code.local(I32);
  const zero = code.local(V128);
  const swapped = code.local(V128);
  // Reverses the bytes of each 32-bit lane: message words are big-endian.
  const bswap = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];
  code.get(records).set(record);
  code.block(() => {
    code.loop(() => {
      code.get(slot).get(count).op(I32_GE_U).brIf(1);
      for (let i = 0; i < 128; i += 16) code.i32(SCRATCH).get(zero).storeV128(i);
      code.get(record).loadU8(RECORD_HOSTPORT_LENGTH).set(tail);
      code.get(headLength).get(tail).op(I32_ADD).set(length);
      code.get(length).i32(MESSAGE_MAX + 1).op(I32_GE_U);
      code.ifElse(
        () => code.i32(0).set(length),
        () => {
          code.i32(SCRATCH).set(target);
          copy(code, target, () => code.i32(HASH_HEAD_AT), headLength, scratch);
          copy(code, target, () => code.get(record).i32(RECORD_HOSTPORT).op(I32_ADD), tail, scratch);
        },
      );
      // The 0x80 byte after the message, zeros after it (clearing what the copies wrote past it).
      code.i32(SCRATCH).get(length).op(I32_ADD).get(zero).storeV128();
      code.i32(SCRATCH).get(length).op(I32_ADD).i32(0x80).storeU8();
      // 16 words for a one-block message (up to 55 bytes), else 32.
      code.i32(16).i32(32).get(length).i32(56).op(I32_LT_U).op(SELECT).set(words);
      // The slot's lane in its quad: word t goes to lane + 16t.
      code.get(slot).i32(2).op(I32_SHR_U).i32(QUAD_STRIDE).op(I32_MUL);
      code.get(slot).i32(3).op(I32_AND).i32(2).op(I32_SHL).op(I32_ADD).set(lane);
      code.i32(0).set(row);
      code.loop(() => {
        // Four words at a time: byte-swapped, then one into each of four rows of the quad.
        code.i32(SCRATCH).get(row).i32(2).op(I32_SHL).op(I32_ADD).loadV128();
        code.get(zero).shuffle(bswap).set(swapped);
        code.get(lane).get(row).i32(4).op(I32_SHL).op(I32_ADD).set(at);
        for (let j = 0; j < 4; j++) code.get(at).get(swapped).storeLane32(j, 16 * j);
        code.get(row).i32(4).op(I32_ADD).tee(row).get(words).op(I32_LT_U).brIf(0);
      });
      // The bit length: the last word (the one before it, the length's high half, is zero).
      code.get(lane).get(words).i32(1).op(I32_SUB).i32(4).op(I32_SHL).op(I32_ADD).get(length).i32(3).op(I32_SHL).storeI32();
      // The two-block mask: -1 for a two-block message.
      code.get(lane).i32(-1).i32(0).get(words).i32(32).op(I32_EQ).op(SELECT).storeI32(QUAD_MASK);
      code.get(record).i32(RECORD).op(I32_ADD).set(record);
      code.get(slot).i32(1).op(I32_ADD).set(slot);
      code.br(0);
    });
  });
  return code;
}

/** The base32 character of 5-bit value on the stack (masked here). */
function base32Char(code: FunctionCode): void {
  code.i32(31).op(I32_AND).i32(ALPHABET_AT).op(I32_ADD).loadU8();
}

/** `stash(records, count)`: the 16 base32 characters of the digests of slots 0 .. count-1 into the records' names. */
function stashFunction(): FunctionCode {
  const code = new FunctionCode([I32, I32], []);
  const [records, count] = [0, 1];
  const slot = code.local(I32);
  const lane = code.local(I32);
  const h0 = code.local(I32);
  const h1 = code.local(I32);
  const h2 = code.local(I32);
  const record = code.local(I32);
  code.get(records).set(record);
  // The characters' bits, as kube-proxy's base32 of the digest reads them: [word, shift] or, for
  // a character across two words, [word, left shift, next word, right shift].
  const chars: readonly (readonly number[])[] = [
    [h0, 27], [h0, 22], [h0, 17], [h0, 12], [h0, 7], [h0, 2], [h0, -3, h1, 29],
    [h1, 24], [h1, 19], [h1, 14], [h1, 9], [h1, 4], [h1, -1, h2, 31],
    [h2, 26], [h2, 21], [h2, 16],
  ];
  code.block(() => {
    code.loop(() => {
      code.get(slot).get(count).op(I32_GE_U).brIf(1);
      code.get(slot).i32(2).op(I32_SHR_U).i32(QUAD_STRIDE).op(I32_MUL);
      code.get(slot).i32(3).op(I32_AND).i32(2).op(I32_SHL).op(I32_ADD).set(lane);
      code.get(lane).loadI32(QUAD_DIGEST).set(h0);
      code.get(lane).loadI32(QUAD_DIGEST + 16).set(h1);
      code.get(lane).loadI32(QUAD_DIGEST + 32).set(h2);
      chars.forEach((bits, k) => {
        code.get(record);
        const [word, shift, next, nextShift] = bits as [number, number, number?, number?];
        if (next === undefined) code.get(word).i32(shift).op(I32_SHR_U);
        else code.get(word).i32(-shift).op(I32_SHL).get(next).i32(nextShift as number).op(I32_SHR_U).op(I32_OR);
        base32Char(code);
        code.storeU8(RECORD_NAME + k);
      });
      code.get(record).i32(RECORD).op(I32_ADD).set(record);
      code.get(slot).i32(1).op(I32_ADD).set(slot);
      code.br(0);
    });
  });
  return code;
}

/**
 * `printLoadBalancing(out, headLength, records, indices, count) → out`: a large cluster's
 * load-balancing rules for `count` endpoints, at `out`: the rule head at RULE_HEAD_AT
 * (`-A KUBE-SVC-…`), the statistic match for 1/(count - k) from the table (none for the last
 * endpoint), ` -j KUBE-SEP-`, the name, a newline. Endpoint k is record k, or record
 * indices[k] when `indices` is not 0.
 */
function loadBalancingFunction(): FunctionCode {
  const code = new FunctionCode([I32, I32, I32, I32, I32], [I32]);
  const [out, headLength, records, indices, count] = [0, 1, 2, 3, 4];
  const k = code.local(I32);
  const record = code.local(I32);
  const entry = code.local(I32);
  const length = code.local(I32);
  const scratch = code.local(I32);
  code.block(() => {
    code.loop(() => {
      code.get(k).get(count).op(I32_GE_U).brIf(1);
      // record = records + RECORD · (indices ? indices[k] : k)
      code.get(records);
      code.get(indices).op(I32_EQZ);
      code.ifElse(
        () => code.get(k),
        () => code.get(indices).get(k).i32(2).op(I32_SHL).op(I32_ADD).loadI32(),
        I32,
      );
      code.i32(RECORD).op(I32_MUL).op(I32_ADD).set(record);
      copy(code, out, () => code.i32(RULE_HEAD_AT), headLength, scratch);
      code.get(k).i32(1).op(I32_ADD).get(count).op(I32_LT_U);
      code.ifElse(
        () => {
          code.get(count).get(k).op(I32_SUB).i32(STATISTIC_ENTRY).op(I32_MUL).i32(STATISTICS).op(I32_ADD).set(entry);
          code.get(entry).loadU8(STATISTIC_ENTRY - 1).set(length);
          copy(code, out, () => code.get(entry), length, scratch);
        },
        () => copyFixed(code, out, LAST_JUMP_AT, 4),
      );
      copyFixed(code, out, SEP_PREFIX_AT, 9);
      copyName(code, out, record);
      code.get(out).i32(10).storeU8();
      code.get(out).i32(1).op(I32_ADD).set(out);
      code.get(k).i32(1).op(I32_ADD).set(k);
      code.br(0);
    });
  });
  code.get(out);
  return code;
}

/**
 * `printEndpointChains(out, decl, records, count, lengthA, lengthB) → out`: for records 0 ..
 * count-1, the chain declaration at `decl` (DECL_LINE bytes each) and the chain's two rules at
 * `out`: `-A KUBE-SEP-…` + template A + the IP + ` -j KUBE-MARK-MASQ`, then `-A KUBE-SEP-…` +
 * template B + `ip:port` (print-restore.ts's endpointChainLines).
 */
function endpointChainsFunction(): FunctionCode {
  const code = new FunctionCode([I32, I32, I32, I32, I32, I32], [I32]);
  const [out, decl, records, count, lengthA, lengthB] = [0, 1, 2, 3, 4, 5];
  const i = code.local(I32);
  const record = code.local(I32);
  const length = code.local(I32);
  const scratch = code.local(I32);
  code.get(records).set(record);
  code.block(() => {
    code.loop(() => {
      code.get(i).get(count).op(I32_GE_U).brIf(1);
      copyFixed(code, decl, DECL_HEAD_AT, 10);
      copyName(code, decl, record);
      copyFixed(code, decl, DECL_TAIL_AT, 9);
      copyFixed(code, out, SEP_HEAD_AT, 12);
      copyName(code, out, record);
      copy(code, out, () => code.i32(TEMPLATE_A_AT), lengthA, scratch);
      code.get(record).loadU8(RECORD_IP_LENGTH).set(length);
      copy(code, out, () => code.get(record).i32(RECORD_HOSTPORT).op(I32_ADD).get(record).loadU8(RECORD_IP_OFFSET).op(I32_ADD), length, scratch);
      copyFixed(code, out, MASQ_AT, 31);
      copyName(code, out, record);
      copy(code, out, () => code.i32(TEMPLATE_B_AT), lengthB, scratch);
      code.get(record).loadU8(RECORD_HOSTPORT_LENGTH).set(length);
      copy(code, out, () => code.get(record).i32(RECORD_HOSTPORT).op(I32_ADD), length, scratch);
      code.get(out).i32(10).storeU8();
      code.get(out).i32(1).op(I32_ADD).set(out);
      code.get(record).i32(RECORD).op(I32_ADD).set(record);
      code.get(i).i32(1).op(I32_ADD).set(i);
      code.br(0);
    });
  });
  code.get(out);
  return code;
}

/**
 * Appends the decimal digits of `value` (a local, consumed) at the address in `target` (a
 * local, advanced past them).
 */
function writeDecimal(code: FunctionCode, target: number, value: number, at: number): void {
  // The number of digits: 1 + (value ≥ 10) + (value ≥ 100) + … for values below 100000.
  code.get(target).i32(1).op(I32_ADD);
  for (const limit of [10, 100, 1000, 10000]) code.get(value).i32(limit).op(I32_GE_U).op(I32_ADD);
  code.tee(at).set(target);
  code.loop(() => {
    code.get(at).i32(1).op(I32_SUB).tee(at);
    code.get(value).i32(10).op(I32_REM_U).i32(48).op(I32_ADD).storeU8();
    code.get(value).i32(10).op(I32_DIV_U).tee(value).brIf(0);
  });
}

/**
 * `expand(records, count)`: for the records JavaScript gave as numbers (RECORD_NUMERIC), the
 * `ip:port` text of the IPv4 address and port, with the IP's place in it.
 */
function expandFunction(): FunctionCode {
  const code = new FunctionCode([I32, I32], []);
  const [records, count] = [0, 1];
  const i = code.local(I32);
  const record = code.local(I32);
  const out = code.local(I32);
  const address = code.local(I32);
  const value = code.local(I32);
  const at = code.local(I32);
  code.get(records).set(record);
  code.block(() => {
    code.loop(() => {
      code.get(i).get(count).op(I32_GE_U).brIf(1);
      code.get(record).loadU8(RECORD_NUMERIC);
      code.ifElse(() => {
        code.get(record).i32(RECORD_HOSTPORT).op(I32_ADD).set(out);
        code.get(record).loadI32(RECORD_IPV4).set(address);
        for (const shift of [24, 16, 8, 0]) {
          code.get(address).i32(shift).op(I32_SHR_U).i32(255).op(I32_AND).set(value);
          writeDecimal(code, out, value, at);
          if (shift > 0) {
            code.get(out).i32(46).storeU8(); // .
            code.get(out).i32(1).op(I32_ADD).set(out);
          }
        }
        // The IP's length, then `:port`.
        code.get(record).get(out).get(record).i32(RECORD_HOSTPORT).op(I32_ADD).op(I32_SUB).storeU8(RECORD_IP_LENGTH);
        code.get(record).i32(0).storeU8(RECORD_IP_OFFSET);
        code.get(out).i32(58).storeU8(); // :
        code.get(out).i32(1).op(I32_ADD).set(out);
        code.get(record).loadI32(RECORD_PORT).set(value);
        writeDecimal(code, out, value, at);
        code.get(record).get(out).get(record).i32(RECORD_HOSTPORT).op(I32_ADD).op(I32_SUB).storeU8(RECORD_HOSTPORT_LENGTH);
      });
      code.get(record).i32(RECORD).op(I32_ADD).set(record);
      code.get(i).i32(1).op(I32_ADD).set(i);
      code.br(0);
    });
  });
  return code;
}

/** `copyText(target, source, length) → target + length`: copies a registered text into the output (see copy() for the slack it needs). */
function copyTextFunction(): FunctionCode {
  const code = new FunctionCode([I32, I32, I32], [I32]);
  const [target, source, length] = [0, 1, 2];
  const scratch = code.local(I32);
  copy(code, target, () => code.get(source), length, scratch);
  code.get(target);
  return code;
}

/** The kernel's bytes. */
export function emitKernelModule(): Uint8Array {
  return assembleModule(
    [
      { name: 'hash', code: hashFunction() },
      { name: 'prepare', code: prepareFunction() },
      { name: 'stash', code: stashFunction() },
      { name: 'printLoadBalancing', code: loadBalancingFunction() },
      { name: 'printEndpointChains', code: endpointChainsFunction() },
      { name: 'expand', code: expandFunction() },
      { name: 'copyText', code: copyTextFunction() },
    ],
    1,
  );
}
