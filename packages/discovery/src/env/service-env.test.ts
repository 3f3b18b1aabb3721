// upstream: pkg/kubelet/envvars/envvars_test.go (TestFromServices), re-typed as data, and the
// service selection of pkg/kubelet/kubelet_pods.go getServiceEnvVarMap (kubelet_pods_test.go
// TestMakeEnvironmentVariables covers it upstream).
import type { Result, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { envVarsFromServices as envVarsResult, serviceEnv as serviceEnvResult, type ErrDiscoveryInput } from './service-env.js';

/** The value of a Result that the test's well-formed input must give. */
function unwrap<T>(r: Result<T, ErrDiscoveryInput>): T {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}
const envVarsFromServices = (...args: Parameters<typeof envVarsResult>) => unwrap(envVarsResult(...args));
const serviceEnv = (...args: Parameters<typeof serviceEnvResult>) => unwrap(serviceEnvResult(...args));

function service(name: string, clusterIP: string, ports: NonNullable<Service['spec']>['ports'], namespace = 'default'): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { selector: { bar: 'baz' }, clusterIP, ports } };
}

describe('envVarsFromServices (envvars_test.go TestFromServices)', () => {
  const services = [
    service('foo-bar', '1.2.3.4', [{ port: 8080, protocol: 'TCP' }]),
    service('abc-123', '5.6.7.8', [
      { name: 'u-d-p', port: 8081, protocol: 'UDP' },
      { name: 't-c-p', port: 8081, protocol: 'TCP' },
    ]),
    service('q-u-u-x', '9.8.7.6', [
      { port: 8082, protocol: 'TCP' },
      { name: '8083', port: 8083, protocol: 'TCP' },
    ]),
    service('svrc-clusterip-none', 'None', [{ port: 8082, protocol: 'TCP' }]),
    service('svrc-clusterip-empty', '', [{ port: 8082, protocol: 'TCP' }]),
    service('super-ipv6', '2001:DB8::', [
      { name: 'u-d-p', port: 8084, protocol: 'UDP' },
      { name: 't-c-p', port: 8084, protocol: 'TCP' },
    ]),
    service('sctp-1', '1.2.3.4', [{ port: 777, protocol: 'SCTP' }]),
  ];
  const expected: [string, string][] = [
    ['FOO_BAR_SERVICE_HOST', '1.2.3.4'],
    ['FOO_BAR_SERVICE_PORT', '8080'],
    ['FOO_BAR_PORT', 'tcp://1.2.3.4:8080'],
    ['FOO_BAR_PORT_8080_TCP', 'tcp://1.2.3.4:8080'],
    ['FOO_BAR_PORT_8080_TCP_PROTO', 'tcp'],
    ['FOO_BAR_PORT_8080_TCP_PORT', '8080'],
    ['FOO_BAR_PORT_8080_TCP_ADDR', '1.2.3.4'],
    ['ABC_123_SERVICE_HOST', '5.6.7.8'],
    ['ABC_123_SERVICE_PORT', '8081'],
    ['ABC_123_SERVICE_PORT_U_D_P', '8081'],
    ['ABC_123_SERVICE_PORT_T_C_P', '8081'],
    ['ABC_123_PORT', 'udp://5.6.7.8:8081'],
    ['ABC_123_PORT_8081_UDP', 'udp://5.6.7.8:8081'],
    ['ABC_123_PORT_8081_UDP_PROTO', 'udp'],
    ['ABC_123_PORT_8081_UDP_PORT', '8081'],
    ['ABC_123_PORT_8081_UDP_ADDR', '5.6.7.8'],
    ['ABC_123_PORT_8081_TCP', 'tcp://5.6.7.8:8081'],
    ['ABC_123_PORT_8081_TCP_PROTO', 'tcp'],
    ['ABC_123_PORT_8081_TCP_PORT', '8081'],
    ['ABC_123_PORT_8081_TCP_ADDR', '5.6.7.8'],
    ['Q_U_U_X_SERVICE_HOST', '9.8.7.6'],
    ['Q_U_U_X_SERVICE_PORT', '8082'],
    ['Q_U_U_X_SERVICE_PORT_8083', '8083'],
    ['Q_U_U_X_PORT', 'tcp://9.8.7.6:8082'],
    ['Q_U_U_X_PORT_8082_TCP', 'tcp://9.8.7.6:8082'],
    ['Q_U_U_X_PORT_8082_TCP_PROTO', 'tcp'],
    ['Q_U_U_X_PORT_8082_TCP_PORT', '8082'],
    ['Q_U_U_X_PORT_8082_TCP_ADDR', '9.8.7.6'],
    ['Q_U_U_X_PORT_8083_TCP', 'tcp://9.8.7.6:8083'],
    ['Q_U_U_X_PORT_8083_TCP_PROTO', 'tcp'],
    ['Q_U_U_X_PORT_8083_TCP_PORT', '8083'],
    ['Q_U_U_X_PORT_8083_TCP_ADDR', '9.8.7.6'],
    ['SUPER_IPV6_SERVICE_HOST', '2001:DB8::'],
    ['SUPER_IPV6_SERVICE_PORT', '8084'],
    ['SUPER_IPV6_SERVICE_PORT_U_D_P', '8084'],
    ['SUPER_IPV6_SERVICE_PORT_T_C_P', '8084'],
    ['SUPER_IPV6_PORT', 'udp://[2001:DB8::]:8084'],
    ['SUPER_IPV6_PORT_8084_UDP', 'udp://[2001:DB8::]:8084'],
    ['SUPER_IPV6_PORT_8084_UDP_PROTO', 'udp'],
    ['SUPER_IPV6_PORT_8084_UDP_PORT', '8084'],
    ['SUPER_IPV6_PORT_8084_UDP_ADDR', '2001:DB8::'],
    ['SUPER_IPV6_PORT_8084_TCP', 'tcp://[2001:DB8::]:8084'],
    ['SUPER_IPV6_PORT_8084_TCP_PROTO', 'tcp'],
    ['SUPER_IPV6_PORT_8084_TCP_PORT', '8084'],
    ['SUPER_IPV6_PORT_8084_TCP_ADDR', '2001:DB8::'],
    ['SCTP_1_SERVICE_HOST', '1.2.3.4'],
    ['SCTP_1_SERVICE_PORT', '777'],
    ['SCTP_1_PORT', 'sctp://1.2.3.4:777'],
    ['SCTP_1_PORT_777_SCTP', 'sctp://1.2.3.4:777'],
    ['SCTP_1_PORT_777_SCTP_PROTO', 'sctp'],
    ['SCTP_1_PORT_777_SCTP_PORT', '777'],
    ['SCTP_1_PORT_777_SCTP_ADDR', '1.2.3.4'],
  ];

  it('gives upstream’s list, in upstream’s order', () => {
    expect(envVarsFromServices(services).map((v) => [v.name, v.value])).toStrictEqual(expected);
  });

  it('an empty protocol counts as TCP', () => {
    const vars = envVarsFromServices([service('web', '10.0.0.5', [{ port: 80 }])]);
    expect(vars.map((v) => v.name)).toContain('WEB_PORT_80_TCP');
    expect(vars.find((v) => v.name === 'WEB_PORT')?.value).toBe('tcp://10.0.0.5:80');
  });
});

