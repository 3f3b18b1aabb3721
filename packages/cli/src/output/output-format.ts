// `-o table|json|yaml` (and jsonpath=): the same data in several forms. Pure.
import { printJSON, printYAML } from '@kubesvc/api-types';
import { renderJsonPath } from './jsonpath.js';

export const DATA_FORMATS = ['table', 'json', 'yaml'] as const;
export type DataFormat = (typeof DATA_FORMATS)[number];

/**
 * Columns as kubectl prints them (its tabwriter: upper-case headers, each column padded to its
 * widest cell plus three spaces, the last column not padded).
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 3)))
      .join('')
      .trimEnd();
  return [line(headers), ...rows.map(line)].map((l) => `${l}\n`).join('');
}

/** Data as JSON (four spaces, keys sorted, as `kubectl -o json`) or YAML (as `kubectl -o yaml`). */
export function formatData(format: 'json' | 'yaml', data: Readonly<Record<string, unknown>>): string {
  return format === 'json' ? printJSON(data) : printYAML(data);
}

/** `-o jsonpath=TEMPLATE` over exactly the data `-o json` prints. */
export function jsonPathOf(template: string, data: Readonly<Record<string, unknown>>): string {
  return renderJsonPath(template, JSON.parse(formatData('json', data)) as unknown);
}
