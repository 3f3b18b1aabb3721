// The doctor's DNS checks: glibc's search-list expansion (NdotsExpansion) and pods whose
// subdomain names no headless Service (HeadlessNameMissing).
import type { Pod } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { searchNames, podResolver } from './dns.js';
import { endpoints, node, pod, reportOf, service } from './doctor.fixtures.js';

const NODES = [node('node-a', '192.168.10.1')];
const SEARCH = ['tools.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];

describe('searchNames: the names glibc res_nsearch asks, in order', () => {
  it.each([
    ['a short name: every search domain, then as it is', 'web', 5, ['web.tools.svc.cluster.local.', 'web.svc.cluster.local.', 'web.cluster.local.', 'web.']],
    ['four dots under ndots:5: still the search list first', 'web.shop.svc.cluster.local', 5, [
      'web.shop.svc.cluster.local.tools.svc.cluster.local.',
      'web.shop.svc.cluster.local.svc.cluster.local.',
      'web.shop.svc.cluster.local.cluster.local.',
      'web.shop.svc.cluster.local.',
    ]],
    ['at least ndots dots: as it is first', 'a.b', 1, ['a.b.', 'a.b.tools.svc.cluster.local.', 'a.b.svc.cluster.local.', 'a.b.cluster.local.']],
    ['a trailing dot: only as it is', 'web.shop.svc.cluster.local.', 5, ['web.shop.svc.cluster.local.']],
  ] as const)('%s', (_title, name, ndots, expected) => {
    expect(searchNames(name, SEARCH, ndots)).toEqual(expected);
  });
});

describe('podResolver', () => {
  it('a ClusterFirst pod: its namespace first, ndots:5; dnsConfig options merge by name', () => {
    const plain = pod('tools', 'debug', { ip: '10.244.1.9' }) as Pod;
    expect(podResolver(plain, '10.96.0.10')).toEqual({ searches: SEARCH, ndots: 5 });
    const tuned = pod('tools', 'debug', { ip: '10.244.1.9', spec: { dnsConfig: { options: [{ name: 'ndots', value: '2' }], searches: ['corp.example'] } } }) as Pod;
    expect(podResolver(tuned, '10.96.0.10')).toEqual({ searches: [...SEARCH, 'corp.example'], ndots: 2 });
  });
});

describe('NdotsExpansion', () => {
  const objects = [
    ...NODES,
    service('shop', 'web', { clusterIP: '10.96.1.10', selector: { app: 'web' }, ports: [{ port: 80 }] }),
    pod('shop', 'web-1', { labels: { app: 'web' }, ip: '10.244.1.1', ports: [{ containerPort: 80 }] }),
    endpoints('shop', 'web', [{ addresses: [{ ip: '10.244.1.1', nodeName: 'node-a' }], ports: [{ port: 80, protocol: 'TCP' }] }]),
    pod('tools', 'debug', { ip: '10.244.1.9' }),
  ];
  const debug = pod('tools', 'debug', { ip: '10.244.1.9' }) as Pod;

  it('--dns-name web.shop from a pod of tools: answers at the second name, a note about shop/web', () => {
    const report = reportOf(objects, { dnsQuestion: { name: 'web.shop', pod: debug } });
    const finding = report.findings.find((f) => f.code === 'NdotsExpansion');
    expect(finding?.severity).toBe('note');
    expect(finding?.service).toBe('shop/web');
    expect(finding?.summary).toBe('"web.shop" asked from pod tools/debug answers at name 2 of the search (4 queries): web.shop.svc.cluster.local.');
    expect(finding?.evidence.slice(0, 3)).toEqual([
      'pod tools/debug: search tools.svc.cluster.local svc.cluster.local cluster.local; ndots:5',
      '1. web.shop.tools.svc.cluster.local. NXDOMAIN',
      '2. web.shop.svc.cluster.local. answer',
    ]);
  });

  it('the short name from another namespace never answers: a warning when asked', () => {
    const finding = reportOf(objects, { dnsQuestion: { name: 'web', pod: debug } }).findings.find((f) => f.code === 'NdotsExpansion');
    expect(finding?.severity).toBe('warning');
    expect(finding?.summary).toBe('"web" asked from pod tools/debug gets no answer after 4 names (8 queries)');
  });

  it('by default, with --include-info: each Service\'s short name from a pod of another namespace, as info', () => {
    expect(reportOf(objects).findings.filter((f) => f.code === 'NdotsExpansion')).toEqual([]);
    const info = reportOf(objects, { includeInfo: true }).findings.filter((f) => f.code === 'NdotsExpansion');
    expect(info.map((f) => `${f.service} ${f.severity} ${f.summary}`)).toEqual([
      'shop/web info "web" asked from pod tools/debug gets no answer after 4 names (8 queries): from namespace tools use web.shop',
    ]);
  });
});

describe('HeadlessNameMissing', () => {
  const member = (name: string, extra: Record<string, unknown> = {}) => pod('shop', name, { labels: { app: 'db' }, ip: '10.244.1.5', spec: { subdomain: 'db', hostname: name, ...extra } });

  it('a subdomain naming no Service: an error about the Service that is missing', () => {
    const findings = reportOf([...NODES, member('db-0')]).findings.filter((f) => f.code === 'HeadlessNameMissing');
    expect(findings.map((f) => `${f.service} ${f.severity} ${f.summary}`)).toEqual([
      'shop/db error 1 pod names subdomain db, but namespace shop has no Service db: db-0.db.shop.svc.cluster.local gets no record',
    ]);
  });

  it('a subdomain naming a Service that is not headless: an error', () => {
    const svc = service('shop', 'db', { clusterIP: '10.96.1.60', selector: { app: 'db' }, ports: [{ port: 5432 }] });
    const findings = reportOf([...NODES, svc, member('db-0'), member('db-1')]).findings.filter((f) => f.code === 'HeadlessNameMissing');
    expect(findings.map((f) => f.summary)).toEqual(['2 pods name subdomain db, but Service shop/db is not headless (clusterIP 10.96.1.60): db-0.db.shop.svc.cluster.local gets no record']);
  });

  it('a headless Service: no finding, unless a pod sets no hostname', () => {
    const svc = service('shop', 'db', { clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 5432 }] });
    expect(reportOf([...NODES, svc, member('db-0')]).findings.filter((f) => f.code === 'HeadlessNameMissing')).toEqual([]);
    const nameless = pod('shop', 'db-x', { labels: { app: 'db' }, ip: '10.244.1.6', spec: { subdomain: 'db' } });
    const findings = reportOf([...NODES, svc, nameless]).findings.filter((f) => f.code === 'HeadlessNameMissing');
    expect(findings.map((f) => `${f.severity} ${f.summary}`)).toEqual(['warning 1 pod names subdomain db without a spec.hostname: db-x.db.shop.svc.cluster.local gets no record']);
  });
});

describe('HeadlessNameMissing: a headless Service that does not select the pod', () => {
  it('is a warning naming the selector and the pod\'s labels', () => {
    const svc = service('shop', 'db', { clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 5432 }] });
    const stray = pod('shop', 'cache-0', { labels: { app: 'cache' }, ip: '10.244.1.7', spec: { subdomain: 'db', hostname: 'cache-0' } });
    const findings = reportOf([...NODES, svc, stray]).findings.filter((f) => f.code === 'HeadlessNameMissing');
    expect(findings.map((f) => `${f.severity} ${f.summary}`)).toEqual([
      'warning 1 pod names subdomain db, but the headless Service shop/db does not select it: cache-0.db.shop.svc.cluster.local gets no record',
    ]);
    expect(findings[0]?.evidence).toEqual(['Service shop/db: spec.selector app=db', 'pod shop/cache-0: labels app=cache']);
  });
});
