// The seeded randomness of the balancer. Upstream shuffles every new endpoint list once
// (util.ShuffleStrings, a math/rand permutation); here the generator is a value passed in and
// returned advanced, so the same seed gives the same order. A test can pass `keepOrder` to fix
// the order outright. The generator is api-types' (mulberry32); the seed is its state.
// upstream: pkg/proxy/util/utils.go (ShuffleStrings)
import { nextInt, type Rng } from '@kubesvc/api-types';

export interface Shuffled {
  readonly items: readonly string[];
  /** The generator state after the shuffle. */
  readonly seed: number;
}

/** A shuffle strategy: a permutation of `items` and the advanced generator state. */
export type Shuffle = (items: readonly string[], seed: number) => Shuffled;

/** 2^32: nextInt's largest bound, for which it returns the raw 32-bit draw. */
const TWO_POW_32 = 0x1_0000_0000;

/** One step of api-types' generator from state `seed`: a float in [0, 1) and the next state. */
export function nextRandom(seed: number): { readonly value: number; readonly seed: number } {
  const [draw, next] = nextInt({ state: seed }, TWO_POW_32);
  return { value: draw / TWO_POW_32, seed: next.state };
}

/** Fisher–Yates over a copy, driven by api-types' `nextInt`. */
export const seededShuffle: Shuffle = (items, seed) => {
  const out = [...items];
  // The state is taken as it is (not through seededRng), so any seed keeps its old sequence.
  let rng: Rng = { state: seed };
  for (let i = out.length - 1; i > 0; i--) {
    const [j, next] = nextInt(rng, i + 1);
    rng = next;
    const a = out[i] as string;
    out[i] = out[j] as string;
    out[j] = a;
  }
  return { items: out, seed: rng.state };
};

/** The identity "shuffle", for tests that need a known order. */
export const keepOrder: Shuffle = (items, seed) => ({ items: [...items], seed });
