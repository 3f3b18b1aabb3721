// Go's fmt texts for the JSON values strategic merge patch errors print (`%v`, `%s`) and the
// reflect type names they name. The apiserver decodes a patch with integers kept as int64
// (sigs.k8s.io/json UnmarshalCaseSensitivePreserveInts) and other numbers as float64, and
// fmt prints maps with their keys sorted.
// upstream: go/src/fmt/print.go (printValue, badVerb), go/src/strconv/ftoa.go (%g, shortest)

export type Json = null | boolean | number | string | Json[] | JsonMap;
export interface JsonMap {
  [key: string]: Json;
}

export function isJsonMap(value: Json | undefined): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const INT64_LIMIT = 2 ** 63;

/** The Go kind of a decoded JSON value: map, slice, string, bool, int64, float64 or nil. */
export type GoKind = 'map' | 'slice' | 'string' | 'bool' | 'int64' | 'float64' | 'nil';

export function goKind(value: Json): GoKind {
  if (value === null) return 'nil';
  if (Array.isArray(value)) return 'slice';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(value) && Math.abs(value) < INT64_LIMIT ? 'int64' : 'float64';
    default:
      return 'map';
  }
}

/** reflect.TypeOf(value).String(), as `%s` prints it (a nil type is `%!s(<nil>)`). */
export function goTypeName(value: Json): string {
  const kind = goKind(value);
  if (kind === 'map') return 'map[string]interface {}';
  if (kind === 'slice') return '[]interface {}';
  if (kind === 'nil') return '%!s(<nil>)';
  return kind;
}

/** strconv.FormatFloat(f, 'g', -1, 64), which %v uses: shortest digits, %e form when the exponent is below -4 or at least 6. */
function formatFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  const [mantissa = '0', exponent = '0'] = f.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(f);
}

function scalar(value: Json, verb: 'v' | 's'): string {
  const kind = goKind(value);
  const plain = kind === 'nil' ? '<nil>' : kind === 'float64' ? formatFloat(value as number) : String(value);
  if (verb === 'v' || kind === 'string') return plain;
  if (kind === 'nil') return '%!s(<nil>)';
  return `%!s(${kind}=${plain})`;
}

/** Text written as is, between the values goFormat walks. */
class Literal {
  constructor(readonly text: string) {}
}

/** fmt.Sprintf("%v", value) (or "%s") for a decoded JSON value, walked with its own stack. */
export function goFormat(value: Json, verb: 'v' | 's' = 'v'): string {
  const out: string[] = [];
  const work: (Json | Literal)[] = [value];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    if (item instanceof Literal) {
      out.push(item.text);
    } else if (Array.isArray(item)) {
      work.push(new Literal(']'));
      for (let k = item.length - 1; k >= 0; k--) {
        work.push(item[k] ?? null);
        if (k > 0) work.push(new Literal(' '));
      }
      work.push(new Literal('['));
    } else if (isJsonMap(item)) {
      const keys = Object.keys(item).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      work.push(new Literal(']'));
      for (let k = keys.length - 1; k >= 0; k--) {
        const key = keys[k] ?? '';
        work.push(Object.hasOwn(item, key) ? (item[key] ?? null) : null);
        work.push(new Literal(`${key}:`));
        if (k > 0) work.push(new Literal(' '));
      }
      work.push(new Literal('map['));
    } else {
      out.push(scalar(item, verb));
    }
  }
  return out.join('');
}
