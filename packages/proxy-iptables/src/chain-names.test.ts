// Chain names: upstream's known names reproduced, and the INV-IPT-NAMES properties.
import { createHash } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { endpointChainName, isServiceChainName, portProtoHash, serviceChainNames } from './chain-names.js';

describe('known upstream chain names', () => {
  // upstream: pkg/proxy/iptables/proxier_test.go (v1.31 line) expected outputs; the
  // kubernetes service name is the reference's §8.2 example.
  it.each([
    ['default/kubernetes:https', 'tcp', 'KUBE-SVC-NPX46M4PTMTKRN6Y'],
    ['ns1/svc1:p80', 'tcp', 'KUBE-SVC-XPGD46QRK7WJZT7O'],
    ['ns2/svc2:p80', 'tcp', 'KUBE-SVC-GNZBNJ2PO5MGZ6GT'],
    ['ns3/svc3:p80', 'tcp', 'KUBE-SVC-X27LE4BHSL4DOUIK'],
    ['ns4/svc4:p80', 'tcp', 'KUBE-SVC-4SW47YFZTEDKD3PK'],
    ['ns5/svc5:p80', 'tcp', 'KUBE-SVC-NUKIZ6OKUXPJNT4C'],
    ['ns2/svc2:p8080', 'tcp', 'KUBE-SVC-2VJB64SDSIJUP5T6'],
  ])('%s over %s is %s', (spn, protocol, name) => {
    expect(serviceChainNames(spn, protocol).cluster).toBe(name);
  });

  it('derives SVL, EXT and FW from the same hash', () => {
    expect(serviceChainNames('ns5/svc5:p80', 'tcp')).toEqual({
      cluster: 'KUBE-SVC-NUKIZ6OKUXPJNT4C',
      local: 'KUBE-SVL-NUKIZ6OKUXPJNT4C',
      firewall: 'KUBE-FW-NUKIZ6OKUXPJNT4C',
      external: 'KUBE-EXT-NUKIZ6OKUXPJNT4C',
    });
  });

  it.each([
    ['ns1/svc1:p80', '10.180.0.1:80', 'KUBE-SEP-SXIVWICOYRO3J4NJ'],
    ['ns2/svc2:p80', '10.180.0.2:80', 'KUBE-SEP-RS4RBKLTHTF2IUXJ'],
    ['ns3/svc3:p80', '10.180.0.3:80', 'KUBE-SEP-OYPFS5VJICHGATKP'],
    ['ns4/svc4:p80', '10.180.0.4:80', 'KUBE-SEP-UKSFD7AGPMPPLUHC'],
    ['ns4/svc4:p80', '10.180.0.5:80', 'KUBE-SEP-C6EBXVWJJZMIWKLZ'],
    ['ns5/svc5:p80', '10.180.0.3:80', 'KUBE-SEP-I77PXRDZVX7PMWMN'],
    ['ns1/svc1:p80', '10.0.0.0:80', 'KUBE-SEP-DKGQUZGBKLTPAR56'],
    ['ns3/svc3:p8081', '203.0.113.4:8081', 'KUBE-SEP-RUVVH7YV3PHQBDOS'],
    ['ns4/svc4:p8082', '10.4.0.1:8082', 'KUBE-SEP-SU5STNODRYEWJAUF'],
  ])('endpoint %s -> %s is %s', (spn, endpoint, name) => {
    expect(endpointChainName(spn, 'tcp', endpoint)).toBe(name);
  });

  it('recognises the per-service chain prefixes only', () => {
    expect(['KUBE-SVC-X', 'KUBE-SVL-X', 'KUBE-EXT-X', 'KUBE-FW-X', 'KUBE-SEP-X'].every(isServiceChainName)).toBe(true);
    expect(['KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-MARK-MASQ', 'KUBE-XLB-X'].some(isServiceChainName)).toBe(false);
  });
});

const spnArb = fc
  .tuple(
    fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/),
    fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/),
    fc.option(fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?$/), { nil: undefined }),
  )
  .map(([ns, name, port]) => (port === undefined ? `${ns}/${name}` : `${ns}/${name}:${port}`));
const protocolArb = fc.constantFrom('tcp', 'udp', 'sctp');

describe('INV-IPT-NAMES', () => {
  test.prop([spnArb, protocolArb])(
    'INV-IPT-NAMES: chain names are at most 28 characters, base32 after the prefix, and agree with a node:crypto oracle',
    (spn, protocol) => {
      const names = serviceChainNames(spn, protocol);
      for (const name of Object.values(names)) {
        expect(name.length).toBeLessThanOrEqual(28);
        expect(name).toMatch(/^KUBE-(SVC|SVL|EXT|FW)-[A-Z2-7]{16}$/);
      }
      const digest = createHash('sha256').update(spn + protocol).digest();
      const bits = [...digest].map((b) => b.toString(2).padStart(8, '0')).join('');
      let oracle = '';
      for (let i = 0; i < 80; i += 5) oracle += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[parseInt(bits.slice(i, i + 5), 2)];
      expect(portProtoHash(spn, protocol)).toBe(oracle);
    },
  );

  test.prop([fc.uniqueArray(fc.tuple(spnArb, protocolArb), { minLength: 2, maxLength: 200, selector: ([s, p]) => `${s}|${p}` })])(
    'INV-IPT-NAMES: distinct service ports of a generated cluster get distinct chain names, stable across calls',
    (ports) => {
      const names = ports.map(([spn, protocol]) => serviceChainNames(spn, protocol).cluster);
      expect(new Set(names).size).toBe(ports.length);
      expect(ports.map(([spn, protocol]) => serviceChainNames(spn, protocol).cluster)).toEqual(names);
    },
  );
});
