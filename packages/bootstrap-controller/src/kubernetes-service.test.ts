// The kubernetes Service as upstream creates it, and checkServiceFormat.
// upstream: pkg/controlplane/controller.go (CreateOrUpdateMasterServiceIfNeeded,
// createPortAndServiceSpec, checkServiceFormat) and controller_test.go.
import type { Service, ServicePort } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { bootstrapConfig, type BootstrapOptions } from './config.js';
import { checkServiceFormat, endpointPorts, kubernetesService, serviceUpdateIfNeeded } from './kubernetes-service.js';

function config(options: Partial<BootstrapOptions> = {}) {
  const result = bootstrapConfig({ serviceClusterIPRange: '10.96.0.0/16', publicIP: '192.168.0.10', ...options });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

describe('kubernetesService', () => {
  it('is default/kubernetes at the first IP, no selector, SingleStack, no affinity, https TCP 443 → 6443, ClusterIP', () => {
    expect(kubernetesService(config())).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { provider: 'kubernetes', component: 'apiserver' } },
      spec: {
        ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 6443 }],
        clusterIP: '10.96.0.1',
        ipFamilyPolicy: 'SingleStack',
        sessionAffinity: 'None',
        type: 'ClusterIP',
      },
    });
  });

  it('is a NodePort Service when a node port is set', () => {
    const spec = kubernetesService(config({ kubernetesServiceNodePort: 30443, securePort: 8443 })).spec;
    expect(spec?.type).toBe('NodePort');
    expect(spec?.ports).toEqual([{ name: 'https', protocol: 'TCP', port: 443, targetPort: 8443, nodePort: 30443 }]);
  });

  it('the endpoint ports are https TCP on the secure port', () => {
    expect(endpointPorts(config({ securePort: 8443 }))).toEqual([{ name: 'https', port: 8443, protocol: 'TCP' }]);
  });
});

describe('checkServiceFormat', () => {
  const https: ServicePort = { name: 'https', protocol: 'TCP', port: 443, targetPort: 6443 };
  const ports = [https];
  const svc = (spec: Service['spec']): Service => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'kubernetes' }, spec });

  it.each<[string, Service['spec'], boolean]>([
    ['the same type and ports', { type: 'ClusterIP', ports }, true],
    ['another type', { type: 'NodePort', ports }, false],
    ['another port', { type: 'ClusterIP', ports: [{ ...https, port: 8443 }] }, false],
    ['another target port', { type: 'ClusterIP', ports: [{ ...https, targetPort: 443 }] }, false],
    ['a node port set on a ClusterIP', { type: 'ClusterIP', ports: [{ ...https, nodePort: 30000 }] }, false],
    ['an extra port', { type: 'ClusterIP', ports: [...ports, { name: 'x', protocol: 'TCP', port: 1, targetPort: 1 }] }, false],
    ['no ports', { type: 'ClusterIP' }, false],
    ['a different name', { type: 'ClusterIP', ports: [{ ...https, name: 'http' }] }, false],
  ])('%s → %s', (_name, spec, expected) => {
    expect(checkServiceFormat(svc(spec), ports, 'ClusterIP')).toBe(expected);
  });

  it('a port with an appProtocol never matches: Go compares the *string fields as pointers', () => {
    const web: ServicePort = { ...https, appProtocol: 'https' };
    expect(checkServiceFormat(svc({ type: 'ClusterIP', ports: [{ ...web }] }), [web], 'ClusterIP')).toBe(false);
    expect(checkServiceFormat(svc({ type: 'ClusterIP', ports: [https] }), [web], 'ClusterIP')).toBe(false);
  });

  it('an update resets only the ports and the type', () => {
    const existing = svc({ type: 'NodePort', clusterIP: '10.96.0.1', ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 6443, nodePort: 30001 }] });
    expect(serviceUpdateIfNeeded(existing, config())?.spec).toEqual({ type: 'ClusterIP', clusterIP: '10.96.0.1', ports });
    expect(serviceUpdateIfNeeded(svc({ type: 'ClusterIP', ports }), config())).toBeUndefined();
  });
});
