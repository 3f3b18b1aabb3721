// The doctor's pod checks on small hand-written dumps: SelectorMatchesNoPod, PodsNotReady,
// TargetPortNotExposed.
import { describe, expect, it } from 'vitest';
import { node, pod, reportOf, service } from './doctor.fixtures.js';

const NODES = [node('node-a', '192.168.10.1')];

function codes(report: { findings: readonly { code: string; severity: string; service: string }[] }): string[] {
  return report.findings.map((f) => `${f.service} ${f.severity} ${f.code}`);
}

describe('SelectorMatchesNoPod', () => {
  const svc = service('shop', 'web', { clusterIP: '10.96.1.10', selector: { app: 'web', tier: 'front' }, ports: [{ port: 80, targetPort: 8080 }] });

  it('names the nearest pods and the labels that differ', () => {
    const report = reportOf([
      ...NODES,
      svc,
      pod('shop', 'web-1', { labels: { app: 'web', tier: 'frontend' }, ip: '10.244.1.1' }),
      pod('shop', 'web-2', { labels: { app: 'web' }, ip: '10.244.1.2' }),
      pod('shop', 'db-0', { labels: { app: 'db' }, ip: '10.244.1.3' }),
      pod('other', 'web-x', { labels: { app: 'web', tier: 'front' }, ip: '10.244.1.4' }),
    ]);
    const finding = report.findings.find((f) => f.code === 'SelectorMatchesNoPod');
    expect(finding?.severity).toBe('error');
    expect(finding?.service).toBe('shop/web');
    expect(finding?.summary).toBe('the selector app=web,tier=front selects no pod in namespace shop');
    expect(finding?.evidence).toEqual([
      'spec.selector: app=web,tier=front',
      'nearest: pod shop/web-1 matches 1 of 2 labels; differs: tier="frontend" (selector: "front")',
      'nearest: pod shop/web-2 matches 1 of 2 labels; differs: tier absent (selector: "front")',
      'pods of other namespaces match the selector, and a Service selects only in its own: other/web-x',
    ]);
    expect(finding?.command).toBe('kubectl get pods -n shop --show-labels');
  });

  it('says when no pod of the namespace has any of the labels', () => {
    const report = reportOf([...NODES, svc, pod('shop', 'db-0', { labels: { app: 'db' }, ip: '10.244.1.3' })]);
    expect(report.findings.find((f) => f.code === 'SelectorMatchesNoPod')?.evidence).toEqual([
      'spec.selector: app=web,tier=front',
      "none of the 1 pods of namespace shop has any of the selector's labels",
    ]);
  });

  it('is not reported for a Service without a selector, nor for an ExternalName Service', () => {
    const report = reportOf([
      ...NODES,
      pod('shop', 'db-0', { labels: { app: 'db' }, ip: '10.244.1.3' }),
      service('shop', 'ext', { type: 'ExternalName', externalName: 'example.com', selector: { app: 'x' } }),
    ]);
    expect(codes(report)).toEqual([]);
  });
});

