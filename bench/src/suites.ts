// The registry of benchmark suites, by name. Each package's suite is added here by the issue
// that implements the package (the allocators, proxy-iptables, discovery, proxy-userspace).
// Every factory is called to learn the suite's name, for `--list` too, so a factory must be
// cheap: large inputs are built in a task's setup.
import type { BenchSuite } from './harness.js';
import { allocatorsSuite } from './allocators.js';
import { apiSuite } from './api.js';
import { cliSuite } from './kubesvc-cli.js';
import { discoverySuite } from './discovery.js';
import { haSuite } from './ha.js';
import { nodeAgentSuite } from './node-agent.js';
import { proxyIptablesSuite } from './proxy-iptables.js';
import { proxyUserspaceSuite } from './proxy-userspace.js';
import { runtimeSuite } from './runtime.js';

export const suites: ReadonlyArray<() => BenchSuite | Promise<BenchSuite>> = [allocatorsSuite, apiSuite, cliSuite, discoverySuite, proxyIptablesSuite, proxyUserspaceSuite, runtimeSuite, nodeAgentSuite, haSuite];
