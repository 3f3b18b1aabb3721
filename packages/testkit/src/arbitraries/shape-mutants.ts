// Structurally-close garbage: a valid value with one part replaced by anything (a field, an
// array element, or the whole of a nested object), or one field deleted. Entry points that
// check their input's shape are tried with these as well as with fc.anything(), which seldom
// comes close enough to a valid value to reach the deeper checks.
import { fc } from '@fast-check/vitest';

type Path = readonly (string | number)[];

function isContainer(value: unknown): value is Record<string | number, unknown> {
  return typeof value === 'object' && value !== null && !(value instanceof Uint8Array);
}

/** Every path to a part of `value` (the root excluded), parents before children. */
function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (!isContainer(value)) return out;
  for (const key of Object.keys(value)) {
    const path = [...prefix, Array.isArray(value) ? Number(key) : key];
    out.push(path);
    pathsOf(value[key], path, out);
  }
  return out;
}

function replaceAt(value: unknown, path: Path, replacement: { readonly delete: true } | { readonly value: unknown }): unknown {
  const [head, ...rest] = path;
  if (head === undefined || !isContainer(value)) return 'value' in replacement ? replacement.value : undefined;
  const inner = rest.length === 0 && 'delete' in replacement ? undefined : replaceAt(value[head], rest, replacement);
  if (Array.isArray(value)) {
    const copy: unknown[] = [...(value as unknown[])];
    if (inner === undefined && rest.length === 0 && 'delete' in replacement) copy.splice(Number(head), 1);
    else copy[Number(head)] = inner;
    return copy;
  }
  const copy: Record<string | number, unknown> = { ...value };
  if (rest.length === 0 && 'delete' in replacement) delete copy[head];
  else copy[head] = inner;
  return copy;
}

/** `valid` with one part replaced by an arbitrary value or deleted (the root itself when it has no parts). */
export function shapeMutantArb(valid: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(valid);
  if (paths.length === 0) return fc.anything();
  return fc
    .tuple(fc.constantFrom(...paths), fc.oneof(fc.anything(), fc.constant(undefined), fc.string(), fc.integer(), fc.bigInt()), fc.boolean())
    .map(([path, junk, remove]) => replaceAt(valid, path, remove ? { delete: true } : { value: junk }));
}
