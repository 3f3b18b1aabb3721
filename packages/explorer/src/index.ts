// Public API of @kubesvc/explorer.
export type {
  AllocatedIP,
  AllocationMap,
  AllocationRange,
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
export type { ExplorerHandler, ExplorerHandlerOptions, ExplorerSource } from './explorer-handler.js';
export { EXPLORER_PREFIX, createExplorerHandler } from './explorer-handler.js';
export type { ExplorerServer, ExplorerServerOptions } from './explorer-server.js';
export { explorerLink, startExplorerServer } from './explorer-server.js';
export type { UiAsset } from './ui-assets.js';
export { UI_DIR, loadUiAssets } from './ui-assets.js';
export { buildUi, ensureUiBuilt, isCheckout } from './ui-build.js';
