export { compareEndpointAddresses, repackSubsets } from './repack-subsets.js';
