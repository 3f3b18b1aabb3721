// The Table kube-apiserver answers a list (or get, or watch event) with when asked for
// `as=Table;g=meta.k8s.io;v=v1`: the resource's columns, one row per object, and in each row
// the object as includeObject asks (metadata only by default).
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go (asTable),
//           pkg/printers/tablegenerator.go (GenerateTable), pkg/printers/storage/storage.go
import type { KubeObject, ObjectMeta } from '@kubesvc/api-types';
import type { ResourceName } from '../../registry/resources.js';
import { deploymentPrinter, replicaSetPrinter } from './apps-printer.js';
import { endpointSlicePrinter } from './endpoint-slice-printer.js';
import { endpointsPrinter } from './endpoints-printer.js';
import { eventPrinter } from './event-printer.js';
import { namespacePrinter } from './namespace-printer.js';
import { nodePrinter, type NodeObject } from './node-printer.js';
import { podPrinter } from './pod-printer.js';
import type { ResourcePrinter } from './printer.js';
import { ipAddressPrinter, serviceCIDRPrinter } from './service-cidr-printer.js';
import { servicePrinter } from './service-printer.js';
import type { IncludeObjectPolicy, PartialObjectMetadata, Table, TableColumnDefinition, TableRow } from './types.js';

export type TableResource = ResourceName | 'nodes';

/** Any object a printer reads: a KubeObject, or plain JSON with metadata (a Node). */
export type PrintableObject = KubeObject | NodeObject;

export interface PrintTableContext {
  /** The time ages are measured to, in ms since the epoch. */
  readonly now: number;
  readonly resourceVersion?: string | undefined;
  readonly continue?: string | undefined;
  /** What each row's `object` holds; Metadata (a PartialObjectMetadata) when not given. */
  readonly includeObject?: IncludeObjectPolicy | undefined;
  /**
   * Leave the column definitions out. The apiserver does so for every watch event after
   * the first, and kubectl then reuses the columns it already has.
   */
  readonly noHeaders?: boolean | undefined;
}

// The printers are typed by kind; the dispatch below checks nothing, like upstream's
// reflect-keyed handler map: a list of one resource holds objects of that resource.
type AnyPrinter = ResourcePrinter<never>;
const PRINTERS: Readonly<Record<TableResource, AnyPrinter>> = {
  services: servicePrinter,
  endpoints: endpointsPrinter,
  endpointslices: endpointSlicePrinter,
  pods: podPrinter,
  namespaces: namespacePrinter,
  nodes: nodePrinter,
  events: eventPrinter,
  servicecidrs: serviceCIDRPrinter,
  ipaddresses: ipAddressPrinter,
  deployments: deploymentPrinter,
  replicasets: replicaSetPrinter,
};

/** The column definitions of a resource's Table, or undefined when it has no printer. */
export function tableColumns(resource: TableResource): readonly TableColumnDefinition[] | undefined {
  return Object.hasOwn(PRINTERS, resource) ? PRINTERS[resource].columns : undefined;
}

function metadataOf(object: PrintableObject): ObjectMeta {
  return object.metadata;
}

function rowObject(object: PrintableObject, include: IncludeObjectPolicy): TableRow['object'] {
  switch (include) {
    case 'None':
      return null;
    case 'Object':
      return object as Readonly<Record<string, unknown>>;
    case 'Metadata': {
      const partial: PartialObjectMetadata = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: metadataOf(object) };
      return partial;
    }
  }
}

/**
 * The Table of `objects`, all of `resource`, or undefined for a resource without a printer.
 * Every row has a cell for every column: the server prints wide, and kubectl hides the
 * priority-1 columns unless asked for `-o wide`.
 */
export function printTable(resource: TableResource, objects: readonly PrintableObject[], ctx: PrintTableContext): Table | undefined {
  if (!Object.hasOwn(PRINTERS, resource)) return undefined;
  const printer = PRINTERS[resource] as unknown as ResourcePrinter<PrintableObject>;
  const include = ctx.includeObject ?? 'Metadata';
  const rows = objects.map((object): TableRow => {
    const conditions = printer.conditions?.(object);
    return {
      cells: printer.cells(object, ctx.now),
      ...(conditions === undefined ? {} : { conditions }),
      object: rowObject(object, include),
    };
  });
  const metadata = {
    ...(ctx.resourceVersion === undefined || ctx.resourceVersion === '' ? {} : { resourceVersion: ctx.resourceVersion }),
    ...(ctx.continue === undefined || ctx.continue === '' ? {} : { continue: ctx.continue }),
  };
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: ctx.noHeaders === true ? [] : printer.columns,
    rows,
  };
}

/**
 * The object of one watch event when the watch asked for Tables: a Table with that object's
 * one row, at the object's resourceVersion. Pass `noHeaders` for every event after the first.
 */
export function printWatchEventTable(
  resource: TableResource,
  object: PrintableObject,
  ctx: Omit<PrintTableContext, 'resourceVersion' | 'continue'>,
): Table | undefined {
  return printTable(resource, [object], { ...ctx, resourceVersion: metadataOf(object).resourceVersion });
}
