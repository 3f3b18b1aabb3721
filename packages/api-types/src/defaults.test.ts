import { describe, expect, it } from 'vitest';
import { defaultEndpointSlice, defaultEndpoints, defaultNamespace, defaultObject, defaultPod, defaultService } from './defaults.js';
import type { Service } from './objects/service.js';

const svc = (spec: Service['spec'], status?: Service['status']): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default' },
  spec,
  ...(status ? { status } : {}),
});

describe('defaultService (upstream pkg/apis/core/v1/defaults.go SetDefaults_Service)', () => {
  it('fills type, affinity, protocol, targetPort and internalTrafficPolicy of a bare ClusterIP Service', () => {
    expect(defaultService(svc({ ports: [{ port: 80 }] })).spec).toEqual({
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
      sessionAffinity: 'None',
      type: 'ClusterIP',
      internalTrafficPolicy: 'Cluster',
    });
  });

  it('replaces a targetPort of 0 or "" with the port, and keeps a named one', () => {
    const ports = defaultService(svc({ ports: [{ port: 80, targetPort: 0 }, { port: 81, targetPort: '' }, { port: 82, targetPort: 'http' }] })).spec?.ports;
    expect(ports?.map((p) => p.targetPort)).toEqual([80, 81, 'http']);
  });

  it('gives ClientIP affinity the 10800 s timeout, and drops a config under None', () => {
    expect(defaultService(svc({ sessionAffinity: 'ClientIP' })).spec?.sessionAffinityConfig).toEqual({ clientIP: { timeoutSeconds: 10800 } });
    expect(defaultService(svc({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } })).spec?.sessionAffinityConfig).toEqual({ clientIP: { timeoutSeconds: 60 } });
    expect(defaultService(svc({ sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } })).spec).not.toHaveProperty('sessionAffinityConfig');
  });

  it('sets externalTrafficPolicy Cluster only where the Service is reachable from outside', () => {
    expect(defaultService(svc({ type: 'NodePort' })).spec?.externalTrafficPolicy).toBe('Cluster');
    expect(defaultService(svc({ type: 'LoadBalancer' })).spec?.externalTrafficPolicy).toBe('Cluster');
    expect(defaultService(svc({ externalIPs: ['203.0.113.9'] })).spec?.externalTrafficPolicy).toBe('Cluster');
    expect(defaultService(svc({})).spec?.externalTrafficPolicy).toBeUndefined();
    expect(defaultService(svc({ type: 'NodePort', externalTrafficPolicy: 'Local' })).spec?.externalTrafficPolicy).toBe('Local');
  });

  it('gives ExternalName no internalTrafficPolicy, and LoadBalancer allocateLoadBalancerNodePorts true', () => {
    expect(defaultService(svc({ type: 'ExternalName', externalName: 'db.example.com' })).spec).not.toHaveProperty('internalTrafficPolicy');
    expect(defaultService(svc({ type: 'LoadBalancer' })).spec?.allocateLoadBalancerNodePorts).toBe(true);
    expect(defaultService(svc({ type: 'LoadBalancer', allocateLoadBalancerNodePorts: false })).spec?.allocateLoadBalancerNodePorts).toBe(false);
    expect(defaultService(svc({ type: 'NodePort' })).spec).not.toHaveProperty('allocateLoadBalancerNodePorts');
  });

  it('marks load-balancer ingress IPs without a mode as VIP, leaving hostnames alone', () => {
    const out = defaultService(svc({ type: 'LoadBalancer' }, { loadBalancer: { ingress: [{ ip: '198.51.100.7' }, { hostname: 'lb.example.com' }, { ip: '198.51.100.8', ipMode: 'Proxy' }] } }));
    expect(out.status?.loadBalancer?.ingress).toEqual([{ ip: '198.51.100.7', ipMode: 'VIP' }, { hostname: 'lb.example.com' }, { ip: '198.51.100.8', ipMode: 'Proxy' }]);
  });

  it('adds a spec to a Service that had none, and never changes its input', () => {
    const input = svc(undefined);
    delete (input as { spec?: unknown }).spec;
    const frozen = JSON.stringify(input);
    expect(defaultService(input).spec).toEqual({ sessionAffinity: 'None', type: 'ClusterIP', internalTrafficPolicy: 'Cluster' });
    expect(JSON.stringify(input)).toBe(frozen);
  });
});

describe('defaulting other kinds', () => {
  it('gives Endpoints ports protocol TCP (SetDefaults_Endpoints)', () => {
    const out = defaultEndpoints({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'a' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] }] });
    expect(out.subsets?.[0]?.ports).toEqual([{ port: 80, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }]);
  });

  it('gives EndpointSlice ports an empty name and protocol TCP (discovery/v1 SetDefaults_EndpointPort)', () => {
    const out = defaultEndpointSlice({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'a' }, addressType: 'IPv4', endpoints: [], ports: [{ port: 80 }] });
    expect(out.ports).toEqual([{ name: '', port: 80, protocol: 'TCP' }]);
  });

  it('gives a Pod dnsPolicy ClusterFirst and enableServiceLinks true (SetDefaults_PodSpec, SetDefaults_Pod)', () => {
    const spec = defaultPod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }).spec;
    expect(spec).toMatchObject({ dnsPolicy: 'ClusterFirst', enableServiceLinks: true, restartPolicy: 'Always', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30 });
    expect(defaultPod({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { enableServiceLinks: false, dnsPolicy: 'None' } }).spec).toMatchObject({ enableServiceLinks: false, dnsPolicy: 'None' });
  });

  it('labels a Namespace with its own name and makes it Active (SetDefaults_Namespace)', () => {
    const ns = defaultNamespace({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { team: 'a' } } });
    expect(ns.metadata.labels).toEqual({ team: 'a', 'kubernetes.io/metadata.name': 'shop' });
    expect(ns.status?.phase).toBe('Active');
  });

  it('dispatches on kind and leaves kinds without defaults alone', () => {
    const status = { apiVersion: 'v1', kind: 'Status', metadata: {}, message: 'x' } as const;
    expect(defaultObject(status)).toBe(status);
    expect(defaultObject(svc({})).spec?.type).toBe('ClusterIP');
  });
});
