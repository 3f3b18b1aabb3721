// A refused Result seen the way a test compares it: the error's tag, the field it names and
// its message, or 'accepted' when the Result is ok. Checks that name the argument at fault
// (`field: what`) are compared with one `toEqual` against `refusedField(...)`.

/** What a test compares of a refusal: the tag, the field named and the whole message. */
export interface FieldRefusal {
  readonly tag: string;
  readonly field: string;
  readonly message: string;
}

/** The refusal of `result` as { tag, field, message }, or 'accepted' when it is ok. */
export function fieldRefusal(result: { readonly ok: boolean; readonly error?: unknown }): FieldRefusal | 'accepted' {
  if (result.ok) return 'accepted';
  const error = result.error as { readonly _tag?: unknown; readonly field?: unknown; readonly message?: unknown };
  return { tag: String(error._tag), field: String(error.field), message: String(error.message) };
}

/** The refusal expected of a check that names `field` and says `what`: message `field: what`. */
export function refusedField(tag: string, field: string, what: string): FieldRefusal {
  return { tag, field, message: `${field}: ${what}` };
}
