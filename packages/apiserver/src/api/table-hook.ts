// The Table printer the server is given (the meta.k8s.io/v1 Table kubectl's human output
// reads), as a structural contract: the printers live in their own module and the server only
// calls the hook, answering a plain object or list when it has none or it declines.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go (asTable)
import type { KubeObject } from '@kubesvc/api-types';
import type { ResourceName } from '../registry/resources.js';

/** What each row's `object` carries (metav1.IncludeObjectPolicy). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableContext {
  /** The time ages are measured to, in ms since the epoch. */
  readonly now: number;
  readonly resourceVersion?: string | undefined;
  readonly continue?: string | undefined;
  readonly includeObject?: IncludeObject | undefined;
  /** Leave the column definitions out: every watch event after the first. */
  readonly noHeaders?: boolean | undefined;
}

/** A meta.k8s.io/v1 Table; only the fields the server touches are typed. */
export interface ApiTable {
  readonly kind: 'Table';
  readonly apiVersion: 'meta.k8s.io/v1';
  readonly metadata: { readonly resourceVersion?: string; readonly continue?: string };
  readonly columnDefinitions: readonly unknown[];
  readonly rows: readonly unknown[];
}

/** Prints `objects` (all of `resource`) as a Table, or undefined to answer without one. */
export type TablePrinter = (resource: ResourceName, objects: readonly KubeObject[], ctx: TableContext) => ApiTable | undefined;
