// The error value of the restore-text parser and loader. Messages follow iptables-restore's
// wording where there is one (e.g. `unknown option "--bogus"`, `Chain 'X' does not exist`);
// `line` is the 1-based line of the restore text.

import type { Err, Result } from '@kubesvc/api-types';

export interface ErrIptablesRestore {
  readonly _tag: 'ErrIptablesRestore';
  readonly message: string;
  readonly line: number;
}

export type RestoreResult<T> = Result<T, ErrIptablesRestore>;

export function restoreError(line: number, message: string): Err<ErrIptablesRestore> {
  return { ok: false, error: { _tag: 'ErrIptablesRestore', message, line } };
}

/** A check inside one rule: the caller adds the line number. */
export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

export function fail(message: string): { readonly ok: false; readonly message: string } {
  return { ok: false, message };
}

export function okValue<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}
