// The protobuf wire primitives exactly as gogo/protobuf's generated Unmarshal methods read them,
// because kube-apiserver's answer to a malformed body quotes those methods' errors: a varint of
// more than ten bytes is "proto: integer overflow", a length past the message's end "unexpected
// EOF", a length that is negative as a Go int "proto: negative length found during
// unmarshaling". Lengths are 64-bit here as they are there; a general-purpose reader that takes
// them as uint32 would read 2^32+5 as 5 and accept a body upstream refuses (docs/architecture.md).
// upstream: staging/src/k8s.io/api/core/v1/generated.pb.go (every Unmarshal, skipGenerated,
//           ErrInvalidLengthGenerated, ErrIntOverflowGenerated, ErrUnexpectedEndOfGroupGenerated)

/** A decoding failure; `message` is the Go error's text. */
export class ProtoError extends Error {}

export const ERR_UNEXPECTED_EOF = 'unexpected EOF';
export const ERR_INT_OVERFLOW = 'proto: integer overflow';
export const ERR_INVALID_LENGTH = 'proto: negative length found during unmarshaling';
export const ERR_END_OF_GROUP = 'proto: unexpected end of group';

const MAX_INT64 = (1n << 63n) - 1n;

/** A cursor over one body; the last varint read is left in `lo`/`hi` (its two uint32 halves). */
export class WireReader {
  pos = 0;
  lo = 0;
  hi = 0;
  constructor(readonly buf: Uint8Array) {}

  /** Reads a varint that must end before `end`, as the generated loops do (overflow is checked before EOF). */
  varint(end: number): void {
    let lo = 0;
    let hi = 0;
    for (let shift = 0; ; shift += 7) {
      if (shift >= 64) throw new ProtoError(ERR_INT_OVERFLOW);
      if (this.pos >= end) throw new ProtoError(ERR_UNEXPECTED_EOF);
      const b = this.buf[this.pos] ?? 0;
      this.pos++;
      const bits = b & 0x7f;
      // Bits shifted past 64 are lost, as in Go's `uint64(b&0x7F) << shift`.
      if (shift < 28) lo |= bits << shift;
      else if (shift === 28) {
        lo |= bits << 28;
        hi |= bits >>> 4;
      } else hi |= bits << (shift - 32);
      if (b < 0x80) break;
    }
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  /** The last varint as Go's int32(x): its low 32 bits, signed. */
  int32(): number {
    return this.lo | 0;
  }

  /** The last varint as Go's int64(x). */
  int64(): bigint {
    return BigInt.asIntN(64, (BigInt(this.hi) << 32n) | BigInt(this.lo));
  }

  /** The last varint as Go's uint64 (how an illegal tag is printed). */
  uint64(): bigint {
    return (BigInt(this.hi) << 32n) | BigInt(this.lo);
  }

  /**
   * Reads a length and returns where the bytes it announces end, checked as the generated code
   * checks `postIndex`: negative as a Go int, or overflowing `relStart + length`, is an invalid
   * length; past `end` is EOF. `msgStart` is where the enclosing message's bytes begin (Go's
   * indexes are relative to it).
   */
  lengthEnd(end: number, msgStart: number): number {
    this.varint(end);
    const { lo, hi } = this;
    if (hi >= 0x80000000) throw new ProtoError(ERR_INVALID_LENGTH);
    if (hi === 0) {
      const post = this.pos + lo;
      if (post > end) throw new ProtoError(ERR_UNEXPECTED_EOF);
      return post;
    }
    const length = (BigInt(hi) << 32n) | BigInt(lo);
    if (BigInt(this.pos - msgStart) + length > MAX_INT64) throw new ProtoError(ERR_INVALID_LENGTH);
    throw new ProtoError(ERR_UNEXPECTED_EOF);
  }

  /**
   * Skips one field starting at `pos` (its tag included), as skipGenerated does over the bytes
   * up to `end`, and returns where it ends; the caller compares that with its own bound (a map
   * entry's end or the message's). A field that jumps past the end returns Infinity once the
   * overflow checks (relative to `msgStart`) have passed.
   */
  skip(end: number, msgStart: number): number {
    const at = this.pos;
    let depth = 0;
    while (this.pos < end) {
      this.varint(end);
      const wireType = this.lo & 7;
      let beyond: bigint | undefined;
      switch (wireType) {
        case 0:
          for (let shift = 0; ; shift += 7) {
            if (shift >= 64) throw new ProtoError(ERR_INT_OVERFLOW);
            if (this.pos >= end) throw new ProtoError(ERR_UNEXPECTED_EOF);
            this.pos++;
            if ((this.buf[this.pos - 1] ?? 0) < 0x80) break;
          }
          break;
        case 1:
          this.pos += 8;
          break;
        case 2: {
          this.varint(end);
          if (this.hi >= 0x80000000) throw new ProtoError(ERR_INVALID_LENGTH);
          if (this.hi === 0) this.pos += this.lo;
          else beyond = BigInt(this.pos - at) + ((BigInt(this.hi) << 32n) | BigInt(this.lo));
          break;
        }
        case 3:
          depth++;
          break;
        case 4:
          if (depth === 0) throw new ProtoError(ERR_END_OF_GROUP);
          depth--;
          break;
        case 5:
          this.pos += 4;
          break;
        default:
          throw new ProtoError(`proto: illegal wireType ${wireType}`);
      }
      if (beyond !== undefined) {
        if (beyond > MAX_INT64) throw new ProtoError(ERR_INVALID_LENGTH);
        if (depth > 0) throw new ProtoError(ERR_UNEXPECTED_EOF);
        // The caller's `(iNdEx + skippy) < 0` check, then its `> l`.
        if (BigInt(at - msgStart) + beyond > MAX_INT64) throw new ProtoError(ERR_INVALID_LENGTH);
        return Infinity;
      }
      if (depth === 0) return this.pos;
    }
    throw new ProtoError(ERR_UNEXPECTED_EOF);
  }
}
