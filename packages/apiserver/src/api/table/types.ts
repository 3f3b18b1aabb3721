// meta.k8s.io/v1 Table, the form kube-apiserver answers in when a client sends
// `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` (kubectl get does, for human output).
// upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go (Table, TableRow,
//           TableColumnDefinition, TableRowCondition, PartialObjectMetadata, IncludeObjectPolicy)
import type { ObjectMeta } from '@kubesvc/api-types';

/** A column's OpenAPI type. kubectl right-aligns nothing and prints every type as text. */
export type TableColumnType = 'string' | 'integer' | 'number' | 'boolean' | 'date';

export interface TableColumnDefinition {
  readonly name: string;
  readonly type: TableColumnType;
  readonly format: string;
  readonly description: string;
  /** 0 for the default columns; 1 for the ones `kubectl get -o wide` adds. */
  readonly priority: number;
}

/** One cell: upstream printers put Go strings, int64s and bools in cells. */
export type TableCell = string | number | boolean;

export interface TableRowCondition {
  readonly type: 'Completed';
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason?: string;
  readonly message?: string;
}

/** The metadata-only form of an object, the default content of a row's `object`. */
export interface PartialObjectMetadata {
  readonly kind: 'PartialObjectMetadata';
  readonly apiVersion: 'meta.k8s.io/v1';
  readonly metadata: ObjectMeta;
}

export interface TableRow {
  readonly cells: readonly TableCell[];
  readonly conditions?: readonly TableRowCondition[];
  /**
   * PartialObjectMetadata (includeObject=Metadata, the default), the whole object
   * (includeObject=Object), or null (includeObject=None), as upstream's RawExtension
   * marshals an absent object.
   */
  readonly object: PartialObjectMetadata | Readonly<Record<string, unknown>> | null;
}

export interface TableListMeta {
  readonly resourceVersion?: string;
  readonly continue?: string;
}

export interface Table {
  readonly kind: 'Table';
  readonly apiVersion: 'meta.k8s.io/v1';
  readonly metadata: TableListMeta;
  readonly columnDefinitions: readonly TableColumnDefinition[];
  readonly rows: readonly TableRow[];
}

/** metav1.IncludeObjectPolicy: what each row carries in `object`. */
export type IncludeObjectPolicy = 'None' | 'Metadata' | 'Object';
