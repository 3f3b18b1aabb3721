export { DEFAULT_NUM_RUNS, PropertyConfigError, readPropertyConfig } from './property-config.js';
export type { PropertyConfig } from './property-config.js';
export { replayCommand, shellQuote, testNamePattern } from './replay-command.js';
export type { ReplayTarget } from './replay-command.js';
export { installPropertyHarness, propertyReporter } from './property-harness.js';
export type { LocateTest } from './property-harness.js';
export * from './arbitraries/index.js';
export * from './upstream-messages.js';
