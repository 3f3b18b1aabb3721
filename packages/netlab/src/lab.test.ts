// The parts of the lab that need no kernel: kube-proxy's jump rules as restore text, the
// agents' result lines, and the description checks that run before anything is created.
import { generateRules, proxierConfig } from '@kubesvc/proxy-iptables';
import { expect, test } from 'vitest';
import { countByBackend, parseResult } from './agents.js';
import { demoCluster } from './cluster.js';
import { jumpRulesText, Lab } from './lab.js';
import { MultiNodeLab } from './multi-node.js';

test('jumpRulesText appends kube-proxy\'s jumps to the built-in chains, last-prepended first, as EnsureRule leaves them', () => {
  const { services, endpointSlices } = demoCluster(['10.244.0.3'], 'node-1');
  const config = proxierConfig({ nodeName: 'node-1', localDetector: { kind: 'cidr', cidr: '10.244.0.0/16' } });
  if (!config.ok) throw new Error(config.error.message);
  const { ruleset } = generateRules(services, endpointSlices, config.value);
  const text = jumpRulesText(ruleset);
  const [filter = '', nat = ''] = text.split('COMMIT\n');
  expect(filter.split('\n').filter((l) => l.startsWith('-A INPUT'))).toEqual([
    '-A INPUT -j KUBE-FIREWALL',
    '-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes load balancer firewall" -j KUBE-PROXY-FIREWALL',
    '-A INPUT -m comment --comment "kubernetes health check service ports" -j KUBE-NODEPORTS',
    '-A INPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes externally-visible service portals" -j KUBE-EXTERNAL-SERVICES',
  ]);
  expect(nat.trim().split('\n')).toEqual([
    '*nat',
    '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    '-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
    '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING',
  ]);
  expect(text.endsWith('COMMIT\n')).toBe(true);
});

test('an agent result line is a backend and the peer it saw, or an error code and the milliseconds it took', () => {
  expect(parseResult('be1 10.244.0.2:40312')).toEqual({ ok: true, value: { backend: 'be1', peer: '10.244.0.2:40312' } });
  expect(parseResult('!ECONNREFUSED 3')).toEqual({ ok: false, error: { _tag: 'ErrConnection', message: 'ECONNREFUSED', ms: 3 } });
  expect(parseResult(null)).toEqual({ ok: false, error: { _tag: 'ErrConnection', message: 'missing', ms: 0 } });
  expect(countByBackend(['be0 a:1', 'be1 a:2', '!timeout 3000', 'be0 a:3'].map(parseResult))).toEqual({ be0: 2, be1: 1 });
});

test('a description with a bad pod name or prefix is refused before anything is created', async () => {
  await expect(Lab.create({ backends: ['Be0'] })).rejects.toThrow(/pod name "Be0"/);
  await expect(Lab.create({ backends: ['node'] })).rejects.toThrow(/not "node"/);
  await expect(Lab.create({ backends: ['a', 'a'] })).rejects.toThrow(/used twice/);
  await expect(Lab.create({ backends: ['a'], prefix: 'too-long-prefix' })).rejects.toThrow(/prefix/);
});

test('a multi-node description with a wrong node count, a bad or repeated name is refused before anything is created', async () => {
  const one = [{ name: 'node-a', backends: ['be0'] }];
  await expect(MultiNodeLab.create({ nodes: one })).rejects.toThrow('a multi-node lab has 2 to 8 nodes, not 1');
  await expect(MultiNodeLab.create({ nodes: [...one, { name: 'Node-B' }] })).rejects.toThrow(/node name "Node-B" must be/);
  await expect(MultiNodeLab.create({ nodes: [...one, { name: 'node-a' }] })).rejects.toThrow('node name node-a is used twice');
  await expect(MultiNodeLab.create({ nodes: [...one, { name: 'node-b', clients: ['be0'] }] })).rejects.toThrow('pod name be0 is used twice');
  await expect(MultiNodeLab.create({ nodes: [...one, { name: 'node-b', clients: ['n2'] }] })).rejects.toThrow(/pod name "n2" must be .* not "net", "ext" or n<digits>/);
  await expect(MultiNodeLab.create({ nodes: [...one, { name: 'node-b' }], prefix: 'Bad' })).rejects.toThrow(/lab prefix "Bad"/);
});
