// The path to a field, printed the way upstream prints it in field errors.
// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/field/path.go (Path, String)
//
// Upstream keeps one shape for every element: a name, or (when the name is empty) a
// subscript. That is why an empty name prints as `[]`, and why a path rooted at "" (which
// upstream uses for whole-object errors) prints as `[]` too. Keys are printed bare, without
// quotes: `metadata.labels[app]`, `metadata.annotations[a/b]`.

/** An immutable path from an object's root to one of its fields. */
export class FieldPath {
  // Like upstream's Path, each element points at its parent, so that a child costs one small
  // object and no copy of the path above it: validation makes a path for every field it looks
  // at, and prints only the few that are wrong. `subscript` is the element's index or map key
  // when it is a subscript; otherwise the element is the field `name`.
  private constructor(
    private readonly parent: FieldPath | undefined,
    private readonly name: string,
    private readonly subscript: string | undefined,
  ) {}

  /** A root path, like upstream's NewPath: `root('spec', 'ports')` is `spec.ports`. */
  static root(name: string, ...moreNames: string[]): FieldPath {
    let path = new FieldPath(undefined, name, undefined);
    for (const n of moreNames) path = new FieldPath(path, n, undefined);
    return path;
  }

  /** A child field, like upstream's Child: `p.child('a', 'b')` is `p.a.b`. */
  child(name: string, ...moreNames: string[]): FieldPath {
    let path = new FieldPath(this, name, undefined);
    for (const n of moreNames) path = new FieldPath(path, n, undefined);
    return path;
  }

  /** A list subscript, like upstream's Index: `[0]`. */
  index(index: number): FieldPath {
    // Upstream takes a Go int; a fraction or NaN here is a programming error, not bad input.
    if (!Number.isSafeInteger(index)) throw new RangeError(`field path index must be an integer, got ${index}`);
    return new FieldPath(this, '', String(index));
  }

  /** A map subscript, like upstream's Key: `[app]`, printed without quotes. */
  key(key: string): FieldPath {
    return new FieldPath(this, '', key);
  }

  /** The path as upstream's Path.String() prints it. */
  toString(): string {
    const elements: FieldPath[] = [this];
    for (let p = this.parent; p !== undefined; p = p.parent) elements.push(p);
    let out = '';
    for (let i = elements.length - 1; i >= 0; i--) {
      const element = elements[i] as FieldPath;
      if (element.name.length > 0) {
        if (i < elements.length - 1) out += '.';
        out += element.name;
      } else {
        out += `[${element.subscript ?? ''}]`;
      }
    }
    return out;
  }
}

/** Shorthand for FieldPath.root, named after upstream's field.NewPath. */
export function fieldPath(name: string, ...moreNames: string[]): FieldPath {
  return FieldPath.root(name, ...moreNames);
}
