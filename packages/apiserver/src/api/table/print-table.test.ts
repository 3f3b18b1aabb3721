// The Table envelope: upstream's asTable and GenerateTable decide the row object by
// includeObject (PartialObjectMetadata by default), carry the list's resourceVersion and
// continue token, and leave columns out of watch events after the first.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/response.go (asTable),
//           pkg/printers/tablegenerator.go
import type { Namespace, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { printTable, printWatchEventTable, tableColumns } from './print-table.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const svc: Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'shop', uid: 'u-1', resourceVersion: '42', creationTimestamp: '2025-06-01T11:00:00Z', labels: { app: 'web' } },
  spec: { type: 'ClusterIP', clusterIPs: ['10.96.0.20'], ports: [{ port: 80, protocol: 'TCP' }], selector: { app: 'web' } },
};

describe('printTable', () => {
  it('wraps rows in a meta.k8s.io/v1 Table with the list metadata', () => {
    const table = printTable('services', [svc], { now: NOW, resourceVersion: '57', continue: 'tok' });
    expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '57', continue: 'tok' } });
    expect(table?.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age', 'Selector']);
    expect(table?.rows[0]?.cells).toEqual(['web', 'ClusterIP', '10.96.0.20', '<none>', '80/TCP', '60m', 'app=web']);
  });

  it('omits empty resourceVersion and continue, as ListMeta\'s omitempty does', () => {
    expect(printTable('services', [], { now: NOW })?.metadata).toEqual({});
    expect(JSON.parse(JSON.stringify(printTable('services', [], { now: NOW, resourceVersion: '', continue: '' })))).toMatchObject({ metadata: {}, rows: [] });
  });

  it('puts a PartialObjectMetadata with the whole metadata in each row by default', () => {
    const row = printTable('services', [svc], { now: NOW })?.rows[0];
    expect(row?.object).toEqual({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: svc.metadata });
    expect(printTable('services', [svc], { now: NOW, includeObject: 'Metadata' })?.rows[0]?.object).toEqual(row?.object);
  });

  it('puts the whole object for includeObject=Object, and null for None', () => {
    expect(printTable('services', [svc], { now: NOW, includeObject: 'Object' })?.rows[0]?.object).toEqual(svc);
    const none = printTable('services', [svc], { now: NOW, includeObject: 'None' });
    expect(JSON.parse(JSON.stringify(none?.rows[0]))).toEqual({ cells: ['web', 'ClusterIP', '10.96.0.20', '<none>', '80/TCP', '60m', 'app=web'], object: null });
  });

  it('prints nodes from plain JSON', () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    expect(printTable('nodes', [node], { now: NOW })?.rows[0]?.cells.slice(0, 3)).toEqual(['n1', 'Ready', '<none>']);
  });

  it('returns undefined for a resource without a printer', () => {
    expect(printTable('leases' as 'services', [], { now: NOW })).toBeUndefined();
    expect(printTable('toString' as 'services', [], { now: NOW })).toBeUndefined();
    expect(tableColumns('constructor' as 'services')).toBeUndefined();
  });
});

describe('printWatchEventTable', () => {
  const ns: Namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', resourceVersion: '99', creationTimestamp: '2025-06-01T11:59:30Z' }, status: { phase: 'Active' } };

  it('is a one-row Table at the object\'s resourceVersion', () => {
    const t = printWatchEventTable('namespaces', ns, { now: NOW });
    expect(t?.metadata).toEqual({ resourceVersion: '99' });
    expect(t?.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Status', 'Age']);
    expect(t?.rows.map((r) => r.cells)).toEqual([['shop', 'Active', '30s']]);
  });

  it('leaves the columns out with noHeaders, keeping full rows', () => {
    const t = printWatchEventTable('namespaces', ns, { now: NOW, noHeaders: true });
    expect(t?.columnDefinitions).toEqual([]);
    expect(t?.rows[0]?.cells).toHaveLength(3);
  });
});