describe('PodsNotReady', () => {
  const svc = service('shop', 'api', { clusterIP: '10.96.1.20', selector: { app: 'api' }, ports: [{ port: 80, targetPort: 8080 }] });
  const ports = [{ containerPort: 8080 }];
  const crashing = pod('shop', 'api-2', {
    labels: { app: 'api' },
    ip: '10.244.1.2',
    ports,
    status: {
      conditions: [{ type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [app]' }],
      containerStatuses: [{ name: 'app', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 1m20s' } } }],
    },
  });
  const terminating = pod('shop', 'api-3', { labels: { app: 'api' }, ip: '10.244.1.3', ports, metadata: { deletionTimestamp: '2026-12-03T00:00:00Z' } });

  it('is a warning while some selected pod is ready, with the conditions and container states', () => {
    const report = reportOf([...NODES, svc, pod('shop', 'api-1', { labels: { app: 'api' }, ip: '10.244.1.1', ports }), crashing, terminating]);
    const finding = report.findings.find((f) => f.code === 'PodsNotReady');
    expect(finding?.severity).toBe('warning');
    expect(finding?.summary).toBe('2 of 3 selected pods are not ready (1 Terminating)');
    expect(finding?.evidence).toEqual([
      'pod shop/api-2: Ready=False (ContainersNotReady: containers with unready status: [app]); container app waiting: CrashLoopBackOff: back-off 1m20s, 4 restarts',
      'pod shop/api-3: Terminating (deletionTimestamp 2026-12-03T00:00:00Z)',
    ]);
    expect(finding?.command).toBe('kubectl get pods -n shop -l app=api -o wide');
  });

  it('is an error when no selected pod is ready', () => {
    const report = reportOf([...NODES, svc, crashing]);
    const finding = report.findings.find((f) => f.code === 'PodsNotReady');
    expect(finding?.severity).toBe('error');
    expect(finding?.summary).toBe('1 of 1 selected pods are not ready: no ready endpoint');
  });

  it('names a terminated container and a pod without an IP', () => {
    const failed = pod('shop', 'api-4', {
      labels: { app: 'api' },
      ports,
      status: { phase: 'Pending', conditions: [], containerStatuses: [{ name: 'app', state: { terminated: { reason: 'Error', exitCode: 2 } } }] },
    });
    const report = reportOf([...NODES, svc, failed]);
    expect(report.findings.find((f) => f.code === 'PodsNotReady')?.evidence).toEqual([
      'pod shop/api-4: no pod IP yet; no Ready condition (phase Pending); container app terminated: Error (exit code 2)',
    ]);
  });

  it('is a note with publishNotReadyAddresses', () => {
    const published = service('shop', 'api', { clusterIP: '10.96.1.20', selector: { app: 'api' }, publishNotReadyAddresses: true, ports: [{ port: 80, targetPort: 8080 }] });
    const report = reportOf([...NODES, published, crashing]);
    expect(report.findings.find((f) => f.code === 'PodsNotReady')?.severity).toBe('note');
  });
});

describe('TargetPortNotExposed', () => {
  it('a numeric targetPort no container declares is a note', () => {
    const report = reportOf([
      ...NODES,
      service('shop', 'api', { clusterIP: '10.96.1.20', selector: { app: 'api' }, ports: [{ name: 'https', port: 443, targetPort: 8443 }] }),
      pod('shop', 'api-1', { labels: { app: 'api' }, ip: '10.244.1.1', ports: [{ name: 'http', containerPort: 8080 }] }),
    ]);
    const finding = report.findings.find((f) => f.code === 'TargetPortNotExposed');
    expect(finding?.severity).toBe('note');
    expect(finding?.summary).toBe('targetPort 8443/TCP of port https (443/TCP) is declared by no container of the 1 selected pods');
    expect(finding?.evidence).toEqual(['pod shop/api-1: app http:8080/TCP']);
  });

  it('an absent targetPort is the port itself, and a declared one is no finding', () => {
    const report = reportOf([
      ...NODES,
      service('shop', 'api', { clusterIP: '10.96.1.20', selector: { app: 'api' }, ports: [{ port: 8080 }] }),
      pod('shop', 'api-1', { labels: { app: 'api' }, ip: '10.244.1.1', ports: [{ containerPort: 8080 }] }),
    ]);
    expect(report.findings.filter((f) => f.code === 'TargetPortNotExposed')).toEqual([]);
  });

  it('a named targetPort no selected pod has is an error; one some lack, a warning', () => {
    const svc = service('shop', 'cart', { clusterIP: '10.96.1.30', selector: { app: 'cart' }, ports: [{ name: 'grpc', port: 9090, targetPort: 'grpc' }] });
    const without = pod('shop', 'cart-1', { labels: { app: 'cart' }, ip: '10.244.1.1', ports: [{ name: 'http', containerPort: 8080 }] });
    const withIt = pod('shop', 'cart-2', { labels: { app: 'cart' }, ip: '10.244.1.2', ports: [{ name: 'grpc', containerPort: 9000 }] });
    const none = reportOf([...NODES, svc, without]).findings.find((f) => f.code === 'TargetPortNotExposed');
    expect(none?.severity).toBe('error');
    expect(none?.summary).toBe('named targetPort "grpc" (TCP) of port grpc (9090/TCP) is declared by none of the 1 selected pods');
    const some = reportOf([...NODES, svc, without, withIt]).findings.find((f) => f.code === 'TargetPortNotExposed');
    expect(some?.severity).toBe('warning');
    expect(some?.evidence).toEqual(['pod shop/cart-1: app http:8080/TCP']);
  });

  it('a named port of the wrong protocol does not count; one of a sidecar does', () => {
    const svc = service('shop', 'dns', { clusterIP: '10.96.1.40', selector: { app: 'dns' }, ports: [{ name: 'dns', port: 53, protocol: 'UDP', targetPort: 'dns' }] });
    const tcpOnly = pod('shop', 'dns-1', { labels: { app: 'dns' }, ip: '10.244.1.1', ports: [{ name: 'dns', containerPort: 53, protocol: 'TCP' }] });
    expect(reportOf([...NODES, svc, tcpOnly]).findings.find((f) => f.code === 'TargetPortNotExposed')?.severity).toBe('error');
    const sidecar = pod('shop', 'dns-2', {
      labels: { app: 'dns' },
      ip: '10.244.1.2',
      spec: { initContainers: [{ name: 'side', image: 'side', restartPolicy: 'Always', ports: [{ name: 'dns', containerPort: 5353, protocol: 'UDP' }] }] },
    });
    expect(reportOf([...NODES, svc, sidecar]).findings.filter((f) => f.code === 'TargetPortNotExposed')).toEqual([]);
  });
});

describe('PodsNotReady: many pods', () => {
  it('names the first 10 and counts the others', () => {
    const svc = service('shop', 'big', { clusterIP: '10.96.1.90', selector: { app: 'big' }, ports: [{ port: 80 }] });
    const pods = Array.from({ length: 12 }, (_, i) => pod('shop', `big-${String(i).padStart(2, '0')}`, { labels: { app: 'big' }, ip: `10.244.1.${i + 1}`, ready: false }));
    const finding = reportOf([...NODES, svc, ...pods]).findings.find((f) => f.code === 'PodsNotReady');
    expect(finding?.evidence.length).toBe(11);
    expect(finding?.evidence[9]).toBe('pod shop/big-09: Ready=False');
    expect(finding?.evidence[10]).toBe('... and 2 more pods not ready');
  });
});
