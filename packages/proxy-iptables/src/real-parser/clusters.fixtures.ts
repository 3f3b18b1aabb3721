// Test-only (excluded from the library build): clusters for the rule generator, the
// testkit's proxierClusterArb (Services with slices that belong to them, some endpoints on
// the proxier's node) with an iptables proxier config of the same family.

import { fc } from '@fast-check/vitest';
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { proxierClusterArb } from '@kubesvc/testkit';
import type { ProxierConfig } from '../proxier-config.js';
import { validConfig } from '../proxier-config.fixtures.js';

export const NODE_NAME = 'test-node';

export interface Cluster {
  readonly services: readonly Service[];
  readonly slices: readonly EndpointSlice[];
  readonly config: ProxierConfig;
}

function configArb(family: 4 | 6): fc.Arbitrary<ProxierConfig> {
  return fc
    .record({
      detector: fc.boolean(),
      masqueradeAll: fc.boolean(),
      randomFully: fc.boolean(),
      localhostNodePorts: fc.boolean(),
      conntrackTCPLiberal: fc.boolean(),
      old: fc.boolean(),
    })
    .map((o) =>
      validConfig({
        nodeName: NODE_NAME,
        nodeIPs: family === 4 ? ['127.0.0.1', '192.168.0.2'] : ['::1', '2001:db8::2'],
        family,
        localDetector: o.detector ? { kind: 'cidr', cidr: family === 4 ? '10.244.0.0/16' : 'fd00:10:244::/64' } : { kind: 'none' },
        masqueradeAll: o.masqueradeAll,
        randomFully: o.randomFully,
        localhostNodePorts: o.localhostNodePorts,
        conntrackTCPLiberal: o.conntrackTCPLiberal,
        probabilityFormat: o.old ? 'old' : 'modern',
        // The real kernel refuses -m nfacct for a counter nobody created.
        nfacctCounters: false,
      }),
    );
}

export function clusterArb(
  serviceArb: fc.Arbitrary<Service>,
  sliceArb: fc.Arbitrary<EndpointSlice>,
  family: 4 | 6,
): fc.Arbitrary<Cluster> {
  return fc
    .tuple(proxierClusterArb(serviceArb, sliceArb, family, NODE_NAME), configArb(family))
    .map(([cluster, config]) => ({ ...cluster, config }));
}
