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

/** Instances made by a class from {@link TaggedErrorClass}: a thrown `Error` that is also a tagged error. */
export type TaggedErrorInstance<Tag extends string, Fields extends object> = Error & TaggedError<Tag> & Readonly<Fields>;

/** The constructor {@link TaggedErrorClass} returns; `Fields` are the extra fields each instance carries. */
export type TaggedErrorConstructor<Tag extends string> = new <Fields extends object = Record<never, never>>(
  message: string,
  fields?: Fields,
  options?: ErrorOptions,
) => TaggedErrorInstance<Tag, Fields>;

/**
 * A base class for the errors the shell throws (where a `Result` cannot reach: a listener that
 * fails to bind, a callback of a library), in the manner of Effect's `Data.TaggedError`:
 *
 *     class ErrListen extends TaggedErrorClass('ErrListen')<{ readonly code: string }> {}
 *     throw new ErrListen('listen EADDRINUSE 127.0.0.1:6443', { code: 'EADDRINUSE' });
 *
 * A catcher switches on `_tag` (or `instanceof`), never on the message text. `name` is the
 * tag, so an uncaught one prints as `ErrListen: listen EADDRINUSE ...`; `options.cause` keeps
 * the original error.
 */
export function TaggedErrorClass<Tag extends string>(tag: Tag): TaggedErrorConstructor<Tag> {
  class Tagged extends Error {
    readonly _tag: Tag = tag;
    constructor(message: string, fields?: object, options?: ErrorOptions) {
      super(message, options);
      this.name = tag;
      if (fields !== undefined) {
        for (const [key, value] of Object.entries(fields)) {
          if (key === '_tag' || key === 'message' || key === 'name' || key === 'stack' || key === 'cause') continue;
          Object.defineProperty(this, key, { value, enumerable: true, writable: false, configurable: true });
        }
      }
    }
  }
  return Tagged as TaggedErrorConstructor<Tag>;
}
