// Public API of @kubesvc/runtime.
export * from './registry/index.js';
