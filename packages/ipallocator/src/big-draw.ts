// A draw below a bound that may pass 2^32, from the seeded generator the allocators thread
// (api-types' seededRng/nextInt). The IPAddress allocator draws the start of its scan in
// [0, size of the dynamic band), and an IPv6 ServiceCIDR of /64 to /95 has more than 2^32
// addresses there.
// upstream (v1.33): pkg/registry/core/service/ipallocator/ipallocator.go allocateNextService
//           (rand.Int63n for the band size, rand.Uint64 when the size reaches MaxInt64)
import { nextInt, type Rng } from '@kubesvc/api-types';

const WORD = 0x1_0000_0000;

/**
 * A number in [0, bound) and the advanced generator. Up to 2^32 this is exactly one nextInt
 * draw, so a small range draws as the bitmap allocator does; above, it takes as many 32-bit
 * draws as the bound has words and scales their concatenation to the bound. `bound` must be
 * at least 1.
 */
export function nextBigInt(rng: Rng, bound: bigint): readonly [bigint, Rng] {
  if (bound < 1n) throw new RangeError(`bound must be at least 1, got ${bound}`);
  if (bound <= BigInt(WORD)) {
    const [value, advanced] = nextInt(rng, Number(bound));
    return [BigInt(value), advanced];
  }
  let words = 0n;
  let draw = 0n;
  let next = rng;
  for (let rest = bound - 1n; rest > 0n; rest >>= 32n) {
    const [word, advanced] = nextInt(next, WORD);
    draw = (draw << 32n) | BigInt(word);
    next = advanced;
    words += 32n;
  }
  return [(draw * bound) >> words, next];
}
