// loadDump sorts objects by kind; networking.k8s.io/v1's ServiceCIDRs and IPAddresses are read
// into their own lists, and, being cluster-scoped, are not put in the `default` namespace.
import { expect, test } from 'vitest';
import { loadDump } from './load-dump.js';

test('ServiceCIDRs and IPAddresses are read, cluster-scoped, next to the core kinds', () => {
  const text = [
    'apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata: {name: kubernetes}\nspec: {cidrs: ["10.96.0.0/12"]}\n',
    'apiVersion: networking.k8s.io/v1\nkind: IPAddress\nmetadata: {name: "10.96.0.1"}\nspec: {parentRef: {resource: services, namespace: default, name: kubernetes}}\n',
    'apiVersion: v1\nkind: Service\nmetadata: {name: kubernetes}\nspec: {clusterIP: 10.96.0.1, ports: [{port: 443}]}\n',
  ].join('---\n');
  const loaded = loadDump('dump.yaml', text);
  expect(loaded.ok).toBe(true);
  if (!loaded.ok) return;
  const dump = loaded.value;
  expect(dump.serviceCIDRs.map((s) => [s.metadata.name, s.metadata.namespace, s.spec?.cidrs])).toEqual([['kubernetes', undefined, ['10.96.0.0/12']]]);
  expect(dump.ipAddresses.map((a) => [a.metadata.name, a.metadata.namespace, a.spec?.parentRef?.name])).toEqual([['10.96.0.1', undefined, 'kubernetes']]);
  expect(dump.services.map((s) => s.metadata.namespace)).toEqual(['default']);
  expect(dump.skipped).toEqual([]);
});
