// The path to a field, printed the way upstream prints it in field errors.
// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/field/path.go (Path, String)
//
// Upstream keeps one shape for every element: a name, or (when the name is empty) a
// subscript. That is why an empty name prints as `[]`, and why a path rooted at "" (which
// upstream uses for whole-object errors) prints as `[]` too. Keys are printed bare, without
// quotes: `metadata.labels[app]`, `metadata.annotations[a/b]`.

/** One element: a field name, or a subscript (an index or a map key) of the element before it. */
type Segment = { readonly name: string } | { readonly subscript: string };

/** An immutable path from an object's root to one of its fields. */
export class FieldPath {
  private readonly segments: readonly Segment[];

  private constructor(segments: readonly Segment[]) {
    this.segments = Object.freeze(segments.slice());
  }

  /** A root path, like upstream's NewPath: `root('spec', 'ports')` is `spec.ports`. */
  static root(name: string, ...moreNames: string[]): FieldPath {
    return new FieldPath([{ name }, ...moreNames.map((n) => ({ name: n }))]);
  }

  /** A child field, like upstream's Child: `p.child('a', 'b')` is `p.a.b`. */
  child(name: string, ...moreNames: string[]): FieldPath {
    return new FieldPath([...this.segments, { name }, ...moreNames.map((n) => ({ name: n }))]);
  }

  /** A list subscript, like upstream's Index: `[0]`. */
  index(index: number): FieldPath {
    // Upstream takes a Go int; a fraction or NaN here is a programming error, not bad input.
    if (!Number.isSafeInteger(index)) throw new RangeError(`field path index must be an integer, got ${index}`);
    return new FieldPath([...this.segments, { subscript: String(index) }]);
  }

  /** A map subscript, like upstream's Key: `[app]`, printed without quotes. */
  key(key: string): FieldPath {
    return new FieldPath([...this.segments, { subscript: key }]);
  }

  /** The path as upstream's Path.String() prints it. */
  toString(): string {
    let out = '';
    this.segments.forEach((segment, i) => {
      const name = 'name' in segment ? segment.name : '';
      if (name.length > 0) {
        if (i > 0) out += '.';
        out += name;
      } else {
        out += `[${'subscript' in segment ? segment.subscript : ''}]`;
      }
    });
    return out;
  }
}

/** Shorthand for FieldPath.root, named after upstream's field.NewPath. */
export function fieldPath(name: string, ...moreNames: string[]): FieldPath {
  return FieldPath.root(name, ...moreNames);
}
