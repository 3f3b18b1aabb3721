export { UserspaceProxier } from './proxier.js';
export type { ListenAddress, ProxierOptions, ServicePortCounters, ServicePortSpec } from './proxier.js';