describe('serviceEnv: which services a pod sees (kubelet_pods.go getServiceEnvVarMap)', () => {
  const master = service('kubernetes', '10.96.0.1', [{ name: 'https', port: 443, protocol: 'TCP' }]);
  const other = service('web', '10.96.0.20', [{ port: 80, protocol: 'TCP' }], 'default');
  const mine = service('db', '10.96.0.30', [{ port: 5432, protocol: 'TCP' }], 'shop');
  const shadow = service('kubernetes', '10.96.0.40', [{ port: 8443, protocol: 'TCP' }], 'shop');
  const headless = service('hl', 'None', [{ port: 1, protocol: 'TCP' }], 'shop');
  const external: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext', namespace: 'shop' }, spec: { type: 'ExternalName', externalName: 'example.com' } };
  const names = (vars: { name: string }[]) => vars.filter((v) => v.name.endsWith('_SERVICE_HOST')).map((v) => v.name);

  it('the pod namespace’s services plus default/kubernetes; not other namespaces, headless or ExternalName', () => {
    expect(names(serviceEnv({ namespace: 'shop' }, [master, other, mine, headless, external]))).toStrictEqual([
      'KUBERNETES_SERVICE_HOST',
      'DB_SERVICE_HOST',
    ]);
  });

  it('the master service even with enableServiceLinks false', () => {
    expect(names(serviceEnv({ namespace: 'shop', enableServiceLinks: false }, [master, other, mine]))).toStrictEqual(['KUBERNETES_SERVICE_HOST']);
    expect(names(serviceEnv({ namespace: 'default', enableServiceLinks: false }, [master, other]))).toStrictEqual(['KUBERNETES_SERVICE_HOST']);
    expect(names(serviceEnv({ namespace: 'default' }, [master, other]))).toStrictEqual(['KUBERNETES_SERVICE_HOST', 'WEB_SERVICE_HOST']);
  });

  it('a same-named service in the pod’s namespace wins, whichever comes first', () => {
    for (const list of [
      [master, shadow],
      [shadow, master],
    ]) {
      const vars = serviceEnv({ namespace: 'shop' }, list);
      expect(vars.filter((v) => v.name === 'KUBERNETES_SERVICE_HOST').map((v) => v.value)).toStrictEqual(['10.96.0.40']);
    }
    // With links off the pod's own services are not added, so the master service stays.
    expect(serviceEnv({ namespace: 'shop', enableServiceLinks: false }, [master, shadow]).find((v) => v.name === 'KUBERNETES_SERVICE_HOST')?.value).toBe('10.96.0.1');
  });
});
