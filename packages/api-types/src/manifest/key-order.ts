// The key orders kubectl prints in. `kubectl get -o json|yaml` prints objects decoded as
// unstructured maps, so every object's keys come out sorted, but JSON and YAML sort
// differently:
// - JSON (Go's encoding/json): plain byte order of the UTF-8 keys.
// - YAML (go-yaml v2, through sigs.k8s.io/yaml): a "natural" order in which runs of
//   digits compare as numbers and non-letters sort before letters.
//   upstream: gopkg.in/yaml.v2 sorter.go (keyList.Less)

/** Go's sort.Strings order: UTF-8 byte order, which is code point order. */
export function compareCodePoints(a: string, b: string): number {
  const ar = codePoints(a);
  const br = codePoints(b);
  const n = Math.min(ar.length, br.length);
  for (let i = 0; i < n; i++) {
    const d = at(ar, i) - at(br, i);
    if (d !== 0) return d;
  }
  return ar.length - br.length;
}

const codePoints = (s: string): number[] => Array.from(s, (c) => c.codePointAt(0) ?? 0);
const at = (points: readonly number[], i: number): number => points[i] ?? -1;

const LETTER = /\p{L}/u;
const DIGIT = /\p{Nd}/u;
const isLetter = (cp: number): boolean => cp >= 0 && LETTER.test(String.fromCodePoint(cp));
const isDigit = (cp: number): boolean => cp >= 0 && DIGIT.test(String.fromCodePoint(cp));
const ZERO = 0x30;

/** go-yaml v2's key order for two string keys: true when `a` sorts before `b`. */
export function yamlKeyLess(a: string, b: string): boolean {
  const ar = codePoints(a);
  const br = codePoints(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ac = at(ar, i);
    const bc = at(br, i);
    if (ac === bc) continue;
    const al = isLetter(ac);
    const bl = isLetter(bc);
    if (al && bl) return ac < bc;
    if (al || bl) return bl;
    // Both are non-letters: compare the digit runs that start here as numbers. When a
    // zero continues a number that has a non-zero digit before it, upstream starts both
    // counters at 1 so that the zeros keep their weight.
    let an = 0;
    let bn = 0;
    if (ac === ZERO || bc === ZERO) {
      for (let j = i - 1; j >= 0 && isDigit(at(ar, j)); j--) {
        if (at(ar, j) !== ZERO) {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(at(ar, ai)); ai++) an = an * 10 + (at(ar, ai) - ZERO);
    for (; bi < br.length && isDigit(at(br, bi)); bi++) bn = bn * 10 + (at(br, bi) - ZERO);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ac < bc;
  }
  return ar.length < br.length;
}

/** Sort comparator for go-yaml v2's order. The order is total on distinct keys, so one call decides. */
export function compareYamlKeys(a: string, b: string): number {
  if (a === b) return 0;
  return yamlKeyLess(a, b) ? -1 : 1;
}
