// The command's failures as typed errors (shell code throws; docs/architecture.md, "Results and
// errors"): one class per tag, made with api-types' TaggedErrorClass, and the exit code each
// ends the process with, decided by its `_tag` alone.
import { TaggedErrorClass } from '@kubesvc/api-types';

/**
 * Exit codes: 0 the answer; 1 a negative answer (invalid, not found, NXDOMAIN, a packet that
 * every rule drops or rejects) or input that does not decode; 2 a usage error; 3 an internal
 * error (a bug: an exception none of these classes describes).
 */
export const EXIT_OK = 0;
export const EXIT_INVALID = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERNAL = 3;

/** A wrong flag value or a file that cannot be opened: exit 2. */
export class ErrUsage extends TaggedErrorClass('ErrUsage') {}

/** Input that does not read as objects (a syntax error, a wrong field): exit 1. */
export class ErrInput extends TaggedErrorClass('ErrInput') {}

/** The object asked about is not there: exit 1. */
export class ErrNotFound extends TaggedErrorClass('ErrNotFound') {}

/**
 * A failure the API server answered with (a Status), worded as kubectl words it
 * (`Error from server (NotFound): pods "web" not found`): its HTTP code and reason. Exit 1.
 */
export class ErrApiStatus extends TaggedErrorClass('ErrApiStatus')<{ readonly status: number; readonly reason: string }> {}

export type CliError = ErrUsage | ErrInput | ErrNotFound | ErrApiStatus;
export type CliErrorTag = CliError['_tag'];

/** `error` as one of the command's failures, or undefined when it is anything else (a bug). */
export function asCliError(error: unknown): CliError | undefined {
  return error instanceof ErrUsage || error instanceof ErrInput || error instanceof ErrNotFound || error instanceof ErrApiStatus ? error : undefined;
}

/** The exit code a failure of the command ends the process with. */
export function exitCodeOf(error: CliError): number {
  switch (error._tag) {
    case 'ErrUsage':
      return EXIT_USAGE;
    case 'ErrInput':
    case 'ErrNotFound':
    case 'ErrApiStatus':
      return EXIT_INVALID;
  }
}

/** A wrong flag value or a file that cannot be opened: exit 2. */
export function usageError(message: string): ErrUsage {
  return new ErrUsage(message);
}

/** Input that does not read as objects (a syntax error, a wrong field): exit 1. */
export function inputError(message: string): ErrInput {
  return new ErrInput(message);
}

/** The first line of an internal error's message, for the one-line report. */
export function internalErrorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split('\n', 1)[0] ?? '';
  return `kubesvc: internal error: ${first === '' ? (error instanceof Error ? error.name : 'unknown') : first}`;
}
