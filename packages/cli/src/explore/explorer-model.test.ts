// The explorer's model of the repository's fixtures, checked against what upstream writes and
// reports for them: kube-proxy's probabilities 1/3, 1/2, 1 (pkg/proxy/iptables/proxier.go,
// probability(n) for the i-th of n endpoints is 1/(n-i)), the ClusterIP repair loop's
// duplicates and leaks (pkg/registry/core/service/ipallocator/controller/repair.go), and the
// env vars kubelet injects (pkg/kubelet/envvars/envvars.go).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseServiceNetworking, type KubeObject, type ServiceNetworking } from '@kubesvc/api-types';
import { proxierConfig } from '@kubesvc/proxy-iptables';
import { describe, expect, it } from 'vitest';
import { dumpOf, loadDump, type Dump } from '../dump/load-dump.js';
import { FIXTURES } from '../run-bin.fixtures.js';
import { explorerModelOf } from './explorer-model.js';
import { explorerTrace } from './explorer-trace.js';

function fixture(name: string): Dump {
  const loaded = loadDump(name, readFileSync(join(FIXTURES, name), 'utf8'));
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.value;
}

const config = proxierConfig({ nodeName: 'node-1', nodeIPs: ['192.0.2.10'], localDetector: { kind: 'cidr', cidr: '10.244.0.0/16' } });
if (!config.ok) throw new Error(config.error.message);
const proxier = config.value;
function serviceNetworking(range: string): ServiceNetworking {
  const parsed = parseServiceNetworking({ serviceClusterIPRange: range });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

const options = { mode: 'dump' as const, source: 'test', generation: 1, now: Date.parse('2026-01-01T00:00:00Z'), proxier, serviceNetworking: serviceNetworking('10.96.0.0/12') };

describe('over cluster.yaml', () => {
  const dump = fixture('cluster.yaml');
  const model = explorerModelOf(dump, options);

  it('labels the three endpoint chains of shop/web with the probabilities kube-proxy writes', () => {
    const seps = model.rules.nodes.filter((n) => n.service === 'shop/web' && n.id.startsWith('KUBE-SEP-'));
    expect(seps.map((n) => n.probability).sort()).toEqual(['0.3333333333', '0.5000000000', '1']);
    const edges = model.rules.edges.filter((e) => seps.some((s) => s.id === e.to));
    expect(edges.map((e) => e.probability?.written)).toEqual(['0.3333333333', '0.5000000000', undefined]);
    // The kernel keeps 31 bits: round(0.3333333333 * 2^31) / 2^31, as iptables-save prints it.
    expect(edges[0]?.probability?.kernel).toBe('0.33333333349');
    const dnat = model.rules.nodes.filter((n) => n.kind === 'dnat' && n.service === 'shop/web').map((n) => n.label);
    expect(dnat.sort()).toEqual(['DNAT 10.244.1.5:8080', 'DNAT 10.244.2.7:8080', 'DNAT 10.244.3.9:8080']);
  });

  it('has the services table columns of kubectl get svc -o wide, and the env vars a pod gets', () => {
    expect(model.servicesTable.columns.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0],
      ['Type', 0],
      ['Cluster-IP', 0],
      ['External-IP', 0],
      ['Port(s)', 0],
      ['Age', 0],
      ['Selector', 1],
    ]);
    const web = model.services.find((s) => s.namespace === 'shop' && s.name === 'web');
    expect(web?.env.find((v) => v.name === 'WEB_SERVICE_HOST')?.value).toBe(web?.clusterIPs[0]);
    expect(web?.endpoints.map((e) => e.state)).toEqual(['ready', 'ready', 'ready']);
  });

  it('traces a packet to shop/web to its three endpoints at 1/3 each as meant, and an ICMP ping to no rule', () => {
    const web = model.services.find((s) => s.namespace === 'shop' && s.name === 'web');
    const tcp = explorerTrace(dump, proxier, { source: '10.244.0.2', destination: `${web?.clusterIPs[0] ?? ''}:80`, protocol: 'tcp' });
    expect(tcp.ok && tcp.value.map((o) => [o.outcome, o.probability])).toEqual([
      ['dnat', '1/3'],
      ['dnat', '1/3'],
      ['dnat', '1/3'],
    ]);
    // As written, 0.3333333333 is a little less than 1/3, and the rest is split by 0.5.
    expect(tcp.ok && tcp.value.map((o) => o.written)).toEqual(['3333333333/10000000000', '6666666667/20000000000', '6666666667/20000000000']);
    const ping = explorerTrace(dump, proxier, { source: '10.244.0.2', destination: web?.clusterIPs[0] ?? '', protocol: 'icmp' });
    expect(ping.ok && ping.value.map((o) => o.outcome)).toEqual(['no-match']);
    const bad = explorerTrace(dump, proxier, { source: '10.244.0.2', destination: '10.96.0.1', protocol: 'tcp' });
    expect(bad.ok).toBe(false);
  });
});

