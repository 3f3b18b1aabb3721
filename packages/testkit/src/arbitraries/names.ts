// Names that Kubernetes accepts, built so that every generated value is valid by
// construction (no filtering), and shrinks towards short names.
// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go
import { fc } from '@fast-check/vitest';

const lower = 'abcdefghijklmnopqrstuvwxyz';
const digits = '0123456789';
const alnum = lower + digits;

const charOf = (chars: string): fc.Arbitrary<string> => fc.constantFrom(...chars);

/** [first][middle…][last], or just [first] (the last class must contain the first's chars). */
function shaped(first: string, middle: string, last: string, maxLength: number): fc.Arbitrary<string> {
  return fc
    .tuple(charOf(first), fc.array(charOf(middle), { maxLength: Math.max(0, maxLength - 2) }), charOf(last), fc.boolean())
    .map(([a, mid, z, single]) => (single && mid.length === 0 && last.includes(a) ? a : a + mid.join('') + z));
}

/** A DNS-1123 label: lowercase alphanumerics and '-', alphanumeric at both ends, at most 63. */
export function dns1123LabelArb(maxLength = 63): fc.Arbitrary<string> {
  return shaped(alnum, alnum + '-', alnum, maxLength);
}

/** A DNS-1035 label (Service names): like DNS-1123 but starting with a letter. */
export function dns1035LabelArb(maxLength = 63): fc.Arbitrary<string> {
  return shaped(lower, alnum + '-', alnum, maxLength);
}

/** A DNS-1123 subdomain: dot-separated DNS-1123 labels, at most 253 characters. */
export function dns1123SubdomainArb(): fc.Arbitrary<string> {
  return fc.array(dns1123LabelArb(20), { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.'));
}

/** An IANA_SVC_NAME (port names): 1–15 of [a-z0-9-], a letter somewhere, no '--', no '-' at the ends. */
export function ianaSvcNameArb(): fc.Arbitrary<string> {
  return fc
    .tuple(charOf(lower), fc.array(fc.tuple(fc.boolean(), charOf(alnum)), { maxLength: 6 }), fc.nat({ max: 7 }))
    .map(([letter, rest, at]) => {
      // Parts are joined by at most one hyphen, so '--' never appears.
      const tail = rest.map(([hyphen, c]) => (hyphen ? '-' + c : c)).join('');
      const body = (tail.slice(0, at) + letter + tail.slice(at)).replace(/^-+|-+$/g, '');
      return body.slice(0, 15).replace(/-+$/, '');
    });
}

const nameChars = lower + lower.toUpperCase() + digits;

/** A label or annotation key: an optional DNS-1123 subdomain prefix and a qualified name. */
export function labelKeyArb(): fc.Arbitrary<string> {
  return fc
    .tuple(fc.option(dns1123SubdomainArb(), { nil: undefined }), shaped(nameChars, nameChars + '-_.', nameChars, 20))
    .map(([prefix, name]) => (prefix === undefined ? name : `${prefix}/${name}`));
}

/** A label value: empty, or a qualified name of at most 63 characters. */
export function labelValueArb(): fc.Arbitrary<string> {
  return fc.oneof(fc.constant(''), shaped(nameChars, nameChars + '-_.', nameChars, 30));
}

export function labelsArb(maxKeys = 3): fc.Arbitrary<Record<string, string>> {
  return fc.dictionary(labelKeyArb(), labelValueArb(), { maxKeys, noNullPrototype: true });
}
