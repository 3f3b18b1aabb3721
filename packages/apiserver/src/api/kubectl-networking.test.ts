// Real kubectl (/usr/bin/kubectl, 1.33) against the API server with its Table printers, for
// the networking.k8s.io/v1 resources: `kubectl apply -f` of a ServiceCIDR, `kubectl get
// servicecidrs` and `get ipaddresses` as Tables, `get servicecidr X -o yaml`, `api-resources`,
// and `delete`. Each command has its own cache folder. No controllers run, so the ServiceCIDR
// keeps the status it was created with and IPAddresses are created by the test.
// The expected output is what kubectl prints against a v1.33 cluster for these resources
// (column headers from pkg/printers/internalversion/printers.go; api-resources from the
// storages in pkg/registry/networking/*/storage/storage.go).
import { describe, expect, it } from 'vitest';
import { kubectlHarness } from './kubectl.fixtures.js';

const harness = kubectlHarness('networking', 12);
const kubectl = harness.kubectl;

/** Output lines cut into cells (kubectl pads columns with 3+ spaces), ages replaced by `AGE`. */
function rows(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.trimEnd().split(/ {3,}/).map((cell) => (/^\d+s$/.test(cell) ? 'AGE' : cell)));
}

const SERVICE_CIDR_YAML = `apiVersion: networking.k8s.io/v1
kind: ServiceCIDR
metadata:
  name: extra
spec:
  cidrs:
  - 10.100.0.0/16
  - fd00:100::/64
`;

describe('kubectl and networking.k8s.io/v1', () => {
  it('api-resources lists servicecidrs and ipaddresses, cluster-scoped, in networking.k8s.io/v1', async () => {
    const r = await kubectl('api-resources', '--api-group=networking.k8s.io');
    expect(r.code).toBe(0);
    expect(rows(r.stdout)).toEqual([
      ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'],
      ['ipaddresses', 'networking.k8s.io/v1', 'false', 'IPAddress'],
      ['servicecidrs', 'networking.k8s.io/v1', 'false', 'ServiceCIDR'],
    ]);
  });

  it('applies a ServiceCIDR, gets it as a Table and as YAML, and deletes it', async () => {
    const file = await harness.file('servicecidr.yaml', SERVICE_CIDR_YAML);
    expect(await kubectl('apply', '-f', file)).toMatchObject({ code: 0, stdout: 'servicecidr.networking.k8s.io/extra created\n' });
    // A second apply of the same file is a strategic merge patch that changes nothing.
    expect(await kubectl('apply', '-f', file)).toMatchObject({ code: 0, stdout: 'servicecidr.networking.k8s.io/extra unchanged\n' });

    // Beside the default ServiceCIDR the apiserver made from --service-cluster-ip-range at its start.
    const table = await kubectl('get', 'servicecidrs');
    expect(rows(table.stdout)).toEqual([
      ['NAME', 'CIDRS', 'AGE'],
      ['extra', '10.100.0.0/16,fd00:100::/64', 'AGE'],
      ['kubernetes', '10.96.0.0/24', 'AGE'],
    ]);

    const yaml = await kubectl('get', 'servicecidr', 'extra', '-o', 'yaml');
    expect(yaml.code).toBe(0);
    expect(yaml.stdout).toMatch(/^apiVersion: networking\.k8s\.io\/v1\nkind: ServiceCIDR\nmetadata:\n/);
    expect(yaml.stdout).toContain('  name: extra\n');
    expect(yaml.stdout).toContain('spec:\n  cidrs:\n  - 10.100.0.0/16\n  - fd00:100::/64\n');
    expect(yaml.stdout).not.toContain('namespace:');

    expect(await kubectl('delete', 'servicecidr', 'extra')).toMatchObject({ code: 0, stdout: 'servicecidr.networking.k8s.io "extra" deleted\n' });
    expect((await harness.registry().get('servicecidrs', '', 'extra')).ok).toBe(false);
    const gone = await kubectl('get', 'servicecidr', 'extra');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe('Error from server (NotFound): servicecidrs.networking.k8s.io "extra" not found\n');
  });

  it('prints the server\'s 422 for an invalid ServiceCIDR', async () => {
    const file = await harness.file('bad.yaml', SERVICE_CIDR_YAML.replace('10.100.0.0/16', '10.100.0.1/16'));
    const r = await kubectl('apply', '-f', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('The ServiceCIDR "extra" is invalid: spec.cidrs[0]: Invalid value: "10.100.0.1/16": must not have bits set beyond the prefix length');
  });

  it('gets ipaddresses as a Table with the parentRef as printIPAddress prints it', async () => {
    for (const [ip, name] of [
      ['10.96.0.1', 'kubernetes'],
      ['10.96.0.10', 'kube-dns'],
    ] as const) {
      const created = await harness.registry().create('ipaddresses', '', {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IPAddress',
        metadata: { name: ip },
        spec: { parentRef: { group: '', resource: 'services', namespace: name === 'kube-dns' ? 'kube-system' : 'default', name } },
      });
      expect(created.ok).toBe(true);
    }
    const r = await kubectl('get', 'ipaddresses');
    expect(rows(r.stdout)).toEqual([
      ['NAME', 'PARENTREF'],
      ['10.96.0.1', 'services/default/kubernetes'],
      ['10.96.0.10', 'services/kube-system/kube-dns'],
    ]);
    const one = await kubectl('get', 'ipaddress', '10.96.0.10', '-o', 'jsonpath={.spec.parentRef.name}');
    expect(one.stdout).toBe('kube-dns');
  });
});
