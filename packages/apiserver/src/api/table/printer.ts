// The shape every resource printer has: its column definitions (upstream's AddHandlers) and the
// function that turns one object into the cells of its row (upstream's print<Kind>).
// The server always prints wide, so a row has a cell for every column, priority 1 included,
// and kubectl hides the priority-1 columns unless asked for `-o wide`.
// upstream: pkg/printers/storage/storage.go (ConvertToTable prints with Wide: true),
//           pkg/printers/tablegenerator.go (GenerateTable)
import type { TableCell, TableColumnDefinition, TableColumnType, TableRowCondition } from './types.js';

export interface ResourcePrinter<T> {
  readonly columns: readonly TableColumnDefinition[];
  readonly cells: (object: T, now: number) => readonly TableCell[];
  /** Row conditions; upstream sets them for pods that have finished. */
  readonly conditions?: (object: T) => readonly TableRowCondition[] | undefined;
}

export function column(name: string, type: TableColumnType, description: string, options: { readonly priority?: number; readonly format?: string } = {}): TableColumnDefinition {
  return { name, type, format: options.format ?? '', description, priority: options.priority ?? 0 };
}

// The descriptions are kubesvc's own short texts; upstream takes most of them from the API's
// generated field documentation (see docs/deviations.md).
export const NAME_COLUMN = column('Name', 'string', 'The name of the object, unique within its namespace.', { format: 'name' });
export const AGE_COLUMN = column('Age', 'string', 'How long ago the object was created.');

/** labels.FormatLabels: `k=v` pairs sorted by key and joined with commas, or "<none>". */
export function formatLabels(labels: Readonly<Record<string, string>> | undefined): string {
  const keys = Object.keys(labels ?? {}).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${labels?.[k] ?? ''}`).join(',');
}

/** The "+ N more..." lists of the endpoint printers: at most three items, then a count. */
export function listWithMore(list: readonly string[], more: boolean, count: number, max: number, empty: string): string {
  const joined = list.join(',');
  if (more) return `${joined} + ${count - max} more...`;
  return joined === '' ? empty : joined;
}

/** net.JoinHostPort: IPv6 hosts (anything with a colon) go in brackets. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Reading the plain-JSON parts of objects that the api-types schemas keep loosely. */
export function asRecord(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Readonly<Record<string, unknown>>) : {};
}

export function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function asNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
