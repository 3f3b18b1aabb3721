// Public API of @kubesvc/explorer: the model the page shows. The HTTP handler, the server and
// the page's assets, which do I/O, are in @kubesvc/explorer/node.
export type {
  AllocatedIP,
  AllocationMap,
  AllocationRange,
  ErrExplorerTrace,
  ExplorerModel,
  RuleGraph,
  RuleGraphEdge,
  RuleGraphNode,
  ServiceDetail,
  ServiceEndpoint,
  ServicePort,
  ServicesTableColumn,
  ServicesTableRow,
  TraceAnswer,
  TraceOutcomeView,
  TraceRequest,
} from './explorer-model.js';
