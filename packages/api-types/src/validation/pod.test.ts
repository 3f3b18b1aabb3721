// Pod validation examples, limited to the fields pod.ts covers. Messages as upstream's
// pkg/apis/core/validation/validation.go (v1.32) renders them.
import { describe, expect, it } from 'vitest';
import { defaultPod } from '../defaults.js';
import type { Pod } from '../objects/pod.js';
import { renderFieldError, type FieldError } from './field-errors.js';
import { validatePod } from './pod.js';

const render = (errs: readonly FieldError[]): string[] => errs.map(renderFieldError);

function pod(change: (p: Pod & { spec: NonNullable<Pod['spec']> }) => void = () => undefined): Pod {
  const p: Pod & { spec: NonNullable<Pod['spec']> } = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: 'default' },
    spec: { hostname: 'web-0', subdomain: 'web', nodeName: 'node-a' },
    status: { podIP: '10.244.1.5', podIPs: [{ ip: '10.244.1.5' }, { ip: 'fd00::5' }] },
  };
  change(p);
  return defaultPod(p);
}

describe('validatePod', () => {
  it('accepts a defaulted dual-stack pod', () => {
    expect(validatePod(pod())).toEqual([]);
  });

  it('wants a DNS-1123 subdomain name, and labels for hostname and subdomain', () => {
    expect(
      render(
        validatePod(
          pod((p) => {
            p.metadata.name = 'Web_0';
            p.spec.hostname = 'web.0';
            p.spec.subdomain = 'Web';
          }),
        ),
      ),
    ).toEqual([
      `metadata.name: Invalid value: "Web_0": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      'spec.hostname: Invalid value: "web.0": must not contain dots',
      `spec.subdomain: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ]);
  });

  it('lists dnsPolicy values in upstream order, not sorted', () => {
    expect(render(validatePod(pod((p) => (p.spec.dnsPolicy = 'Cluster'))))).toEqual([
      'spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
    ]);
  });

  it('checks status IPs: validity, one per family, no repeats', () => {
    const p = pod();
    const withIPs = (ips: string[]): Pod => ({ ...p, status: { podIP: ips[0] ?? '', podIPs: ips.map((ip) => ({ ip })) } });
    expect(render(validatePod(withIPs(['10.244.1.300'])))).toEqual([
      'status.podIPs[0]: Invalid value: "10.244.1.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ]);
    expect(render(validatePod(withIPs(['10.0.0.1', '10.0.0.1'])))).toEqual([
      'status.podIPs: Invalid value: []core.PodIP{core.PodIP{IP:"10.0.0.1"}, core.PodIP{IP:"10.0.0.1"}}: may specify no more than one IP for each IP family',
      'status.podIPs[1]: Duplicate value: core.PodIP{IP:"10.0.0.1"}',
    ]);
  });

  it('wants hostIPs[0] to equal hostIP', () => {
    const p = pod();
    const bad: Pod = { ...p, status: { ...p.status, hostIP: '192.168.0.10', hostIPs: [{ ip: '192.168.0.11' }] } };
    expect(render(validatePod(bad))).toEqual([
      'status.hostIPs[0].ip: Invalid value: "192.168.0.11": must be equal to `hostIP`',
    ]);
  });
});
