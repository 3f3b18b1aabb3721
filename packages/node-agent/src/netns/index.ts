// `@kubesvc/node-agent/netns`: the data plane of `--dataplane netns`, apart from the package's
// main entry so that only a caller that asks for it loads @kubesvc/netlab.
export { netnsDataplane, netnsUnavailable, NetnsDataplane } from './netns-dataplane.js';
export type { NetnsDataplaneOptions } from './netns-dataplane.js';
