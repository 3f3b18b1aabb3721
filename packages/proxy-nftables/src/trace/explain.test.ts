// explain over the rules generateNftablesRules writes for one small cluster: the behaviours
// kube-proxy's nftables mode documents (pkg/proxy/nftables/README.md, v1.33) and that set it
// apart from the iptables mode, each as the text a user reads.
import { makeService, makeSlice } from '@kubesvc/testkit';
import { describe, expect, test } from 'vitest';
import { nftablesProxierConfig } from '../config.js';
import { generateNftablesRules } from '../generate/generate.js';
import { applyTransaction } from '../model/apply.js';
import type { NftTable } from '../model/types.js';
import { explain } from './explain.js';

function table(): NftTable {
  const services = [makeService('shop', 'web', { type: 'ClusterIP', clusterIP: '10.96.100.10', clusterIPs: ['10.96.100.10'], ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] })];
  const slices = [
    makeSlice('shop', 'web', 1, 'IPv4', ['10.244.1.5', '10.244.2.7', '10.244.3.9'].map((ip) => ({ addresses: [ip], conditions: { ready: true } })), [{ name: 'http', port: 8080, protocol: 'TCP' }]),
  ];
  const config = nftablesProxierConfig({ nodeName: 'node-1', nodeIPs: ['192.168.0.2'], serviceCIDRs: ['10.96.0.0/16'] });
  if (!config.ok) throw new Error(config.error.message);
  const applied = applyTransaction(undefined, generateNftablesRules(services, slices, config.value).transaction);
  if (!applied.ok || applied.value === undefined) throw new Error('the generated transaction did not apply');
  return applied.value;
}

const options = { localAddresses: ['192.168.0.2'] };

describe("explain: kube-proxy's nftables mode, as a user reads it", () => {
  const t = table();

  test('a connection to the ClusterIP goes to each of the three endpoints with probability exactly 1/3', () => {
    const text = explain(t, { protocol: 'tcp', source: '10.244.0.2', destination: '10.96.100.10', destinationPort: 80, entry: 'pod' }, options);
    expect(text.ok).toBe(true);
    if (!text.ok) return;
    expect(text.value.split('\n').slice(0, 2)).toEqual(['tcp 10.244.0.2 -> 10.96.100.10:80 from a pod on this node (conntrack NEW)', '3 possible outcomes']);
    const outcomes = text.value.split('\n').filter((l) => l.startsWith('outcome '));
    expect(outcomes).toEqual([
      'outcome 1: DNAT to 10.244.1.5:8080 (forwarded)',
      'outcome 2: DNAT to 10.244.2.7:8080 (forwarded)',
      'outcome 3: DNAT to 10.244.3.9:8080 (forwarded)',
    ]);
    expect(text.value.match(/^ {2}probability: written 1\/3 ≈ 0\.333333333333, kernel /gm)).toHaveLength(3);
    expect(text.value).toMatch(/numgen random mod 3 drew 0: written 1\/3, kernel /);
  });

  test('a ping to the ClusterIP is rejected (no port of it is defined for ICMP), not left unanswered as in the iptables mode', () => {
    const text = explain(t, { protocol: 'icmp', source: '10.244.0.2', destination: '10.96.100.10', entry: 'pod' }, options);
    expect(text.ok && text.value).toContain('outcome 1: reject\n  the destination is a ClusterIP');
  });

  test('a packet to an address of the ServiceCIDR that no Service has is dropped', () => {
    const text = explain(t, { protocol: 'tcp', source: '10.244.0.2', destination: '10.96.7.7', destinationPort: 80, entry: 'pod' }, options);
    expect(text.ok && text.value).toContain('1 possible outcome\n\noutcome 1: drop\n');
  });

  test('a packet to a port the ClusterIP does not define is rejected', () => {
    const text = explain(t, { protocol: 'tcp', source: '10.244.0.2', destination: '10.96.100.10', destinationPort: 81, entry: 'pod' }, options);
    expect(text.ok && text.value).toContain('outcome 1: reject\n');
  });
});
