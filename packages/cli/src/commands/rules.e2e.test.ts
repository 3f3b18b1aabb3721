// `kubesvc rules` through the real bin, on checked-in dumps.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseManifests, type EndpointSlice, type Service } from '@kubesvc/api-types';
import { generateRules, proxierConfig, sync } from '@kubesvc/proxy-iptables';
import { generateNftablesRules, nftablesProxierConfig } from '@kubesvc/proxy-nftables';
import { describe, expect, test } from 'vitest';
import { FIXTURES, hasStackTrace, runBin } from '../run-bin.fixtures.js';

const KUBERNETES_2017 = join(FIXTURES, 'kubernetes-2017.yaml');
const CLUSTER = join(FIXTURES, 'cluster.yaml');

// What `iptables-save | grep` printed for default/kubernetes on a kube-proxy 1.8 node in the
// "Demystifying kube-proxy" walk-through (December 2017): ClusterIP 192.168.255.1, endpoints
// 172.16.0.11-13:6443, ClientIP affinity. Verbatim; the order is grep's, not the table's.
const ARTICLE_2017 = [
  ':KUBE-SEP-23Y66C2VAJ3WDEMI - [0:0]',
  '-A KUBE-SEP-23Y66C2VAJ3WDEMI -s 172.16.0.11/32 -m comment --comment "default/kubernetes:https" -j KUBE-MARK-MASQ',
  '-A KUBE-SEP-23Y66C2VAJ3WDEMI -p tcp -m comment --comment "default/kubernetes:https" -m recent --set --name KUBE-SEP-23Y66C2VAJ3WDEMI --mask 255.255.255.255 --rsource -m tcp -j DNAT --to-destination 172.16.0.11:6443',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment "default/kubernetes:https" -m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-23Y66C2VAJ3WDEMI --mask 255.255.255.255 --rsource -j KUBE-SEP-23Y66C2VAJ3WDEMI',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment "default/kubernetes:https" -m statistic --mode random --probability 0.33332999982 -j KUBE-SEP-23Y66C2VAJ3WDEMI',
  ':KUBE-SVC-NPX46M4PTMTKRN6Y - [0:0]',
  '-A KUBE-SERVICES -d 192.168.255.1/32 -p tcp -m comment --comment "default/kubernetes:https cluster IP" -m tcp --dport 443 -j KUBE-SVC-NPX46M4PTMTKRN6Y',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment "default/kubernetes:https" -m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-47TYMEKETDMXSVAN --mask 255.255.255.255 --rsource -j KUBE-SEP-47TYMEKETDMXSVAN',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment "default/kubernetes:https" -m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-CZKGMRCAIW3ENCXY --mask 255.255.255.255 --rsource -j KUBE-SEP-CZKGMRCAIW3ENCXY',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment "default/kubernetes:https" -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-47TYMEKETDMXSVAN',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment "default/kubernetes:https" -j KUBE-SEP-CZKGMRCAIW3ENCXY',
];

