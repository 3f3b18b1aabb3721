// Public API of @kubesvc/apiserver: kube-apiserver's REST storage (the registry) and its HTTP
// API over @kubesvc/store, and the (level, message) logger the shell's hosts share.
export * from './registry/index.js';
export * from './api/index.js';
export * from './metrics/index.js';
export { printTable, printWatchEventTable, type PrintTableContext, type Table } from './api/table/index.js';
export { consoleLogger, recordingLogger, silentLogger } from './logger.js';
export type { Logger, LogLevel, RecordingLogger } from './logger.js';
