export * from './objects/index.js';
export * from './defaults.js';
export * from './manifest/index.js';
export * from './net/index.js';
export * from './validation/index.js';
export * from './service-ip-families.js';
export * from './service-update.js';
export * from './allocator/index.js';
