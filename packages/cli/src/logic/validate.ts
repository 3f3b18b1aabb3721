// `kubesvc validate`: every object of a file checked as the apiserver checks a create, with
// upstream's field errors. Pure.
import {
  defaultObject,
  errInvalid,
  renderFieldError,
  validateObject,
  validateServiceCreate,
  type FieldError,
  type KubeObject,
  type ManifestIssue,
} from '@kubesvc/api-types';
import type { ClusterIPFamilies } from '@kubesvc/api-types';
import { placeObjects } from '../dump/documents.js';
import { withDefaultNamespace } from '../dump/load-dump.js';
import { formatTable } from '../output/output-format.js';
import { formatNames, groupOfKind } from '../output/printer.js';

export type ValidationResult = 'valid' | 'invalid' | 'skipped';

export interface ValidationEntry {
  /** The input the object is in, when the report covers several (mergeValidation). */
  readonly file?: string;
  readonly document: number;
  readonly item?: number;
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly result: ValidationResult;
  /** The apiserver's message for an invalid object (`Service "web" is invalid: [...]`), or the decode problem. */
  readonly message?: string;
  /** One line per field error, as upstream renders it (`spec.ports[0].port: Invalid value: 0: ...`). */
  readonly errors: readonly string[];
}

export interface ValidationReport {
  readonly source: string;
  readonly entries: readonly ValidationEntry[];
  readonly valid: number;
  readonly invalid: number;
  readonly skipped: number;
}

/** The field errors of one object: a Service as a create (defaulting, cluster IPs, IP families), any other kind defaulted. */
export function objectErrors(object: KubeObject, ipFamilies: ClusterIPFamilies): { message: string; causes: readonly FieldError[] } | undefined {
  if (object.kind === 'Service') {
    const created = validateServiceCreate(object, { ipFamilies });
    return created.ok ? undefined : { message: created.error.message, causes: created.error.causes };
  }
  const defaulted = defaultObject(object);
  const causes = validateObject(defaulted);
  return causes.length === 0 ? undefined : { message: errInvalid(defaulted, causes).message, causes };
}

function identity(object: KubeObject): Pick<ValidationEntry, 'kind' | 'namespace' | 'name'> {
  return {
    kind: object.kind,
    ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
    ...(object.metadata.name !== undefined ? { name: object.metadata.name } : {}),
  };
}

function issueEntries(issues: readonly ManifestIssue[], result: ValidationResult): ValidationEntry[] {
  // One entry per document (and item); its causes are the lines.
  const byPlace = new Map<string, ValidationEntry>();
  for (const issue of issues) {
    const key = `${issue.document}/${issue.item ?? ''}`;
    const line = `${issue.field ? `${issue.field}: ` : ''}${issue.message}`;
    const seen = byPlace.get(key);
    if (seen !== undefined) {
      byPlace.set(key, { ...seen, errors: [...seen.errors, line] });
      continue;
    }
    byPlace.set(key, {
      document: issue.document,
      ...(issue.item !== undefined ? { item: issue.item } : {}),
      ...(issue.kind !== undefined ? { kind: issue.kind } : {}),
      ...(issue.namespace !== undefined ? { namespace: issue.namespace } : {}),
      ...(issue.name !== undefined ? { name: issue.name } : {}),
      result,
      message: result === 'skipped' ? 'kind not modelled here: not checked' : 'does not decode',
      errors: result === 'skipped' ? [] : [line],
    });
  }
  return [...byPlace.values()];
}

/** Checks every document of `text`. */
export function validateText(source: string, text: string, ipFamilies: ClusterIPFamilies): ValidationReport {
  const placed = placeObjects(text);
  const entries: ValidationEntry[] = [...issueEntries(placed.errors, 'invalid'), ...issueEntries(placed.skipped, 'skipped')];
  for (const placedObject of placed.objects) {
    const { document, item } = placedObject;
    // As kubectl sends it: a namespaced object without a namespace goes to `default`.
    const object = withDefaultNamespace(placedObject.object);
    const problems = objectErrors(object, ipFamilies);
    entries.push({
      document,
      ...(item !== undefined ? { item } : {}),
      ...identity(object),
      result: problems === undefined ? 'valid' : 'invalid',
      ...(problems !== undefined ? { message: problems.message } : {}),
      errors: problems === undefined ? [] : problems.causes.map(renderFieldError),
    });
  }
  entries.sort((a, b) => a.document - b.document || (a.item ?? -1) - (b.item ?? -1));
  const count = (r: ValidationResult) => entries.filter((e) => e.result === r).length;
  return { source, entries, valid: count('valid'), invalid: count('invalid'), skipped: count('skipped') };
}

