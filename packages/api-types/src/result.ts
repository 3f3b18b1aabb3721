// The one result shape of every public entry point that can fail on its input (docs/architecture.md,
// pure-package contract rule 4: errors are values). A success carries `value`; a failure
// carries `error`, a tagged error whose `message` is upstream's text where upstream has one.
// Every package uses these types; none invents its own `{ ok, … }` variant.

/** A tagged error: `_tag` to switch on, `message` for people (upstream's exact text). */
export interface TaggedError<Tag extends string = string> {
  readonly _tag: Tag;
  readonly message: string;
}

export interface Ok<T> {
  readonly ok: true;
  readonly value: T;
}

export interface Err<E extends TaggedError = TaggedError> {
  readonly ok: false;
  readonly error: E;
}

/**
 * `Ok<T> | Err<E>`. A failure that must still hand back advanced state (a seeded generator
 * that was consumed, say) carries it on its error value, never beside `error`; an operation
 * that reports several problems at once carries them as a list on one error value (for
 * example `causes: FieldError[]`), with `message` the aggregate text upstream prints.
 */
export type Result<T, E extends TaggedError = TaggedError> = Ok<T> | Err<E>;

export function ok<T>(value: T): Ok<T> {
  return { ok: true, value };
}

export function err<E extends TaggedError>(error: E): Err<E> {
  return { ok: false, error };
}

/** A tagged error value with no other fields. */
export function taggedError<Tag extends string>(tag: Tag, message: string): TaggedError<Tag> {
  return { _tag: tag, message };
}
