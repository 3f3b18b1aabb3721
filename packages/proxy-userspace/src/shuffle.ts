// The seeded randomness of the balancer. Upstream shuffles every new endpoint list once
// (util.ShuffleStrings, a math/rand permutation); here the generator is a value passed in and
// returned advanced, so the same seed gives the same order. A test can pass `keepOrder` to fix
// the order outright.
// upstream: pkg/proxy/util/utils.go (ShuffleStrings)

export interface Shuffled {
  readonly items: readonly string[];
  /** The generator state after the shuffle. */
  readonly seed: number;
}

/** A shuffle strategy: a permutation of `items` and the advanced generator state. */
export type Shuffle = (items: readonly string[], seed: number) => Shuffled;

/** mulberry32: one 32-bit step, returning a float in [0, 1) and the next state. */
export function nextRandom(seed: number): { readonly value: number; readonly seed: number } {
  const next = (seed + 0x6d2b79f5) | 0;
  let t = next;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return { value: ((t ^ (t >>> 14)) >>> 0) / 4294967296, seed: next };
}

/** Fisher–Yates over a copy, driven by `nextRandom`. */
export const seededShuffle: Shuffle = (items, seed) => {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    const r = nextRandom(s);
    s = r.seed;
    const j = Math.floor(r.value * (i + 1));
    const a = out[i] as string;
    out[i] = out[j] as string;
    out[j] = a;
  }
  return { items: out, seed: s };
};

/** The identity "shuffle", for tests that need a known order. */
export const keepOrder: Shuffle = (items, seed) => ({ items: [...items], seed });
