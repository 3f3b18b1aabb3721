// How big a YAML input becomes once its aliases are expanded. The YAML reader caps the number of
// alias expansions (maxAliasCount), not their size: one anchored 500 KB string aliased 999 times
// passes that cap and becomes 500 MB the first time anything prints the object (the decoder's
// "Object 'Kind' is missing in '...'" does), which takes seconds and most of the memory of the
// process. This measures the expanded size on the parsed nodes, each anchored node once, so an
// input can be refused before it is turned into objects. Pure.
import { isAlias, isCollection, isPair, isScalar, parseAllDocuments, type Document, type Node } from 'yaml';

/** An input may expand to this many times its own size, and to this much in any case. */
export const ALIAS_EXPANSION_FACTOR = 10;
export const ALIAS_EXPANSION_FLOOR = 64 * 1024 * 1024;

/** The expanded size bound for an input of `length` characters. */
export function aliasExpansionLimit(length: number): number {
  return Math.max(ALIAS_EXPANSION_FLOOR, ALIAS_EXPANSION_FACTOR * length);
}

/**
 * The size, in characters, of `text` with every alias replaced by what it names (roughly: the
 * scalars' lengths plus one per item), as soon as it passes `limit`; undefined when it stays
 * under `limit`. An input without `*` has no alias, and is not parsed.
 */
export function aliasExpansionOver(text: string, limit: number): number | undefined {
  if (!text.includes('*')) return undefined;
  let total = 0;
  for (const doc of parseAllDocuments(text) as Document[]) {
    if (doc.errors.length > 0) continue;
    const sizes = new Map<unknown, number>();
    const size = (node: unknown): number => {
      const known = sizes.get(node);
      if (known !== undefined) return known;
      // Counted as nothing while it is being measured: an alias to an enclosing node.
      sizes.set(node, 0);
      let n = 1;
      if (isAlias(node)) n = size(node.resolve(doc));
      else if (isScalar(node)) n += String(node.value).length;
      else if (isPair(node)) n += size(node.key) + size(node.value);
      else if (isCollection(node)) for (const item of (node as { items: unknown[] }).items) n += size(item);
      n = Math.min(n, Number.MAX_SAFE_INTEGER);
      sizes.set(node, n);
      return n;
    };
    total += size(doc.contents as Node | null);
    if (total > limit) return total;
  }
  return undefined;
}
