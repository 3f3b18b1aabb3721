export { printTable, printWatchEventTable, tableColumns } from './print-table.js';
export type { PrintableObject, PrintTableContext, TableResource } from './print-table.js';
export { humanDuration, translateTimestampSince } from './human-duration.js';
export type { NodeObject } from './node-printer.js';
export type {
  IncludeObjectPolicy,
  PartialObjectMetadata,
  Table,
  TableCell,
  TableColumnDefinition,
  TableColumnType,
  TableListMeta,
  TableRow,
  TableRowCondition,
} from './types.js';
