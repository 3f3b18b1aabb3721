// etcd orders keys by their bytes (UTF-8). JavaScript's `<` compares UTF-16 code units, which
// agrees with UTF-8 byte order except where a surrogate pair (U+10000 and up) meets a code unit
// in U+E000..U+FFFF. This comparison fixes that case up, so that the memory backend sorts as
// SQLite (BINARY collation, memcmp of UTF-8) and etcd do.

/** Negative, zero or positive as `a` sorts before, with or after `b` in UTF-8 byte order. */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let ca = a.charCodeAt(i);
    let cb = b.charCodeAt(i);
    if (ca === cb) continue;
    if (ca >= 0xd800 && cb >= 0xd800) {
      // Move surrogates above U+E000..U+FFFF, as their code points (>= U+10000) are.
      ca = ca >= 0xe000 ? ca - 0x800 : ca + 0x2000;
      cb = cb >= 0xe000 ? cb - 0x800 : cb + 0x2000;
    }
    return ca - cb;
  }
  return a.length - b.length;
}

/** A code unit at which JavaScript's `<` and UTF-8 byte order can disagree. */
const SURROGATE_OR_ABOVE = /[\ud800-\uffff]/;

/**
 * Whether `key` has no code unit at or above U+D800 (every key whose name is a DNS label or
 * subdomain). compareKeys departs from `<` only where both keys have such a code unit at their
 * first difference, so when either of two keys is plain, nativeOrder is their byte order.
 */
export function isPlainKey(key: string): boolean {
  return !SURROGATE_OR_ABOVE.test(key);
}

/** JavaScript's own order of two strings: compareKeys' order whenever one of them is plain (isPlainKey). */
export function nativeOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Index of the first element of `sorted` that is not before `key`. */
export function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareKeys(sorted[mid] as string, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
