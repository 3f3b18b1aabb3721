export * from './constants.js';
export * from './errors.js';
export { servicePortNameString, type ServicePortName } from '@kubesvc/api-types';
export * from './shuffle.js';
export * from './endpoints-map.js';
export * from './persistent-map.js';
export * from './load-balancer.js';
export * from './portal-rules.js';
