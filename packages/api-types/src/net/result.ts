// The result shape of every net helper that can fail on its input. Bad input is a value,
// not an exception (DESIGN.md, pure-package contract rule 4): validation and allocators
// check `ok` and carry `error` on as upstream-style text.

export type NetResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export function success<T>(value: T): NetResult<T> {
  return { ok: true, value };
}

export function failure(error: string): { readonly ok: false; readonly error: string } {
  return { ok: false, error };
}
