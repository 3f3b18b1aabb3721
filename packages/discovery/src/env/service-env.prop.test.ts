import type { Service } from '@kubesvc/api-types';
import { namespaceArb, serviceArb } from '@kubesvc/testkit';
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { serviceEnv as serviceEnvResult, type EnvVar, type ServiceEnvPod } from './service-env.js';

/** The variables; the generated pods and Services are well-formed, so the Result must be ok. */
function serviceEnv(pod: ServiceEnvPod, services: readonly Service[]): EnvVar[] {
  const r = serviceEnvResult(pod, services);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

const masterArb: fc.Arbitrary<Service> = fc.constantFrom('10.96.0.1', 'fd00:10:96::1').map((ip) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'kubernetes', namespace: 'default' },
  spec: { type: 'ClusterIP', clusterIP: ip, clusterIPs: [ip], ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }] },
}));

/** Services, and a pod that usually lives in the namespace of one of them. */
const podAndServicesArb = fc.array(serviceArb(), { maxLength: 6 }).chain((services) =>
  fc.tuple(
    fc.record(
      {
        namespace: fc.oneof(
          namespaceArb().map((n) => n.metadata.name ?? 'default'),
          ...services.map((s) => fc.constant(s.metadata.namespace ?? 'default')),
        ),
        enableServiceLinks: fc.boolean(),
      },
      { noNullPrototype: true },
    ),
    fc.constant(services),
  ),
);

test.prop([podAndServicesArb])('INV-ENV-NAMES: every injected variable name is a valid C identifier', ([pod, services]) => {
  for (const v of serviceEnv(pod, services)) expect(v.name).toMatch(IDENTIFIER);
});

test.prop([podAndServicesArb, masterArb, fc.nat()])(
  'INV-ENV-MASTER: with default/kubernetes present, KUBERNETES_SERVICE_HOST and _PORT are always injected',
  ([pod, others], master, at) => {
    // A same-named service in the pod's own namespace legitimately replaces the master one.
    const services = others.filter((s) => s.metadata.name !== 'kubernetes');
    const list = [...services.slice(0, at % (services.length + 1)), master, ...services.slice(at % (services.length + 1))];
    const vars = new Map(serviceEnv(pod, list).map((v) => [v.name, v.value]));
    expect(vars.get('KUBERNETES_SERVICE_HOST')).toBe(master.spec?.clusterIP);
    expect(vars.get('KUBERNETES_SERVICE_PORT')).toBe('443');
    expect(vars.get('KUBERNETES_SERVICE_PORT_HTTPS')).toBe('443');
  },
);
