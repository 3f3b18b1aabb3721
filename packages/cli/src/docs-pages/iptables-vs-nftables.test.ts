// docs/iptables-vs-nftables.md is written by this test from one small cluster: the rules both
// modes write for it, what each does to the same packets (the tracers' verdicts), and the size
// of both rulesets at 1,000 and 10,000 Services. The test fails when the page differs from what
// the models say today; `KUBESVC_UPDATE_DOCS=1 npx vitest run src/docs-pages` (in packages/cli)
// rewrites it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { formatRational, generateRules, proxierConfig, tracePacket, type Packet, type Trace as IptablesTrace } from '@kubesvc/proxy-iptables';
import { applyTransaction, generateNftablesRules, nftablesProxierConfig, tracePacket as traceNftables, type Trace as NftablesTrace } from '@kubesvc/proxy-nftables';
import { makeService, makeSlice } from '@kubesvc/testkit';
import { expect, test } from 'vitest';
import { REPO_ROOT } from '../run-bin.fixtures.js';

const PAGE = join(REPO_ROOT, 'docs/iptables-vs-nftables.md');
const NODE_IP = '192.168.0.2';
const SERVICE_CIDR = '10.96.0.0/16';

const services: Service[] = [
  makeService('shop', 'web', {
    type: 'NodePort',
    clusterIP: '10.96.0.10',
    clusterIPs: ['10.96.0.10'],
    ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080, nodePort: 30080 }],
  }),
  makeService('shop', 'idle', { type: 'ClusterIP', clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20'], ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] }),
];
const slices: EndpointSlice[] = [
  makeSlice(
    'shop',
    'web',
    1,
    'IPv4',
    ['10.244.1.5', '10.244.2.7'].map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
    [{ name: 'http', port: 8080, protocol: 'TCP' }],
  ),
];

function iptablesConfig() {
  const c = proxierConfig({ nodeName: 'node-1', nodeIPs: ['127.0.0.1', NODE_IP], localDetector: { kind: 'cidr', cidr: '10.244.0.0/16' } });
  if (!c.ok) throw new Error(c.error.message);
  return c.value;
}

function nftablesConfig() {
  const c = nftablesProxierConfig({ nodeName: 'node-1', nodeIPs: ['127.0.0.1', NODE_IP], localDetector: { kind: 'cidr', cidr: '10.244.0.0/16' }, serviceCIDRs: [SERVICE_CIDR] });
  if (!c.ok) throw new Error(c.error.message);
  return c.value;
}

interface Case {
  readonly what: string;
  readonly packet: Packet;
}

const CASES: readonly Case[] = [
  { what: 'curl the ClusterIP', packet: { protocol: 'tcp', source: '10.244.0.2', destination: '10.96.0.10', destinationPort: 80, entry: 'pod' } },
  { what: 'curl a port the ClusterIP does not define', packet: { protocol: 'tcp', source: '10.244.0.2', destination: '10.96.0.10', destinationPort: 81, entry: 'pod' } },
  { what: 'curl an unallocated address of the ServiceCIDR', packet: { protocol: 'tcp', source: '10.244.0.2', destination: '10.96.0.99', destinationPort: 80, entry: 'pod' } },
  { what: 'ping the ClusterIP', packet: { protocol: 'icmp', source: '10.244.0.2', destination: '10.96.0.10', entry: 'pod' } },
  { what: 'curl a Service with no endpoints', packet: { protocol: 'tcp', source: '10.244.0.2', destination: '10.96.0.20', destinationPort: 80, entry: 'pod' } },
  { what: 'curl the NodePort on the node IP, from outside', packet: { protocol: 'tcp', source: '203.0.113.10', destination: NODE_IP, destinationPort: 30080, entry: 'outside' } },
  { what: 'curl the NodePort on 127.0.0.1, on the node', packet: { protocol: 'tcp', source: '127.0.0.1', destination: '127.0.0.1', destinationPort: 30080, entry: 'host' } },
];

/** The outcomes in a line: `DNAT to a (1/2), b (1/2)`, `reject`, `no rule: not DNATed`. */
function verdicts(trace: IptablesTrace | NftablesTrace): string {
  const dnat = trace.outcomes.filter((o) => o.kind === 'dnat');
  const parts: string[] = [];
  if (dnat.length > 0) parts.push(`DNAT to ${dnat.map((o) => `${o.dnat ?? ''} (${formatRational(o.probability.written)})`).join(', ')}`);
  for (const o of trace.outcomes) {
    if (o.kind === 'dnat') continue;
    parts.push(o.kind === 'no-match' ? 'no rule: not DNATed, goes on unchanged' : o.kind);
  }
  return parts.join('; ');
}

/** N Services of one TCP port, each with 10 ready endpoints on other nodes. */
function shape(n: number): { services: Service[]; slices: EndpointSlice[] } {
  const svcs: Service[] = [];
  const eps: EndpointSlice[] = [];
  for (let i = 0; i < n; i++) {
    const ip = `10.96.${Math.floor(i / 250)}.${(i % 250) + 1}`;
    svcs.push(makeService('ns', `svc${i}`, { type: 'ClusterIP', clusterIP: ip, clusterIPs: [ip], ports: [{ name: 'p80', port: 80, protocol: 'TCP', targetPort: 8080 }] }));
    const endpoints = Array.from({ length: 10 }, (_, j) => ({ addresses: [`10.${100 + Math.floor(i / 250)}.${i % 250}.${j + 1}`], conditions: { ready: true }, nodeName: 'other' }));
    eps.push(makeSlice('ns', `svc${i}`, 1, 'IPv4', endpoints, [{ name: 'p80', port: 8080, protocol: 'TCP' }]));
  }
  return { services: svcs, slices: eps };
}

function lines(text: string): number {
  return text.split('\n').filter((l) => l !== '').length;
}

/** Each case's two verdicts, iptables then nftables. */
function verdictRows(ipt: ReturnType<typeof generateRules>, nftTable: Parameters<typeof traceNftables>[0]): [string, string][] {
  return CASES.map(({ packet }) => {
    const localAddresses = [NODE_IP];
    const a = tracePacket(ipt.ruleset, packet, { localAddresses });
    const b = traceNftables(nftTable, packet, { localAddresses });
    if (!a.ok) throw new Error(a.error.message);
    if (!b.ok) throw new Error(b.error.message);
    return [verdicts(a.value), verdicts(b.value)];
  });
}

function rulesets() {
  const ipt = generateRules(services, slices, iptablesConfig());
  const nft = generateNftablesRules(services, slices, nftablesConfig());
  const table = applyTransaction(undefined, nft.transaction);
  if (!table.ok || table.value === undefined) throw new Error('the nftables transaction did not apply');
  return { ipt, nft, table: table.value };
}

function page(): string {
  const { ipt, nft, table } = rulesets();
  const verdictsOf = verdictRows(ipt, table);
  const rows = CASES.map(({ what, packet }, i) => {
    const to = packet.destinationPort === undefined ? packet.destination : `${packet.destination}:${packet.destinationPort}`;
    const [a, b] = verdictsOf[i] ?? ['', ''];
    return `| ${what} (${packet.protocol} to ${to}) | ${a} | ${b} |`;
  });
  const sizes = [1000, 10000].map((n) => {
    const s = shape(n);
    const i = generateRules(s.services, s.slices, iptablesConfig());
    const f = generateNftablesRules(s.services, s.slices, nftablesConfig());
    const iBytes = new TextEncoder().encode(i.restoreText).length;
    const fBytes = new TextEncoder().encode(f.text).length;
    return `| ${n.toLocaleString('en-US')} | ${lines(i.restoreText).toLocaleString('en-US')} | ${iBytes.toLocaleString('en-US')} | ${lines(f.text).toLocaleString('en-US')} | ${f.stats.rules.toLocaleString('en-US')} | ${f.stats.elements.toLocaleString('en-US')} | ${fBytes.toLocaleString('en-US')} |`;
  });
  return [
    "# kube-proxy's iptables and nftables modes, side by side",
    '',
    'This page is written by `packages/cli/src/docs-pages/iptables-vs-nftables.test.ts` from the',
    'models (`@kubesvc/proxy-iptables`, v1.31 rules; `@kubesvc/proxy-nftables`, v1.33 rules); the',
    'test fails when the page and the models disagree. `kubesvc rules` and `kubesvc trace` show the',
    'same for any cluster dump, with `--proxy-mode nftables` for the second mode.',
    '',
    '## The cluster',
    '',
    `One node, \`node-1\` (${NODE_IP}), pod CIDR 10.244.0.0/16, ServiceCIDR ${SERVICE_CIDR}:`,
    '',
    '- `shop/web`: NodePort, ClusterIP 10.96.0.10, port 80 → 8080, node port 30080; two ready',
    '  endpoints, 10.244.1.5 and 10.244.2.7, on other nodes;',
    '- `shop/idle`: ClusterIP 10.96.0.20, port 80, no endpoints.',
    '',
    '## What the same packets meet',
    '',
    "Each row is one packet from a pod on the node (unless it says otherwise), traced through both",
    'rulesets. A probability is the share of new connections as the rules are written.',
    '',
    '| packet | iptables mode | nftables mode |',
    '|---|---|---|',
    ...rows,
    '',
    'What the rows show:',
    '',
    '- Both modes spread connections evenly, written differently: iptables as a chain of',
    '  `statistic` rules (1/2, then the rest), nftables as one `numgen random mod N` verdict map.',
    "- nftables mode rejects a packet to a port the ClusterIP does not define and drops one to an",
    "  address of a ServiceCIDR that no Service has (its `cluster-ips-check` chain); the iptables",
    '  mode lets both leave the node unchanged, towards an address nothing answers for.',
    '- A ping to a ClusterIP is rejected at once in nftables mode; in iptables mode it goes',
    '  unanswered.',
    '- NodePorts answer on the node IP in both modes, on 127.0.0.1 only in iptables mode (nftables',
    '  mode has no localhost NodePorts).',
    '',
    '## The rules',
    '',
    '### iptables mode: the `iptables-restore` input of a full sync',
    '',
    '```',
    ipt.restoreText.trimEnd(),
    '```',
    '',
    '### nftables mode: the transaction `nft -f` takes on the first sync',
    '',
    '```',
    nft.text.trimEnd(),
    '```',
    '',
    '## Size at scale',
    '',
    'N Services of one TCP port, each with 10 ready endpoints on other nodes, first sync:',
    '',
    '| Services | iptables lines | iptables bytes | nftables lines | nftables rules | nftables elements | nftables bytes |',
    '|---|---|---|---|---|---|---|',
    ...sizes,
    '',
  ].join('\n');
}

test("the page's prose holds: the verdicts it explains are the ones upstream's nftables README documents", () => {
  // pkg/proxy/nftables/README.md (v1.33): traffic to an undefined port of a ClusterIP is
  // rejected and to an unallocated ClusterIP dropped; no localhost NodePorts.
  const { ipt, table } = rulesets();
  const [curl, badPort, unallocated, ping, idle, nodePort, localhost] = verdictRows(ipt, table);
  const even = 'DNAT to 10.244.1.5:8080 (1/2), 10.244.2.7:8080 (1/2)';
  const through = 'no rule: not DNATed, goes on unchanged';
  expect(curl).toEqual([even, even]);
  expect(badPort).toEqual([through, 'reject']);
  expect(unallocated).toEqual([through, 'drop']);
  expect(ping).toEqual([through, 'reject']);
  expect(idle).toEqual(['reject', 'reject']);
  expect(nodePort).toEqual([even, even]);
  expect(localhost).toEqual([even, through]);
});

test('docs/iptables-vs-nftables.md is what the models say today', () => {
  const text = page();
  if (process.env['KUBESVC_UPDATE_DOCS'] === '1') writeFileSync(PAGE, text);
  expect(readFileSync(PAGE, 'utf8')).toBe(text);
});
