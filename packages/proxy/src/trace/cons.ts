// A persistent list, newest first: what a tracer's runs share as they fork at each branch
// (the matched rules, the chains entered, the state updates so far), so that a fork copies
// nothing.

export interface Cons<T> {
  readonly head: T;
  readonly tail: Cons<T> | undefined;
}

/** The list oldest first. */
export function consToArray<T>(list: Cons<T> | undefined): T[] {
  const out: T[] = [];
  for (let l = list; l !== undefined; l = l.tail) out.push(l.head);
  return out.reverse();
}
