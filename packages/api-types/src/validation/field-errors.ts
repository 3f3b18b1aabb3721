// Field-level validation errors with upstream's exact text, and the 422 Status that the
// apiserver builds from them.
// upstream: staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go (v1.32 text)
//           staging/src/k8s.io/apimachinery/pkg/util/errors/errors.go (Aggregate.Error)
//           staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go (NewInvalid)
import type { FieldPath } from './field-path.js';

// --- How a bad value prints ------------------------------------------------------------
// Go formats it with fmt: %q for strings, %v for numbers and booleans, String() for
// Stringers and %#v for everything else (upstream: field/errors.go ErrorBody).
// TypeScript values carry no Go type, so this picks the Go type upstream would have had for
// each JavaScript shape (string -> string, integer -> int, array of strings -> []string,
// object of strings -> map[string]string). Where that guess cannot be right (a Go struct
// such as core.ServicePort), the caller passes a GoValue holding the exact text.

/** A bad value whose Go rendering the caller already knows (a struct, a Stringer, a typed slice). */
export class GoValue {
  readonly repr: string;
  constructor(repr: string) {
    this.repr = repr;
  }
}

/** Wraps text that should appear verbatim where upstream prints the bad value. */
export function goValue(repr: string): GoValue {
  return new GoValue(repr);
}

/**
 * A Go []string as %#v prints it. Upstream distinguishes a nil slice (`[]string(nil)`)
 * from an empty one (`[]string{}`); an absent field is nil.
 */
export function goStringSlice(values: readonly string[] | null | undefined): GoValue {
  if (values === null || values === undefined) return new GoValue('[]string(nil)');
  return new GoValue(`[]string{${values.map(goQuote).join(', ')}}`);
}

const HEX = '0123456789abcdef';

function hex(n: number, width: number): string {
  let s = '';
  for (let i = width - 1; i >= 0; i--) s += HEX[(n >> (4 * i)) & 0xf] ?? '0';
  return s;
}


// Printable ASCII other than the quote and the backslash, and the printable runes above
// ASCII (Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols): strconv.Quote copies these as they are, so runs of them are copied whole instead of
// rune by rune. A lone surrogate is not in any of these classes.
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const PLAIN_RUN = /(?:[\x20\x21\x23-\x5b\x5d-\x7e]|(?!\p{ASCII})[\p{L}\p{M}\p{N}\p{P}\p{S}])+/uy;

/**
 * Go's strconv.Quote (what %q prints for a string). Linear in the length of `s`: a value
 * that is nothing but plain ASCII (the common case, and any label, name or selector value
 * that only breaks a length rule) is copied in one piece, and otherwise runs of printable
 * runes are copied whole and only the runes to escape are looked at one by one.
 */
export function goQuote(s: string): string {
  if (PLAIN_ASCII.test(s)) return `"${s}"`;
  const parts: string[] = ['"'];
  let i = 0;
  while (i < s.length) {
    PLAIN_RUN.lastIndex = i;
    const run = PLAIN_RUN.exec(s);
    if (run !== null) {
      parts.push(run[0]);
      i += run[0].length;
      continue;
    }
    const cp = s.codePointAt(i) ?? 0;
    const ch = String.fromCodePoint(cp);
    i += ch.length;
    if (cp >= 0xd800 && cp <= 0xdfff) {
      // A lone surrogate cannot come out of Go's JSON decoder, which replaces it with
      // U+FFFD, a printable rune.
      parts.push('\ufffd');
    } else if (ch === '"' || ch === '\\') {
      parts.push(`\\${ch}`);
    } else {
      parts.push(escapeRune(cp));
    }
  }
  parts.push('"');
  return parts.join('');
}

function escapeRune(cp: number): string {
  switch (cp) {
    case 0x07:
      return '\\a';
    case 0x08:
      return '\\b';
    case 0x0c:
      return '\\f';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    case 0x0b:
      return '\\v';
    default:
      if (cp < 0x20 || cp === 0x7f) return `\\x${hex(cp, 2)}`;
      if (cp < 0x10000) return `\\u${hex(cp, 4)}`;
      return `\\U${hex(cp, 8)}`;
  }
}

