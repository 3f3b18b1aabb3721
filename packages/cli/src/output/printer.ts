// The `-o` flag of every command, as kubectl's printers take it: one of the formats a command
// offers (`jsonpath=TEMPLATE` where it offers jsonpath), or kubectl's refusal naming the
// allowed ones in sorted order; and `-o name`'s lines. Pure.
// upstream (v1.33): staging/src/k8s.io/cli-runtime/pkg/genericclioptions/print_flags.go
//   (NoCompatiblePrinterError: the allowed formats sorted, joined with commas),
//   staging/src/k8s.io/cli-runtime/pkg/printers/name.go (printObj: `kind/name` for the core
//   group, `kind.group/name` otherwise, the kind in lower case)
import { groupKindOf } from '@kubesvc/api-types';
import { usageError } from '../cli-error.js';
import { parseTemplate } from './jsonpath.js';

/** An `-o` value: one of the command's formats, or `jsonpath=TEMPLATE` (also `jsonpath='...'`). */
export type OutputChoice<F extends string> = { readonly kind: 'format'; readonly format: F } | { readonly kind: 'jsonpath'; readonly template: string };

/** kubectl's refusal of an `-o` value no printer of the command takes. */
export function noCompatiblePrinter(value: string, allowed: readonly string[]): Error {
  return usageError(`unable to match a printer suitable for the output format ${JSON.stringify(value)}, allowed formats are: ${[...allowed].sort().join(',')}`);
}

/**
 * The `-o` value among `formats`, or with `jsonpath` true a `jsonpath=TEMPLATE` (its template
 * parsed now, so a bad one is refused before any input is read). Anything else: kubectl's
 * NoCompatiblePrinterError, exit 2.
 */
export function parseOutputFormat<F extends string>(value: string, formats: readonly F[], jsonpath = false): OutputChoice<F> {
  if ((formats as readonly string[]).includes(value)) return { kind: 'format', format: value as F };
  const m = jsonpath ? /^jsonpath=(.*)$/s.exec(value) : null;
  if (m !== null) {
    const template = m[1] ?? '';
    if (template === '') throw usageError('template format specified but no template given');
    parseTemplate(template);
    return { kind: 'jsonpath', template };
  }
  throw noCompatiblePrinter(value, jsonpath ? [...formats, 'jsonpath'] : formats);
}

/** An `-o` value among `choices` or `jsonpath=TEMPLATE`. */
export function parseOutput<F extends string>(value: string, choices: readonly F[]): OutputChoice<F> {
  return parseOutputFormat(value, choices, true);
}

/** The format of an `-o` value among `formats` (no jsonpath), refused as kubectl refuses it. */
export function outputFormat<F extends string>(value: string, formats: readonly F[]): F {
  const choice = parseOutputFormat(value, formats);
  if (choice.kind !== 'format') throw noCompatiblePrinter(value, formats);
  return choice.format;
}

/** An object as `-o name` names it. */
export interface NamedObject {
  readonly kind: string;
  /** The API group; '' or absent for the core group. */
  readonly group?: string;
  readonly name: string;
}

/** `-o name`: `service/web`, `endpointslice.discovery.k8s.io/web-abc`, a line each, in order. */
export function formatNames(objects: readonly NamedObject[]): string {
  return objects.map((o) => `${o.kind.toLowerCase()}${o.group === undefined || o.group === '' ? '' : `.${o.group}`}/${o.name}\n`).join('');
}

/** The API group of a kind read here ('' for the core group's), as validation names it. */
export function groupOfKind(kind: string): string {
  const groupKind = groupKindOf(kind);
  return typeof groupKind === 'string' ? '' : (groupKind.group ?? '');
}

/** The API group of an `apiVersion` (`discovery.k8s.io/v1` → `discovery.k8s.io`, `v1` → ''). */
export function groupOf(apiVersion: string | undefined): string {
  const slash = (apiVersion ?? '').indexOf('/');
  return slash < 0 ? '' : (apiVersion ?? '').slice(0, slash);
}