/**
 * The reports of several inputs as one named `source`: their entries in input order, each
 * carrying its input's name, and the counts summed. Two inputs holding the same object are
 * not an error here: each object is checked as its create would be.
 */
export function mergeValidation(source: string, reports: readonly ValidationReport[]): ValidationReport {
  const [only] = reports;
  if (reports.length === 1 && only !== undefined) return only;
  const entries = reports.flatMap((r) => r.entries.map((e) => ({ file: r.source, ...e })));
  const sum = (f: (r: ValidationReport) => number) => reports.reduce((n, r) => n + f(r), 0);
  return { source, entries, valid: sum((r) => r.valid), invalid: sum((r) => r.invalid), skipped: sum((r) => r.skipped) };
}

/** `document 2, items[3] (Service shop/web)`, as api-types' formatManifestIssue names a place. */
export function placeText(entry: Pick<ValidationEntry, 'document' | 'item' | 'kind' | 'namespace' | 'name'>): string {
  let where = entry.document === 0 ? 'object' : `document ${entry.document}`;
  if (entry.item !== undefined) where += `, items[${entry.item}]`;
  const name = entry.namespace ? `${entry.namespace}/${entry.name ?? ''}` : (entry.name ?? '');
  const id = [entry.kind, name].filter((s) => s).join(' ');
  return id === '' ? where : `${where} (${id})`;
}

/** Text: a line per object, `FILE: document 1 (Service shop/web): valid`, each field error indented below an invalid one. */
export function formatValidation(report: ValidationReport): string {
  const lines: string[] = [];
  for (const e of report.entries) {
    const head = `${e.file ?? report.source}: ${placeText(e)}`;
    if (e.result === 'valid') lines.push(`${head}: valid`);
    else if (e.result === 'skipped') lines.push(`${head}: skipped: ${e.message ?? ''}`);
    else {
      lines.push(`${head}: ${e.message ?? 'invalid'}`);
      for (const error of e.errors) lines.push(`  ${error}`);
    }
  }
  lines.push(`${report.valid} valid, ${report.invalid} invalid${report.skipped > 0 ? `, ${report.skipped} skipped` : ''}`);
  return lines.map((l) => `${l}\n`).join('');
}

/** `-o table`; `-o wide` adds each object's verdict (upstream's message, or why it was skipped). */
export function validationTable(report: ValidationReport, wide = false): string {
  // Several inputs: a FILE column first.
  const files = report.entries.some((e) => e.file !== undefined);
  return formatTable(
    [...(files ? ['FILE'] : []), 'DOCUMENT', 'KIND', 'NAMESPACE', 'NAME', 'RESULT', 'ERRORS', ...(wide ? ['MESSAGE'] : [])],
    report.entries.map((e) => [
      ...(files ? [e.file ?? ''] : []),
      e.document === 0 ? '?' : `${e.document}${e.item !== undefined ? `.items[${e.item}]` : ''}`,
      e.kind ?? '',
      e.namespace ?? '',
      e.name ?? '',
      e.result,
      String(e.errors.length),
      ...(wide ? [e.result === 'valid' ? '<none>' : (e.message ?? '')] : []),
    ]),
  );
}

/** `-o name`: each object checked (valid or invalid) that has a kind and a name, as kubectl names it. */
export function validationNames(report: ValidationReport): string {
  return formatNames(report.entries.filter((e) => e.result !== 'skipped' && e.kind !== undefined && e.name !== undefined && e.name !== '').map((e) => ({ kind: e.kind ?? '', group: groupOfKind(e.kind ?? ''), name: e.name ?? '' })));
}

export function validationData(report: ValidationReport): Record<string, unknown> {
  return {
    file: report.source,
    valid: report.valid,
    invalid: report.invalid,
    skipped: report.skipped,
    objects: report.entries.map((e) => ({ ...e, errors: [...e.errors] })),
  };
}
