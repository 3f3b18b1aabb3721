import { describe, expect, it } from 'vitest';
import { defaultService } from './defaults.js';
import type { Service, ServiceSpec } from './objects/service.js';
import { prepareServiceUpdate } from './service-update.js';
import { renderFieldError } from './validation/field-errors.js';
import { validatePreparedServiceUpdate } from './validation/service.js';

const meta = { name: 'web', namespace: 'shop', resourceVersion: '41' };
const stored = (spec: ServiceSpec, status?: Service['status']): Service =>
  defaultService({ apiVersion: 'v1', kind: 'Service', metadata: meta, spec, ...(status ? { status } : {}) });
/** What a client sends: its manifest, defaulted by the apiserver's decoder. */
const sent = (spec: ServiceSpec): Service => defaultService({ apiVersion: 'v1', kind: 'Service', metadata: meta, spec });
const allocated: ServiceSpec = { clusterIP: '10.96.14.2', clusterIPs: ['10.96.14.2'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' };
const update = (next: Service, old: Service): { spec: ServiceSpec; errors: string[]; service: Service } => {
  const service = prepareServiceUpdate(next, old);
  return { service, spec: service.spec ?? {}, errors: validatePreparedServiceUpdate(service, old).map(renderFieldError) };
};

describe('prepareServiceUpdate (upstream storage.go beginUpdate, strategy.go PrepareForUpdate)', () => {
  it('re-applying a manifest that never named its cluster IP or node ports changes nothing', () => {
    const old = stored({ ...allocated, type: 'NodePort', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, nodePort: 30080 }, { name: 'https', port: 443, nodePort: 30443 }] });
    const { spec, errors } = update(sent({ type: 'NodePort', selector: { app: 'web' }, ports: [{ name: 'https', port: 443 }, { name: 'http', port: 80 }] }), old);
    expect(errors).toEqual([]);
    expect(spec).toMatchObject({ clusterIP: '10.96.14.2', clusterIPs: ['10.96.14.2'] });
    expect(spec.ports?.map((p) => [p.name, p.nodePort])).toEqual([['https', 30443], ['http', 30080]]);
  });

  it('does not give a node port to a second port when the first still holds it', () => {
    const old = stored({ ...allocated, type: 'NodePort', ports: [{ name: 'http', port: 80, nodePort: 30080 }] });
    const { spec } = update(sent({ ...allocated, type: 'NodePort', ports: [{ name: 'web', port: 8080, nodePort: 30080 }, { name: 'http', port: 80 }] }), old);
    expect(spec.ports?.map((p) => p.nodePort)).toEqual([30080, undefined]);
  });

  it('NodePort -> ClusterIP drops the node ports and the external policy the client left alone', () => {
    const old = stored({ ...allocated, type: 'NodePort', ports: [{ name: 'http', port: 80, nodePort: 30080 }] });
    const { spec, errors } = update({ ...old, spec: { ...old.spec, type: 'ClusterIP' } }, old);
    expect(errors).toEqual([]);
    expect(spec.ports).toEqual([{ name: 'http', port: 80, protocol: 'TCP', targetPort: 80 }]);
    expect(spec).not.toHaveProperty('externalTrafficPolicy');
  });

  it('NodePort -> ClusterIP with a node port the client added keeps it, and validation refuses it', () => {
    const old = stored({ ...allocated, type: 'NodePort', ports: [{ name: 'http', port: 80, nodePort: 30080 }] });
    const { errors } = update({ ...old, spec: { ...old.spec, type: 'ClusterIP', ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 80, nodePort: 30081 }] } }, old);
    expect(errors).toEqual(["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
  });

  it('ClusterIP -> ExternalName drops the cluster IPs and families the client left alone', () => {
    const old = stored({ ...allocated, ports: [{ port: 80 }] });
    const { spec, errors } = update({ ...old, spec: { ...old.spec, type: 'ExternalName', externalName: 'db.example.com' } }, old);
    expect(errors).toEqual([]);
    expect(spec).not.toHaveProperty('clusterIP');
    expect(spec).not.toHaveProperty('ipFamilies');
    expect(spec).not.toHaveProperty('ipFamilyPolicy');
  });

  it('ClusterIP -> ExternalName with a new cluster IP keeps it, and validation refuses it', () => {
    const old = stored({ ...allocated, ports: [{ port: 80 }] });
    const { errors } = update({ ...old, spec: { ...old.spec, type: 'ExternalName', externalName: 'db.example.com', clusterIP: '10.96.14.3', clusterIPs: ['10.96.14.3'] } }, old);
    expect(errors).toEqual(['spec.clusterIPs: Forbidden: may not be set for ExternalName services']);
  });

  it('LoadBalancer -> NodePort drops the health-check port, allocateLoadBalancerNodePorts, the class and the load balancer status', () => {
    const old = stored(
      { ...allocated, type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 31544, loadBalancerClass: 'example.com/lb', ports: [{ name: 'http', port: 80, nodePort: 30080 }] },
      { loadBalancer: { ingress: [{ ip: '198.51.100.7', ipMode: 'VIP' }] } },
    );
    const { spec, errors, service } = update({ ...old, spec: { ...old.spec, type: 'NodePort' } }, old);
    expect(errors).toEqual([]);
    expect(spec).toMatchObject({ type: 'NodePort', externalTrafficPolicy: 'Local' });
    expect(spec).not.toHaveProperty('healthCheckNodePort');
    expect(spec).not.toHaveProperty('allocateLoadBalancerNodePorts');
    expect(spec).not.toHaveProperty('loadBalancerClass');
    expect(service.status).toEqual({ loadBalancer: {} });
  });

  it('keeps the stored status whatever the client sends, and never changes its inputs', () => {
    const old = stored({ ...allocated, type: 'LoadBalancer', ports: [{ port: 80, nodePort: 30080 }] }, { loadBalancer: { ingress: [{ ip: '198.51.100.7', ipMode: 'VIP' }] } });
    const next = { ...old, status: { loadBalancer: { ingress: [{ ip: '203.0.113.1', ipMode: 'VIP' }] } } };
    const before = JSON.stringify([next, old]);
    expect(prepareServiceUpdate(next, old).status).toEqual(old.status);
    expect(JSON.stringify([next, old])).toBe(before);
  });
});