// kube-proxy v1.8's whole restore text for that Service with --cluster-cidr 172.16.0.0/16
// (pkg/proxy/iptables/proxier.go of v1.8: `%0.5f` probabilities, /32 prefixes, the masquerade
// rule in KUBE-SERVICES, KUBE-MARK-MASQ with --set-xmark, each endpoint's SVC rule followed by
// its SEP chain).
const V1_8_TEXT = [
  '*filter',
  ':KUBE-SERVICES - [0:0]',
  'COMMIT',
  '*nat',
  ':KUBE-SERVICES - [0:0]',
  ':KUBE-NODEPORTS - [0:0]',
  ':KUBE-POSTROUTING - [0:0]',
  ':KUBE-MARK-MASQ - [0:0]',
  ':KUBE-SVC-NPX46M4PTMTKRN6Y - [0:0]',
  ':KUBE-SEP-23Y66C2VAJ3WDEMI - [0:0]',
  ':KUBE-SEP-47TYMEKETDMXSVAN - [0:0]',
  ':KUBE-SEP-CZKGMRCAIW3ENCXY - [0:0]',
  '-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -m mark --mark 0x00004000/0x00004000 -j MASQUERADE',
  '-A KUBE-MARK-MASQ -j MARK --set-xmark 0x00004000/0x00004000',
  '-A KUBE-SERVICES -m comment --comment "default/kubernetes:https cluster IP" -m tcp -p tcp -d 192.168.255.1/32 --dport 443 ! -s 172.16.0.0/16 -j KUBE-MARK-MASQ',
  '-A KUBE-SERVICES -m comment --comment "default/kubernetes:https cluster IP" -m tcp -p tcp -d 192.168.255.1/32 --dport 443 -j KUBE-SVC-NPX46M4PTMTKRN6Y',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment default/kubernetes:https -m recent --name KUBE-SEP-23Y66C2VAJ3WDEMI --rcheck --seconds 10800 --reap -j KUBE-SEP-23Y66C2VAJ3WDEMI',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment default/kubernetes:https -m recent --name KUBE-SEP-47TYMEKETDMXSVAN --rcheck --seconds 10800 --reap -j KUBE-SEP-47TYMEKETDMXSVAN',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment default/kubernetes:https -m recent --name KUBE-SEP-CZKGMRCAIW3ENCXY --rcheck --seconds 10800 --reap -j KUBE-SEP-CZKGMRCAIW3ENCXY',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment default/kubernetes:https -m statistic --mode random --probability 0.33333 -j KUBE-SEP-23Y66C2VAJ3WDEMI',
  '-A KUBE-SEP-23Y66C2VAJ3WDEMI -m comment --comment default/kubernetes:https -s 172.16.0.11/32 -j KUBE-MARK-MASQ',
  '-A KUBE-SEP-23Y66C2VAJ3WDEMI -m comment --comment default/kubernetes:https -m recent --name KUBE-SEP-23Y66C2VAJ3WDEMI --set -m tcp -p tcp -j DNAT --to-destination 172.16.0.11:6443',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment default/kubernetes:https -m statistic --mode random --probability 0.50000 -j KUBE-SEP-47TYMEKETDMXSVAN',
  '-A KUBE-SEP-47TYMEKETDMXSVAN -m comment --comment default/kubernetes:https -s 172.16.0.12/32 -j KUBE-MARK-MASQ',
  '-A KUBE-SEP-47TYMEKETDMXSVAN -m comment --comment default/kubernetes:https -m recent --name KUBE-SEP-47TYMEKETDMXSVAN --set -m tcp -p tcp -j DNAT --to-destination 172.16.0.12:6443',
  '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment default/kubernetes:https -j KUBE-SEP-CZKGMRCAIW3ENCXY',
  '-A KUBE-SEP-CZKGMRCAIW3ENCXY -m comment --comment default/kubernetes:https -s 172.16.0.13/32 -j KUBE-MARK-MASQ',
  '-A KUBE-SEP-CZKGMRCAIW3ENCXY -m comment --comment default/kubernetes:https -m recent --name KUBE-SEP-CZKGMRCAIW3ENCXY --set -m tcp -p tcp -j DNAT --to-destination 172.16.0.13:6443',
  '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS',
  'COMMIT',
  '',
].join('\n');

function objectsOf(file: string): { services: Service[]; slices: EndpointSlice[] } {
  const parsed = parseManifests(readFileSync(file, 'utf8'), { tolerant: true });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return {
    services: parsed.value.objects.filter((o): o is Service => o.kind === 'Service'),
    slices: parsed.value.objects.filter((o): o is EndpointSlice => o.kind === 'EndpointSlice'),
  };
}

