// A small WebAssembly assembler: enough of the binary format (core 2.0, with fixed-width SIMD
// and bulk memory) to write the kernel of kernel-emitter.ts as readable TypeScript. Only the
// emitter and its test use it: the package ships the bytes (kernel-module.ts).

export const I32 = 0x7f;
export const I64 = 0x7e;
export const V128 = 0x7b;
export type ValueType = typeof I32 | typeof I64 | typeof V128;

export function unsignedLEB(n: number): number[] {
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

export function signedLEB(n: number): number[] {
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

/** signedLEB for a 64-bit value given as a bigint. */
function signedLEB64(n: bigint): number[] {
  const out: number[] = [];
  let rest = BigInt.asIntN(64, n);
  for (;;) {
    const byte = Number(rest & 0x7fn);
    rest >>= 7n;
    if ((rest === 0n && (byte & 0x40) === 0) || (rest === -1n && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

// Opcodes used below.
const OP = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  else: 0x05,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  return: 0x0f,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Load: 0x28,
  i64Load: 0x29,
  i32Load8U: 0x2d,
  i32Store: 0x36,
  i64Store: 0x37,
  i32Store8: 0x3a,
  i32Const: 0x41,
  i64Const: 0x42,
} as const;

const SIMD = 0xfd;
const VOID = 0x40;

/** A function body under construction: locals by index (parameters first), instructions appended. */
export class FunctionCode {
  readonly bytes: number[] = [];
  private readonly extraLocals: ValueType[] = [];

  constructor(
    readonly params: readonly ValueType[],
    readonly results: readonly ValueType[],
  ) {}

  /** A new local of `type`; returns its index. */
  local(type: ValueType): number {
    this.extraLocals.push(type);
    return this.params.length + this.extraLocals.length - 1;
  }

  op(...bytes: number[]): this {
    for (const b of bytes) this.bytes.push(b);
    return this;
  }
  get(local: number): this {
    return this.op(OP.localGet, ...unsignedLEB(local));
  }
  set(local: number): this {
    return this.op(OP.localSet, ...unsignedLEB(local));
  }
  tee(local: number): this {
    return this.op(OP.localTee, ...unsignedLEB(local));
  }
  i32(n: number): this {
    return this.op(OP.i32Const, ...signedLEB(n));
  }
  i64(n: bigint): this {
    return this.op(OP.i64Const, ...signedLEB64(n));
  }
  /** An i32 operation without immediates (i32.add = 0x6a, ...). */
  i32op(code: number): this {
    return this.op(code);
  }
  /** A SIMD operation without immediates. */
  simd(code: number): this {
    return this.op(SIMD, ...unsignedLEB(code));
  }
  /** A vector of four copies of the 32-bit `n`. */
  splat32(n: number): this {
    this.simd(0x0c);
    for (let lane = 0; lane < 4; lane++) for (let byte = 0; byte < 4; byte++) this.op((n >>> (8 * byte)) & 0xff);
    return this;
  }
  /** i8x16.shuffle of the two vectors on the stack. */
  shuffle(lanes: readonly number[]): this {
    return this.simd(0x0d).op(...lanes);
  }

  // Memory access, the address on the stack (plus `offset`), alignment hints as log2 bytes.
  loadI32(offset = 0): this {
    return this.op(OP.i32Load, 2, ...unsignedLEB(offset));
  }
  loadU8(offset = 0): this {
    return this.op(OP.i32Load8U, 0, ...unsignedLEB(offset));
  }
  loadI64(offset = 0): this {
    return this.op(OP.i64Load, 3, ...unsignedLEB(offset));
  }
  loadV128(offset = 0): this {
    return this.simd(0x00).op(4, ...unsignedLEB(offset));
  }
  storeI32(offset = 0): this {
    return this.op(OP.i32Store, 2, ...unsignedLEB(offset));
  }
  storeU8(offset = 0): this {
    return this.op(OP.i32Store8, 0, ...unsignedLEB(offset));
  }
  storeI64(offset = 0): this {
    return this.op(OP.i64Store, 3, ...unsignedLEB(offset));
  }
  storeV128(offset = 0): this {
    return this.simd(0x0b).op(4, ...unsignedLEB(offset));
  }
  /** v128.store32_lane: stores lane `lane` of the vector at the address. */
  storeLane32(lane: number, offset = 0): this {
    return this.simd(0x5a).op(2, ...unsignedLEB(offset), lane);
  }

  // Structured control. `body` emits the inside; labels are counted by the caller.
  block(body: () => void): this {
    this.op(OP.block, VOID);
    body();
    return this.op(OP.end);
  }
  loop(body: () => void): this {
    this.op(OP.loop, VOID);
    body();
    return this.op(OP.end);
  }
  /** if (value on the stack) then … else …, leaving a value of type `result` if given. */
  ifElse(then: () => void, otherwise?: () => void, result?: ValueType): this {
    this.op(OP.if, result ?? VOID);
    then();
    if (otherwise !== undefined) {
      this.op(OP.else);
      otherwise();
    }
    return this.op(OP.end);
  }
  br(depth: number): this {
    return this.op(OP.br, ...unsignedLEB(depth));
  }
  brIf(depth: number): this {
    return this.op(OP.brIf, ...unsignedLEB(depth));
  }
  ret(): this {
    return this.op(OP.return);
  }

  /** The function's code entry: its locals, its instructions and the closing `end`. */
  encode(): number[] {
    const runs: [number, ValueType][] = [];
    for (const type of this.extraLocals) {
      const last = runs[runs.length - 1];
      if (last !== undefined && last[1] === type) last[0]++;
      else runs.push([1, type]);
    }
    const body = [...unsignedLEB(runs.length), ...runs.flatMap(([count, type]) => [...unsignedLEB(count), type]), ...this.bytes, OP.end];
    return [...unsignedLEB(body.length), ...body];
  }
}

// i32 operations without immediates.
export const SELECT = 0x1b;
export const I32_EQZ = 0x45;
export const I32_EQ = 0x46;
export const I32_NE = 0x47;
export const I32_LT_U = 0x49;
export const I32_GE_U = 0x4f;
export const I32_ADD = 0x6a;
export const I32_SUB = 0x6b;
export const I32_MUL = 0x6c;
export const I32_DIV_U = 0x6e;
export const I32_REM_U = 0x70;
export const I32_AND = 0x71;
export const I32_OR = 0x72;
export const I32_SHL = 0x74;
export const I32_SHR_U = 0x76;
// SIMD operations without immediates.
export const V128_OR = 0x50;
export const V128_XOR = 0x51;
export const V128_BITSELECT = 0x52;
export const V128_ANY_TRUE = 0x53;
export const I32X4_SHL = 0xab;
export const I32X4_SHR_U = 0xad;
export const I32X4_ADD = 0xae;

function section(id: number, bytes: readonly number[]): number[] {
  return [id, ...unsignedLEB(bytes.length), ...bytes];
}

function name(text: string): number[] {
  return [...unsignedLEB(text.length), ...Array.from(text, (c) => c.charCodeAt(0))];
}

/** A module of exported functions over one exported memory of `pages` 64 KiB pages (growable). */
export function assembleModule(functions: readonly { readonly name: string; readonly code: FunctionCode }[], pages: number): Uint8Array {
  const signatures: string[] = [];
  const typeOf = functions.map(({ code }) => {
    const key = `${code.params.join(',')}:${code.results.join(',')}`;
    let index = signatures.indexOf(key);
    if (index < 0) {
      index = signatures.length;
      signatures.push(key);
    }
    return index;
  });
  const types = signatures.map((key) => {
    const [params, results] = key.split(':').map((list) => (list === '' ? [] : list.split(',').map(Number))) as [number[], number[]];
    return [0x60, ...unsignedLEB(params.length), ...params, ...unsignedLEB(results.length), ...results];
  });
  const exports = [
    ...name('memory'),
    0x02,
    0,
    ...functions.flatMap(({ name: exported }, i) => [...name(exported), 0x00, ...unsignedLEB(i)]),
  ];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [...unsignedLEB(types.length), ...types.flat()]),
    ...section(3, [...unsignedLEB(functions.length), ...typeOf.flatMap((t) => unsignedLEB(t))]),
    ...section(5, [1, 0x00, ...unsignedLEB(pages)]),
    ...section(7, [...unsignedLEB(functions.length + 1), ...exports]),
    ...section(10, [...unsignedLEB(functions.length), ...functions.flatMap(({ code }) => code.encode())]),
  ]);
}
