// `kubectl get namespaces`: NAME STATUS AGE.
// upstream: pkg/printers/internalversion/printers.go (namespaceColumnDefinitions, printNamespace)
import type { Namespace } from '@kubesvc/api-types';
import { translateTimestampSince } from './human-duration.js';
import { AGE_COLUMN, column, NAME_COLUMN, type ResourcePrinter } from './printer.js';

export const namespacePrinter: ResourcePrinter<Namespace> = {
  columns: [NAME_COLUMN, column('Status', 'string', 'The phase of the namespace: Active or Terminating.'), AGE_COLUMN],
  cells: (ns, now) => [ns.metadata.name ?? '', ns.status?.phase ?? '', translateTimestampSince(ns.metadata.creationTimestamp, now)],
};
