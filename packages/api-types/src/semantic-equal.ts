// apimachinery's Semantic.DeepEqual, as far as the reconcilers, controllers and registry need it: a nil and an empty
// slice or map are equal (upstream: apimachinery third_party/forked/golang/reflect/deep_equal.go).
// In JSON terms an absent field, null, [] and {} all read back as Go's zero slice or map, so
// they are dropped before comparing. Strings and booleans are kept: '' and false may be a
// set pointer upstream (a port name, conditions.ready), which is not nil.

function isEmptyish(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v).every((k) => isEmptyish((v as Record<string, unknown>)[k]));
  return false;
}

export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isEmptyish(a) || isEmptyish(b)) return isEmptyish(a) && isEmptyish(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => semanticEqual(x, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    const ra = a as Record<string, unknown>;
    const rb = b as Record<string, unknown>;
    const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
    for (const k of keys) if (!semanticEqual(ra[k], rb[k])) return false;
    return true;
  }
  return a === b;
}
