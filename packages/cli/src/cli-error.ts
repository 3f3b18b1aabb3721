// The command's failures as typed errors (shell code throws; docs/architecture.md, "Results and
// errors"), each with the exit code it ends the process with.

/** Exit codes: 0 the answer, 1 the answer is "invalid" or "not found", 2 a usage error. */
export const EXIT_OK = 0;
export const EXIT_INVALID = 1;
export const EXIT_USAGE = 2;

export type CliErrorTag = 'ErrUsage' | 'ErrInput' | 'ErrNotFound';

export class CliError extends Error {
  readonly _tag: CliErrorTag;
  readonly exitCode: number;

  constructor(tag: CliErrorTag, message: string) {
    super(message);
    this.name = tag;
    this._tag = tag;
    this.exitCode = tag === 'ErrUsage' ? EXIT_USAGE : EXIT_INVALID;
  }
}

/** A wrong flag value or a file that cannot be opened: exit 2. */
export function usageError(message: string): CliError {
  return new CliError('ErrUsage', message);
}

/** Input that does not read as objects (a syntax error, a wrong field): exit 1. */
export function inputError(message: string): CliError {
  return new CliError('ErrInput', message);
}