it('draws the filter REJECT of a Service with no endpoints (upstream writes "has no endpoints" rules in filter KUBE-SERVICES)', () => {
  const yaml = 'apiVersion: v1\nkind: Service\nmetadata: {name: lonely, namespace: default}\nspec: {clusterIP: 10.96.0.77, clusterIPs: [10.96.0.77], selector: {app: none}, ports: [{name: http, port: 80, protocol: TCP}]}\n';
  const loaded = loadDump('lonely.yaml', yaml);
  if (!loaded.ok) throw new Error(loaded.error.message);
  const model = explorerModelOf(loaded.value, options);
  const rejects = model.rules.edges.filter((e) => e.from === 'filter:KUBE-SERVICES' && model.rules.nodes.find((n) => n.id === e.to)?.label === 'REJECT');
  expect(rejects.map((e) => e.rule)).toEqual(['-A KUBE-SERVICES -m comment --comment "default/lonely:http has no endpoints" -m tcp -p tcp -d 10.96.0.77 --dport 80 -j REJECT']);
  expect(model.rules.nodes.find((n) => n.id === rejects[0]?.to)?.service).toBe('default/lonely');
  // No endpoints: kube-proxy writes no service chain in nat.
  expect(model.rules.nodes.filter((n) => n.id.startsWith('KUBE-SVC-'))).toEqual([]);
});

describe('over ips.yaml (a stored bitmap with a duplicate, a leak and a missing IP)', () => {
  const model = explorerModelOf(fixture('ips.yaml'), { ...options, serviceNetworking: serviceNetworking('10.96.0.0/24') });

  it('maps the bitmap after one repair run: kubernetes first, the duplicate, the leak, the IP repaired in', () => {
    const [range] = model.allocation.ranges;
    expect(range?.range).toBe('10.96.0.0/24');
    expect(range?.size).toBe(254);
    // upstream: ipallocator's bandOffset, min(max(16, size/16), 256) for a /24.
    expect(range?.staticSize).toBe(16);
    expect(range?.used.map((u) => [u.ip, u.offset, u.holders, u.leaked])).toEqual([
      ['10.96.0.1', 0, ['default/kubernetes'], false],
      ['10.96.0.10', 9, ['kube-system/dns', 'kube-system/dns-copy'], false],
      ['10.96.0.50', 49, ['shop/restored'], false],
      ['10.96.0.99', 98, [], true],
    ]);
    expect(model.allocation.fromStoredSnapshot).toBe(true);
    expect(model.allocation.repairEvents.map((e) => e.split(' ')[0])).toEqual(['ClusterIPAlreadyAllocated', 'ClusterIPOutOfRange', 'ClusterIPNotAllocated']);
  });
});

describe('with a pod network (kubesvc up --dataplane netns)', () => {
  const pod = (name: string, ip: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'default', name, uid: name }, status: { podIP: ip } }) as KubeObject;
  const objects: KubeObject[] = [
    { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name: 'web' }, spec: { clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20'], ports: [{ port: 80, protocol: 'TCP' }] } } as KubeObject,
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { namespace: 'default', name: 'web-1', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      ports: [{ port: 80, protocol: 'TCP' }],
      endpoints: [
        { addresses: ['10.244.1.2'], targetRef: { kind: 'Pod', namespace: 'default', name: 'web-a' } },
        { addresses: ['10.244.2.2'], targetRef: { kind: 'Pod', namespace: 'default', name: 'web-b' } },
      ],
    } as KubeObject,
    pod('web-a', '10.244.1.2'),
    pod('web-b', '10.244.2.2'),
    pod('client', '10.244.1.3'),
  ];
  // web-b has no namespace yet: the network has not made it.
  const model = explorerModelOf(dumpOf('test', objects), { ...options, sandbox: (p) => p.metadata.name !== 'web-b' });

  it('lists the pods that are namespaces by name, and marks the endpoints that are one', () => {
    expect(model.sandboxes).toEqual([
      { namespace: 'default', name: 'client', ip: '10.244.1.3' },
      { namespace: 'default', name: 'web-a', ip: '10.244.1.2' },
    ]);
    expect(model.services.find((s) => s.name === 'web')?.endpoints.map((e) => [e.ip, e.sandbox])).toEqual([
      ['10.244.1.2', true],
      ['10.244.2.2', undefined],
    ]);
  });

  it('says nothing of namespaces without a pod network', () => {
    const plain = explorerModelOf(dumpOf('test', objects), options);
    expect(plain.sandboxes).toBeUndefined();
    expect(plain.services.flatMap((s) => s.endpoints).some((e) => e.sandbox !== undefined)).toBe(false);
  });
});
