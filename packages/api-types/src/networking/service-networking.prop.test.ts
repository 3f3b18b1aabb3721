// The parse of the printed value is the value: parseServiceNetworking(serviceNetworkingFlags(n))
// gives n back, for every configuration the parser accepts (one or two CIDRs of different
// families from /0 to the longest prefix, any port range, a few domains).
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { formatCIDR, type CIDR } from '../net/cidr.js';
import { ipFromBigInt } from '../net/ip.js';
import { parseServiceNetworking, serviceNetworkingEquals, serviceNetworkingFlags } from './service-networking.js';

const cidrOf = (family: 4 | 6) =>
  fc.tuple(fc.bigInt({ min: 0n, max: (1n << (family === 4 ? 32n : 128n)) - 1n }), fc.integer({ min: 0, max: family === 4 ? 32 : 128 })).map(([value, prefix]): CIDR => {
    const bits = family === 4 ? 32n : 128n;
    const hostBits = bits - BigInt(prefix);
    const network = (value >> hostBits) << hostBits;
    return { network: ipFromBigInt(family, network), prefix };
  });

const rangeFlag = fc.oneof(
  cidrOf(4).map((c) => formatCIDR(c)),
  cidrOf(6).map((c) => formatCIDR(c)),
  fc.tuple(cidrOf(4), cidrOf(6), fc.boolean()).map(([a, b, v6First]) => (v6First ? [b, a] : [a, b]).map(formatCIDR).join(',')),
  fc.constant(''),
);

const portFlag = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 65535 }), fc.integer({ min: 0, max: 65535 })).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
  fc.integer({ min: 0, max: 65535 }).map(String),
  fc.constant(''),
);

const domainFlag = fc.constantFrom('', 'cluster.local', 'Cluster.Local.', 'k8s.example.org', 'a');

test.prop([rangeFlag, portFlag, domainFlag], { numRuns: 500 })('the parse of the printed value round-trips', (serviceClusterIPRange, serviceNodePortRange, clusterDomain) => {
  const parsed = parseServiceNetworking({ serviceClusterIPRange, serviceNodePortRange, clusterDomain });
  fc.pre(parsed.ok);
  if (!parsed.ok) return;
  const printed = serviceNetworkingFlags(parsed.value);
  const again = parseServiceNetworking(printed);
  expect(again.ok).toBe(true);
  if (!again.ok) return;
  expect(serviceNetworkingEquals(again.value, parsed.value)).toBe(true);
  expect(again.value).toEqual(parsed.value);
  expect(serviceNetworkingFlags(again.value)).toEqual(printed);
});