/** A float64 as Go's %v prints it: shortest digits, exponent form below 1e-4 or from 1e6. */
function goFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  const sign = v < 0 || Object.is(v, -0) ? '-' : '';
  const [mantissa = '0', expText = '0'] = Math.abs(v).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exp = Number(expText);
  // strconv.FormatFloat(v, 'g', -1, 64) switches to %e when exp < -4 || exp >= 6 for the
  // shortest representation (Go's strconv/ftoa.go: "use precision 6 for this decision").
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const e = Math.abs(exp);
    return `${sign}${digits[0] ?? '0'}${frac}e${exp < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const fracPart = digits.slice(exp + 1);
  return `${sign}${intPart}${fracPart.length > 0 ? `.${fracPart}` : ''}`;
}

function goNumber(v: number): string {
  // JSON integers decode into Go ints (int32, int64, int), which print in plain decimal.
  if (Number.isInteger(v) && Math.abs(v) < 1e21) return v.toFixed(0);
  return goFloat(v);
}

function isPlainRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A value nested inside an []interface{} or map[string]interface{}, as %#v prints it. */
function goInterfaceElement(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  return goSharpV(v);
}

/** Go's %#v for the shapes a decoded JSON value can take. */
function goSharpV(v: unknown): string {
  if (v instanceof GoValue) return v.repr;
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) {
    const items: readonly unknown[] = v;
    if (items.every((x) => typeof x === 'string')) return goStringSlice(items as string[]).repr;
    return `[]interface {}{${items.map(goInterfaceElement).join(', ')}}`;
  }
  if (isPlainRecord(v)) {
    // fmt prints map keys sorted.
    const keys = Object.keys(v).sort();
    const allStrings = keys.every((k) => typeof v[k] === 'string');
    const body = keys
      .map((k) => `${goQuote(k)}:${allStrings ? goQuote(String(v[k])) : goInterfaceElement(v[k])}`)
      .join(', ');
    return allStrings ? `map[string]string{${body}}` : `map[string]interface {}{${body}}`;
  }
  return goQuote(String(v));
}

/**
 * The bad value as upstream's ErrorBody prints it. A nil value prints as the quoted string
 * "null" (upstream substitutes the string before quoting it).
 */
export function renderBadValue(v: unknown): string {
  if (v === null || v === undefined) return goQuote('null');
  return goSharpV(v);
}

/** Upstream's field.ErrorType values; they double as metav1.CauseType in Status causes. */
export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueNotFound'
  | 'InternalError';

/** One validation failure, like upstream's *field.Error. */
export interface FieldError {
  readonly type: FieldErrorType;
  /** The rendered field path, e.g. `spec.ports[0].name`. */
  readonly field: string;
  /** The offending value; see renderBadValue for how it prints. */
  readonly badValue?: unknown;
  readonly detail: string;
  /**
   * Upstream's omitValue sentinel: the body then has no value at all (TooMany with an
   * unknown count). Distinct from a nil badValue, which prints as "null".
   */
  readonly omitValue?: true;
}

// upstream: ErrorType.String()
const TYPE_TEXT: Readonly<Record<FieldErrorType, string>> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
};

function make(type: FieldErrorType, path: FieldPath, badValue: unknown, detail: string): FieldError {
  return { type, field: path.toString(), badValue, detail };
}

export function required(path: FieldPath, detail = ''): FieldError {
  return make('FieldValueRequired', path, '', detail);
}

export function invalid(path: FieldPath, value: unknown, detail: string): FieldError {
  return make('FieldValueInvalid', path, value, detail);
}

export function notSupported(path: FieldPath, value: unknown, validValues: readonly string[]): FieldError {
  const detail = validValues.length > 0 ? `supported values: ${validValues.map(goQuote).join(', ')}` : '';
  return make('FieldValueNotSupported', path, value, detail);
}

export function duplicate(path: FieldPath, value: unknown): FieldError {
  return make('FieldValueDuplicate', path, value, '');
}

export function forbidden(path: FieldPath, detail: string): FieldError {
  return make('FieldValueForbidden', path, '', detail);
}

/**
 * The value is never printed, so upstream (since v1.32, kubernetes PR 128553) ignores it
 * and stores "<value omitted>"; before v1.32 the text was "must have at most N bytes".
 */
export function tooLong(path: FieldPath, _value: unknown, maxLength: number): FieldError {
  const detail = maxLength >= 0 ? `may not be more than ${maxLength} bytes` : 'value is too long';
  return make('FieldValueTooLong', path, '<value omitted>', detail);
}

export function tooMany(path: FieldPath, actualQuantity: number, maxQuantity: number): FieldError {
  const detail = maxQuantity >= 0 ? `must have at most ${maxQuantity} items` : 'has too many items';
  if (actualQuantity >= 0) return make('FieldValueTooMany', path, actualQuantity, detail);
  return { ...make('FieldValueTooMany', path, undefined, detail), omitValue: true };
}

export function notFound(path: FieldPath, value: unknown): FieldError {
  return make('FieldValueNotFound', path, value, '');
}

export function internal(path: FieldPath, err: Error | string): FieldError {
  return make('InternalError', path, null, typeof err === 'string' ? err : err.message);
}

/** The message without the field, like upstream's ErrorBody (also a Status cause's message). */
export function errorBody(e: FieldError): string {
  let s: string;
  switch (e.type) {
    case 'FieldValueRequired':
    case 'FieldValueForbidden':
    case 'FieldValueTooLong':
    case 'InternalError':
      s = TYPE_TEXT[e.type];
      break;
    default:
      s = e.omitValue === true ? TYPE_TEXT[e.type] : `${TYPE_TEXT[e.type]}: ${renderBadValue(e.badValue)}`;
  }
  return e.detail.length > 0 ? `${s}: ${e.detail}` : s;
}

/** The whole message, identical to upstream's (*field.Error).Error(). */
export function renderFieldError(e: FieldError): string {
  return `${e.field}: ${errorBody(e)}`;
}

/** The errors ToAggregate keeps: the first of each distinct message, in order. */
export function dedupeFieldErrors(errors: readonly FieldError[]): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const e of errors) {
    const msg = renderFieldError(e);
    if (seen.has(msg)) continue;
    seen.add(msg);
    out.push(e);
  }
  return out;
}

/**
 * ErrorList.ToAggregate().Error(): "" for no errors, the message alone for one, and
 * `[a, b]` for several.
 */
export function renderAggregate(errors: readonly FieldError[]): string {
  return aggregateOfMessages(errors.map(renderFieldError));
}

/** The aggregate of already rendered messages: the first of each distinct one, in order. */
function aggregateOfMessages(rendered: readonly string[]): string {
  const messages = [...new Set(rendered)];
  if (messages.length === 0) return '';
  if (messages.length === 1) return messages[0] ?? '';
  return `[${messages.join(', ')}]`;
}

/** One entry of Status.details.causes. Empty fields are omitted, as Go's omitempty does. */
export interface ApiStatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

export interface ApiStatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly ApiStatusCause[];
  readonly retryAfterSeconds?: number;
}

/** metav1.Status as the apiserver serializes it (field order and omissions as upstream). */
export interface ApiStatus {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: Readonly<Record<string, never>>;
  readonly status: 'Success' | 'Failure';
  readonly message?: string;
  readonly reason?: string;
  readonly details?: ApiStatusDetails;
  readonly code: number;
}

/** A kind, or a group and kind; printed like schema.GroupKind.String(): `Kind.group`. */
export type GroupKindInput = string | { readonly group?: string; readonly kind: string };

/**
 * What upstream's errors.NewInvalid builds. Causes keep every error (duplicates included);
 * the message uses the deduplicated aggregate.
 */
export function invalidError(
  kind: GroupKindInput,
  name: string,
  errors: readonly FieldError[],
): { readonly message: string; readonly status: ApiStatus } {
  const group = typeof kind === 'string' ? '' : (kind.group ?? '');
  const kindName = typeof kind === 'string' ? kind : kind.kind;
  const qualifiedKind = group.length === 0 ? kindName : `${kindName}.${group}`;

  // Each bad value is rendered once: the causes and the aggregate message share the body
  // (quoting a value of megabytes several times over is what made a refusal slow).
  const bodies = errors.map(errorBody);
  const causes: ApiStatusCause[] = errors.map((e, i) => {
    const body = bodies[i] ?? '';
    return {
      reason: e.type,
      ...(body.length > 0 ? { message: body } : {}),
      ...(e.field.length > 0 ? { field: e.field } : {}),
    };
  });
  const aggregate = aggregateOfMessages(errors.map((e, i) => `${e.field}: ${bodies[i] ?? ''}`));
  const message =
    aggregate.length === 0
      ? `${qualifiedKind} ${goQuote(name)} is invalid`
      : `${qualifiedKind} ${goQuote(name)} is invalid: ${aggregate}`;

  const details: ApiStatusDetails = {
    ...(name.length > 0 ? { name } : {}),
    ...(group.length > 0 ? { group } : {}),
    ...(kindName.length > 0 ? { kind: kindName } : {}),
    ...(causes.length > 0 ? { causes } : {}),
  };
  const status: ApiStatus = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: 'Invalid',
    details,
    code: 422,
  };
  return { message, status };
}
