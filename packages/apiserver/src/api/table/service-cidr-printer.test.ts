// Row cells of the ServiceCIDR and IPAddress printers. The cases are those of upstream's
// pkg/printers/internalversion/printers_test.go TestPrintServiceCIDR (IPv4, IPv6 and dual-stack
// ServiceCIDRs) and TestPrintIPAddress (a parentRef with a group and a namespace); the stored
// copy of that test file read here predates them, so each expected cell is worked out from
// printServiceCIDR and printIPAddress of v1.33 (strings.Join(cidrs, ","); the lower-cased
// schema.GroupResource String, `/namespace` when set, `/name`) and a creation time with no
// value ages as `<unknown>`.
import type { IPAddress, ServiceCIDR } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { formatParentRef, ipAddressPrinter, serviceCIDRPrinter } from './service-cidr-printer.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const TEN_YEARS_AGO = '2015-06-01T12:00:00Z';

function cidr(name: string, cidrs: string[]): ServiceCIDR {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs } };
}

describe('servicecidrs', () => {
  it('has upstream\'s columns: NAME CIDRS AGE', () => {
    expect(serviceCIDRPrinter.columns.map((c) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['CIDRs', 'string', 0],
      ['Age', 'string', 0],
    ]);
    expect(serviceCIDRPrinter.columns[0]?.format).toBe('name');
  });

  it('prints an IPv4, an IPv6 and a dual-stack ServiceCIDR (TestPrintServiceCIDR)', () => {
    expect(serviceCIDRPrinter.cells(cidr('test1', ['10.1.0.0/16']), NOW)).toEqual(['test1', '10.1.0.0/16', '<unknown>']);
    expect(serviceCIDRPrinter.cells(cidr('test5', ['fd00:1:1::/64']), NOW)).toEqual(['test5', 'fd00:1:1::/64', '<unknown>']);
    expect(serviceCIDRPrinter.cells(cidr('test9', ['10.1.0.0/16', 'fd00:1:1::/64']), NOW)).toEqual(['test9', '10.1.0.0/16,fd00:1:1::/64', '<unknown>']);
  });

  it('prints the default ServiceCIDR with its age', () => {
    const kubernetes: ServiceCIDR = { ...cidr('kubernetes', ['10.96.0.0/12']), metadata: { name: 'kubernetes', creationTimestamp: TEN_YEARS_AGO } };
    expect(serviceCIDRPrinter.cells(kubernetes, NOW)).toEqual(['kubernetes', '10.96.0.0/12', '10y']);
  });
});

describe('ipaddresses', () => {
  it('has upstream\'s columns: NAME PARENTREF (no Age column, though the row has an age cell)', () => {
    expect(ipAddressPrinter.columns.map((c) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0],
      ['ParentRef', 'string', 0],
    ]);
  });

  it('prints a parentRef with a group and a namespace as resource.group/namespace/name (TestPrintIPAddress)', () => {
    const ip: IPAddress = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IPAddress',
      metadata: { name: '192.168.2.2', creationTimestamp: TEN_YEARS_AGO },
      spec: { parentRef: { group: 'mygroup', resource: 'myresource', namespace: 'mynamespace', name: 'myname' } },
    };
    expect(ipAddressPrinter.cells(ip, NOW)).toEqual(['192.168.2.2', 'myresource.mygroup/mynamespace/myname', '10y']);
  });

  it('prints a Service parentRef as services/<namespace>/<name>, a cluster-scoped one without the namespace, none as <none>', () => {
    expect(formatParentRef({ group: '', resource: 'services', namespace: 'default', name: 'kubernetes' })).toBe('services/default/kubernetes');
    expect(formatParentRef({ group: 'Gateway.Networking.k8s.io', resource: 'Gateways', name: 'gw' })).toBe('gateways.gateway.networking.k8s.io/gw');
    expect(formatParentRef(undefined)).toBe('<none>');
    expect(formatParentRef(null)).toBe('<none>');
  });
});
