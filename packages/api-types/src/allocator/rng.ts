// A tiny seeded random generator, passed in by the caller of allocateNext (docs/architecture.md, pure-package
// contract: no ambient randomness). It is a value: drawing from it returns the number and the
// advanced generator, and the generator it was given stays as it was, so the same seed always
// gives the same sequence. The mixing function is mulberry32 (public domain, Tommy Ettinger):
// 32 bits of state, fast, and good enough to spread allocations; it is not for cryptography.
// Upstream seeds math/rand with the clock (pkg/registry/core/service/allocator/bitmap.go), so
// only the preference for the dynamic band and the wrap-around scan are upstream's, not the draws.

export interface Rng {
  /** The 32-bit state; build one with seededRng. */
  readonly state: number;
}

/** A generator from any safe integer seed (its low 32 bits are the state). */
export function seededRng(seed: number): Rng {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
  return { state: seed | 0 };
}

/**
 * A number in [0, bound) and the advanced generator. `bound` must be an integer in
 * [1, 2^32]; values are spread by scaling a 32-bit draw, as Go's rand.Intn is for these sizes.
 */
export function nextInt(rng: Rng, bound: number): readonly [number, Rng] {
  if (!Number.isInteger(bound) || bound < 1 || bound > 0x1_0000_0000) {
    throw new RangeError(`bound must be an integer in [1, 2^32], got ${bound}`);
  }
  const state = (rng.state + 0x6d2b79f5) | 0;
  let r = Math.imul(state ^ (state >>> 15), state | 1);
  r ^= r + Math.imul(r ^ (r >>> 7), r | 61);
  const u = (r ^ (r >>> 14)) >>> 0;
  return [Math.floor((u / 0x1_0000_0000) * bound), { state }];
}
