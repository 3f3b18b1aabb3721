// The registry of benchmark suites, by name. Each entry loads its suite's module only when the
// suite runs (or for --list), so a run of one suite carries none of the others' imports: the
// runtime and ha suites import the testkit, whose fast-check holds about 240 MiB of heap that
// every major collection of another suite's task would otherwise mark. Large inputs are built in
// a task's setup.
import type { SuiteEntry } from './cli.js';

export const suites: readonly SuiteEntry[] = [
  { name: 'allocators', load: async () => (await import('./allocators.js')).allocatorsSuite() },
  { name: 'api', load: async () => (await import('./api.js')).apiSuite() },
  { name: 'api-stall', load: async () => (await import('./api-stall.js')).apiStallSuite() },
  { name: 'cli', load: async () => (await import('./kubesvc-cli.js')).cliSuite() },
  { name: 'discovery', load: async () => (await import('./discovery.js')).discoverySuite() },
  { name: 'proxy-iptables', load: async () => (await import('./proxy-iptables.js')).proxyIptablesSuite() },
  { name: 'proxy-nftables', load: async () => (await import('./proxy-nftables.js')).proxyNftablesSuite() },
  { name: 'proxy-userspace', load: async () => (await import('./proxy-userspace.js')).proxyUserspaceSuite() },
  { name: 'runtime', load: async () => (await import('./runtime.js')).runtimeSuite() },
  { name: 'node-agent', load: async () => (await import('./node-agent.js')).nodeAgentSuite() },
  { name: 'ha', load: async () => (await import('./ha.js')).haSuite() },
  { name: 'scale', load: async () => (await import('./scale.js')).scaleSuite() },
  { name: 'store-churn', load: async () => (await import('./store-churn.js')).storeChurnSuite() },
];
