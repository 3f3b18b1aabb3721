// Go compares strings byte by byte (UTF-8); UTF-8 byte order is code point order, which differs
// from JavaScript's UTF-16 `<` only above U+FFFF. IPs are ASCII, but the sort must not depend on it.
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done === true) return y.done === true ? 0 : -1;
    if (y.done === true) return 1;
    const cx = x.value.codePointAt(0) ?? 0;
    const cy = y.value.codePointAt(0) ?? 0;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}