describe('kubesvc rules', () => {
  test('--kube-proxy-version 1.8 --save-view legacy prints every line the 2017 kube-proxy printed (the dump holds Endpoints, as dumps of then did)', async () => {
    const run = await runBin(['rules', '-f', KUBERNETES_2017, '--kube-proxy-version', '1.8', '--save-view', 'legacy']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = new Set(run.stdout.split('\n'));
    expect(ARTICLE_2017.filter((line) => !lines.has(line))).toEqual([]);
  });

  test("--kube-proxy-version 1.8 writes kube-proxy 1.8's restore text, byte for byte", async () => {
    const run = await runBin(['rules', '-f', KUBERNETES_2017, '--kube-proxy-version', '1.8', '--cluster-cidr', '172.16.0.0/16']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(V1_8_TEXT);
  });

  test('the default is v1.31: ten-digit probabilities and endpoint comments, the same text proxy-iptables generates', async () => {
    const run = await runBin(['rules', '-f', CLUSTER, '--node-name', 'node-1', '--cluster-cidr', '10.244.0.0/16']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^-A KUBE-SVC-\w{16} -m comment --comment "shop\/web:http -> 10\.244\.1\.5:8080" -m statistic --mode random --probability 0\.3333333333 -j KUBE-SEP-\w{16}$/m);
    expect(run.stdout).toContain(':KUBE-SVC-NPX46M4PTMTKRN6Y - [0:0]');
    const { services, slices } = objectsOf(CLUSTER);
    const config = proxierConfig({ nodeName: 'node-1', localDetector: { kind: 'cidr', cidr: '10.244.0.0/16' } });
    if (!config.ok) throw new Error(config.error.message);
    expect(run.stdout).toBe(generateRules(services, slices, config.value).restoreText);
    // The dump's Deployment is not a kind kube-proxy reads: skipped, and said so.
    expect(run.stderr).toBe(`warning: ${CLUSTER}: skipped 1 object of kinds not modelled here (Deployment)\n`);
  });

  test('reads JSON from standard input as well as YAML from a file', async () => {
    const yaml = await runBin(['rules', '-f', KUBERNETES_2017]);
    const parsed = parseManifests(readFileSync(KUBERNETES_2017, 'utf8'));
    if (!parsed.ok) throw new Error(parsed.error.message);
    const json = await runBin(['rules', '-f', '-'], { stdin: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: parsed.value.objects }) });
    expect(json.code).toBe(0);
    expect(json.stdout).toBe(yaml.stdout);
  });

  test('--diff writes the partial sync: only the changed Service chains, the stale endpoint chain deleted', async () => {
    const before = readFileSync(CLUSTER, 'utf8');
    const after = before.replace('- 10.244.3.9', '- 10.244.3.10');
    const run = await runBin(['rules', '-f', '-', '--diff', CLUSTER, '--node-name', 'node-1'], { stdin: after });
    expect(run.code).toBe(0);
    const { services, slices } = objectsOf(CLUSTER);
    const config = proxierConfig({ nodeName: 'node-1' });
    if (!config.ok) throw new Error(config.error.message);
    const first = sync(undefined, services, slices, config.value);
    const moved = slices.map((s) => (s.metadata.name === 'web-x1f9c' ? JSON.parse(JSON.stringify(s).replace('10.244.3.9', '10.244.3.10')) as EndpointSlice : s));
    expect(run.stdout).toBe(sync(first.state, services, moved, config.value).restoreText);
    // MinimizeIPTablesRestore: kube-dns did not change, so its chains are not written.
    expect(run.stdout).not.toMatch(/^:KUBE-SEP-.*\n(?:.*\n)*-A KUBE-SEP-\S+ .*10\.244\.0\.3/m);
    expect(run.stdout.match(/^-X KUBE-SEP-/gm)).toHaveLength(1);
  });

  test('an unknown --kube-proxy-version is a usage error naming the accepted ones', async () => {
    const run = await runBin(['rules', '-f', CLUSTER, '--kube-proxy-version', '1.9']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("'1.9' is invalid. Allowed choices are 1.8, 1.31.");
  });

  test('a bad --cluster-cidr is a usage error with kube-proxy\'s validation text', async () => {
    const run = await runBin(['rules', '-f', CLUSTER, '--cluster-cidr', 'banana']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('localDetector.cidr: Invalid value: "banana": must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)');
    expect(hasStackTrace(run.stderr)).toBe(false);
  });

  test('an object kube-proxy cannot program is reported on stderr and left out', async () => {
    const broken = 'apiVersion: v1\nkind: Service\nmetadata: {name: broken, namespace: default}\nspec:\n  clusterIP: 10.96.0.999\n  ports: [{port: 80, protocol: TCP}]\n';
    const run = await runBin(['rules', '-f', '-'], { stdin: broken });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('warning: Service default/broken spec.clusterIP "10.96.0.999": not a valid IP address; no rules are written for this cluster IP\n');
    expect(run.stdout).not.toContain('broken');
  });
});

describe('kubesvc rules --proxy-mode nftables', () => {
  test("prints the transaction v1.33's nftables proxier hands to nft -f, the text proxy-nftables generates; a dump without ServiceCIDRs is warned about", async () => {
    const run = await runBin(['rules', '-f', CLUSTER, '--proxy-mode', 'nftables', '--node-name', 'node-1', '--cluster-cidr', '10.244.0.0/16']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe('add table ip kube-proxy { comment "rules for kube-proxy" ; }');
    // One equal share per endpoint of shop/web (three of them), in one numgen verdict map.
    expect(run.stdout).toMatch(/^add rule ip kube-proxy service-\w{8}-shop\/web\/tcp\/http .*numgen random mod 3 vmap \{ 0 : goto endpoint-\w{8}-shop\/web\/tcp\/http__10\.244\.\d+\.\d+\/8080 , 1 : goto .* , 2 : goto .* \}$/m);
    const { services, slices } = objectsOf(CLUSTER);
    const config = nftablesProxierConfig({ nodeName: 'node-1', localDetector: { kind: 'cidr', cidr: '10.244.0.0/16' } });
    if (!config.ok) throw new Error(config.error.message);
    expect(run.stdout).toBe(generateNftablesRules(services, slices, config.value).text);
    expect(run.stderr).toBe(
      `warning: ${CLUSTER}: skipped 1 object of kinds not modelled here (Deployment)\n` +
        'warning: the input has no ServiceCIDR objects and no --service-cidr was given, so the rules drop no packet to an unallocated ClusterIP\n',
    );
  });

  test('--diff writes the partial sync: only the changed Service\'s chains and elements, the old endpoint chain flushed', async () => {
    const before = readFileSync(CLUSTER, 'utf8');
    const after = before.replace('- 10.244.3.9', '- 10.244.3.10');
    const run = await runBin(['rules', '-f', '-', '--diff', CLUSTER, '--node-name', 'node-1', '--proxy-mode', 'nftables'], { stdin: after });
    expect(run.code).toBe(0);
    // The endpoint chain of the moved endpoint is flushed (deleted a second later, by a later sync);
    // the new one is made; kube-dns, unchanged, is not written.
    expect(run.stdout).toMatch(/^flush chain ip kube-proxy endpoint-\w{8}-shop\/web\/tcp\/http__10\.244\.3\.9\/8080$/m);
    expect(run.stdout).toMatch(/^add chain ip kube-proxy endpoint-\w{8}-shop\/web\/tcp\/http__10\.244\.3\.10\/8080$/m);
    expect(run.stdout).not.toContain('kube-dns');
    expect(run.stdout).not.toMatch(/^delete chain/m);
  });

  test('--service-cidr gives the ServiceCIDRs whose unallocated addresses cluster-ips-check drops', async () => {
    const run = await runBin(['rules', '-f', CLUSTER, '--proxy-mode', 'nftables', '--service-cidr', '10.96.0.0/16,fd00::/108']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('add rule ip kube-proxy cluster-ips-check ip daddr { 10.96.0.0/16 } drop');
    expect(run.stdout).not.toContain('fd00::');
  });

  test('flags of the iptables mode are usage errors with --proxy-mode nftables, and --service-cidr without it', async () => {
    for (const [args, message] of [
      [['--kube-proxy-version', '1.8'], "--kube-proxy-version chooses an iptables-mode release; --proxy-mode nftables writes v1.33's rules"],
      [['--save-view', 'nft'], '--save-view is for --proxy-mode iptables (an iptables-save view)'],
    ] as const) {
      const run = await runBin(['rules', '-f', CLUSTER, '--proxy-mode', 'nftables', ...args]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(message);
      expect(run.stdout).toBe('');
    }
    const iptables = await runBin(['rules', '-f', CLUSTER, '--service-cidr', '10.96.0.0/16']);
    expect(iptables.code).toBe(2);
    expect(iptables.stderr).toContain('--service-cidr is for --proxy-mode nftables');
  });
});
