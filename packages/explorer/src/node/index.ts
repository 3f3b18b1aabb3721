// Public API of @kubesvc/explorer/node: the HTTP handler that serves the page and its JSON and
// event stream, the standalone server of `kubesvc explore`, and the built page's assets.
export type { ExplorerHandler, ExplorerHandlerOptions, ExplorerSource } from './explorer-handler.js';
export { EXPLORER_PREFIX, createExplorerHandler } from './explorer-handler.js';
export { REPLAY_DEFAULT_COUNT, REPLAY_MAX_COUNT } from './replay-request.js';
export type { ExplorerServer, ExplorerServerOptions } from './explorer-server.js';
export { explorerLink, startExplorerServer } from './explorer-server.js';
export type { UiAsset } from './ui-assets.js';
export { UI_DIR, loadUiAssets } from './ui-assets.js';
export { buildUi, ensureUiBuilt, isCheckout } from './ui-build.js';
