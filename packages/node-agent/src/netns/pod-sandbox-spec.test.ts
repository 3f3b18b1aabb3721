// What the pod network makes of a Pod: its servers, its log folder and the resolv.conf the
// kubelet writes (upstream v1.33 pkg/kubelet/network/dns/dns.go, GetPodDNS), as tables.
import type { Pod } from '@kubesvc/api-types';
import { describe, expect, test } from 'vitest';
import { ignoredCommandContainers, ignoredCommandMessage, podLogDir, resolvConf, sandboxContainers, wantsSandbox } from './pod-sandbox-spec.js';

function pod(spec: Record<string, unknown>, status: Record<string, unknown> = {}, namespace = 'default'): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace, uid: 'u-1' }, spec, status } as Pod;
}

const DNS = { nameserver: '10.96.0.10', clusterDomain: 'cluster.local' };

describe('sandboxContainers: the server each container port gets', () => {
  test.each([
    ['port 80 is HTTP', [{ name: 'web', ports: [{ containerPort: 80 }] }], [{ name: 'web', ports: [{ port: 80, protocol: 'TCP', http: true }] }]],
    ['port 8080 is HTTP', [{ name: 'web', ports: [{ containerPort: 8080, protocol: 'TCP' }] }], [{ name: 'web', ports: [{ port: 8080, protocol: 'TCP', http: true }] }]],
    ['a port named http-* is HTTP', [{ name: 'web', ports: [{ containerPort: 9376, name: 'http-alt' }] }], [{ name: 'web', ports: [{ port: 9376, protocol: 'TCP', http: true }] }]],
    ['another TCP port is an echo', [{ name: 'db', ports: [{ containerPort: 5432, name: 'pg' }] }], [{ name: 'db', ports: [{ port: 5432, protocol: 'TCP', http: false }] }]],
    ['a UDP port 80 is not HTTP', [{ name: 'd', ports: [{ containerPort: 80, protocol: 'UDP' }] }], [{ name: 'd', ports: [{ port: 80, protocol: 'UDP', http: false }] }]],
    ['SCTP gets no server', [{ name: 's', ports: [{ containerPort: 9, protocol: 'SCTP' }, { containerPort: 10 }] }], [{ name: 's', ports: [{ port: 10, protocol: 'TCP', http: false }] }]],
    ['no port declared anywhere: HTTP on 80 in the first container', [{ name: 'nginx' }, { name: 'side' }], [{ name: 'nginx', ports: [{ port: 80, protocol: 'TCP', http: true }] }, { name: 'side', ports: [] }]],
    ['a port in one container: no default in the others', [{ name: 'a' }, { name: 'b', ports: [{ containerPort: 53, protocol: 'UDP' }] }], [{ name: 'a', ports: [] }, { name: 'b', ports: [{ port: 53, protocol: 'UDP', http: false }] }]],
  ])('%s', (_name, containers, expected) => {
    expect(sandboxContainers(pod({ containers }))).toEqual(expected);
  });
});

describe('wantsSandbox: a namespace once the pod has its node and IPv4 address, never for the host network', () => {
  const nodes = new Set(['vm-1']);
  test.each([
    ['running on a node of the network', { nodeName: 'vm-1' }, { podIP: '10.244.0.3' }, true],
    ['no address yet', { nodeName: 'vm-1' }, {}, false],
    ['another node', { nodeName: 'vm-9' }, { podIP: '10.244.0.3' }, false],
    ['host network', { nodeName: 'vm-1', hostNetwork: true }, { podIP: '192.0.2.10' }, false],
    ['IPv6 only', { nodeName: 'vm-1' }, { podIP: 'fd00::3' }, false],
  ])('%s', (_name, spec, status, expected) => {
    expect(wantsSandbox(pod(spec, status), nodes)).toBe(expected);
  });
});

test('podLogDir: <dataDir>/pods/<namespace>_<pod>_<uid>', () => {
  expect(podLogDir('/data', pod({}))).toBe('/data/pods/default_web-1_u-1');
});

describe('resolvConf: what the kubelet writes for each dnsPolicy', () => {
  test.each([
    ['ClusterFirst (the default)', {}, 'prod', 'search prod.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n'],
    [
      'ClusterFirst with dnsConfig: nameservers and searches appended, options overridden by name',
      { dnsPolicy: 'ClusterFirst', dnsConfig: { nameservers: ['1.1.1.1'], searches: ['example.com'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] } },
      'default',
      'search default.svc.cluster.local svc.cluster.local cluster.local example.com\nnameserver 10.96.0.10\nnameserver 1.1.1.1\noptions ndots:2 edns0\n',
    ],
    ['None: the dnsConfig alone', { dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'], searches: ['ns1.svc.cluster-domain.example'], options: [{ name: 'ndots', value: '2' }] } }, 'default', 'search ns1.svc.cluster-domain.example\nnameserver 1.1.1.1\noptions ndots:2\n'],
  ])('%s', (_name, spec, namespace, expected) => {
    expect(resolvConf(pod(spec, {}, namespace), DNS)).toBe(expected);
  });

  test('Default: none written (the node\'s own stays)', () => {
    expect(resolvConf(pod({ dnsPolicy: 'Default' }), DNS)).toBeUndefined();
  });
});

describe('ignoredCommandContainers: the containers whose command or args no process carries out', () => {
  test.each([
    ['none given', [{ name: 'web', image: 'nginx' }], []],
    ['a command', [{ name: 'client', command: ['sleep', '3600'] }], ['client']],
    ['args only', [{ name: 'client', args: ['-c', 'echo hi'] }], ['client']],
    ['empty lists are none', [{ name: 'web', command: [], args: [] }], []],
    ['two of three', [{ name: 'a', command: ['x'] }, { name: 'b' }, { name: 'c', args: ['y'] }], ['a', 'c']],
  ])('%s', (_, containers, expected) => {
    expect(ignoredCommandContainers(pod({ containers }))).toEqual(expected);
  });

  test('the note names them', () => {
    expect(ignoredCommandMessage(['client'])).toBe('kubesvc runs no image: the command and args of container client are ignored; each container port is served by a built-in netexec-like server');
    expect(ignoredCommandMessage(['a', 'c'])).toBe('kubesvc runs no image: the command and args of containers a, c are ignored; each container port is served by a built-in netexec-like server');
  });
});
