// Service validation examples.
// The first block replays cases of upstream's TestValidateServiceCreate
// (pkg/apis/core/validation/validation_test.go) on the same base object (makeValidService)
// and asserts the same error counts; upstream asserts counts only. The rest checks exact
// messages and the helpers.
import { describe, expect, it } from 'vitest';
import { defaultService } from '../defaults.js';
import type { Service, ServiceSpec } from '../objects/service.js';
import { renderFieldError, type FieldError } from './field-errors.js';
import {
  isHeadlessService,
  normalizeServiceClusterIPs,
  validateNonSpecialIP,
  validateService,
  validateServiceClusterIPsRelatedFields,
  validateServiceStatusUpdate,
  validatePreparedServiceUpdate,
} from './service.js';
import { fieldPath } from './field-path.js';

type MutableService = Service & { spec: ServiceSpec; metadata: { labels: Record<string, string>; annotations: Record<string, string> } };

/** upstream: makeValidService (validation_test.go), already in the shape validation expects. */
function makeValidService(): MutableService {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'valid', namespace: 'valid', labels: {}, annotations: {}, resourceVersion: '1' },
    spec: {
      selector: { key: 'val' },
      sessionAffinity: 'None',
      type: 'ClusterIP',
      ports: [{ name: 'p', protocol: 'TCP', port: 8675, targetPort: 8675 }],
      internalTrafficPolicy: 'Cluster',
    },
  };
}

const render = (errs: readonly FieldError[]): string[] => errs.map(renderFieldError);

type Case = readonly [name: string, tweak: (s: MutableService) => void, numErrs: number];

// Names and counts as upstream has them.
const upstreamCases: readonly Case[] = [
  ['missing namespace', (s) => (s.metadata.namespace = ''), 1],
  ['invalid namespace', (s) => (s.metadata.namespace = '-123'), 1],
  ['missing name', (s) => (s.metadata.name = ''), 1],
  ['invalid name', (s) => (s.metadata.name = '-123'), 1],
  ['too long name', (s) => (s.metadata.name = 'a'.repeat(64)), 1],
  ['invalid generateName', (s) => (s.metadata.generateName = '-123'), 1],
  ['too long generateName', (s) => (s.metadata.generateName = 'a'.repeat(64)), 1],
  ['invalid label', (s) => (s.metadata.labels['NoUppercaseOrSpecialCharsLike=Equals'] = 'bar'), 1],
  ['invalid annotation', (s) => (s.metadata.annotations['NoSpecialCharsLike=Equals'] = 'bar'), 1],
  ['nil selector', (s) => delete s.spec.selector, 0],
  ['invalid selector', (s) => (s.spec.selector = { key: 'val', 'NoSpecialCharsLike=Equals': 'bar' }), 1],
  ['missing session affinity', (s) => (s.spec.sessionAffinity = ''), 1],
  ['missing type', (s) => (s.spec.type = ''), 1],
  ['missing ports', (s) => delete s.spec.ports, 1],
  [
    'missing ports but headless',
    (s) => {
      delete s.spec.ports;
      s.spec.clusterIP = 'None';
      s.spec.clusterIPs = ['None'];
    },
    0,
  ],
  ['empty port[1] name', (s) => s.spec.ports?.push({ name: '', protocol: 'TCP', port: 12345, targetPort: 12345 }), 1],
  [
    'empty multi-port port[0] name',
    (s) => {
      s.spec.ports = [
        { name: '', protocol: 'TCP', port: 8675, targetPort: 8675 },
        { name: 'p', protocol: 'TCP', port: 12345, targetPort: 12345 },
      ];
    },
    1,
  ],
  ['invalid port name', (s) => (s.spec.ports = [{ name: 'INVALID', protocol: 'TCP', port: 8675, targetPort: 8675 }]), 1],
  ['missing protocol', (s) => (s.spec.ports = [{ name: 'p', protocol: '', port: 8675, targetPort: 8675 }]), 1],
  ['invalid protocol', (s) => (s.spec.ports = [{ name: 'p', protocol: 'INVALID', port: 8675, targetPort: 8675 }]), 1],
  [
    'invalid cluster ip',
    (s) => {
      s.spec.clusterIP = 'invalid';
      s.spec.clusterIPs = ['invalid'];
    },
    1,
  ],
  ['missing port', (s) => (s.spec.ports = [{ name: 'p', protocol: 'TCP', port: 0, targetPort: 8675 }]), 1],
  ['invalid port', (s) => (s.spec.ports = [{ name: 'p', protocol: 'TCP', port: 65536, targetPort: 8675 }]), 1],
  ['invalid TargetPort int', (s) => (s.spec.ports = [{ name: 'p', protocol: 'TCP', port: 8675, targetPort: 65536 }]), 1],
  [
    'invalid publicIPs localhost',
    (s) => {
      s.spec.externalTrafficPolicy = 'Cluster';
      s.spec.externalIPs = ['127.0.0.1'];
    },
    1,
  ],
  [
    'invalid publicIPs host',
    (s) => {
      s.spec.externalTrafficPolicy = 'Cluster';
      s.spec.externalIPs = ['myhost.mydomain'];
    },
    1,
  ],
  [
    'valid publicIPs',
    (s) => {
      s.spec.externalTrafficPolicy = 'Cluster';
      s.spec.externalIPs = ['1.2.3.4'];
    },
    0,
  ],
  ['dup port name', (s) => (s.spec.ports = [{ name: 'p', protocol: 'TCP', port: 8675, targetPort: 8675 }, { name: 'p', protocol: 'TCP', port: 12345, targetPort: 12345 }]), 1],
  [
    'load balancer with mix protocol',
    (s) => {
      s.spec.type = 'LoadBalancer';
      s.spec.externalTrafficPolicy = 'Cluster';
      s.spec.allocateLoadBalancerNodePorts = true;
      s.spec.ports?.push({ name: 'q', port: 12345, protocol: 'UDP', targetPort: 12345 });
    },
    0,
  ],
  [
    'invalid type - missing AllocateLoadBalancerNodePorts for loadbalancer type',
    (s) => {
      s.spec.type = 'LoadBalancer';
      s.spec.externalTrafficPolicy = 'Cluster';
    },
    1,
  ],
  [
    'duplicate nodeports (different protocols)',
    (s) => {
      s.spec.type = 'NodePort';
      s.spec.externalTrafficPolicy = 'Cluster';
      s.spec.ports?.push(
        { name: 'q', port: 1, protocol: 'TCP', nodePort: 1, targetPort: 1 },
        { name: 'r', port: 2, protocol: 'UDP', nodePort: 1, targetPort: 2 },
        { name: 's', port: 3, protocol: 'SCTP', nodePort: 1, targetPort: 3 },
      );
    },
    0,
  ],
  [
    'invalid duplicate ports (with same protocol)',
    (s) =>
      s.spec.ports?.push(
        { name: 'q', port: 12345, protocol: 'TCP', targetPort: 8080 },
        { name: 'r', port: 12345, protocol: 'TCP', targetPort: 80 },
      ),
    1,
  ],
  [
    'invalid cluster service with NodePort',
    (s) => s.spec.ports?.push({ name: 'q', port: 12345, protocol: 'TCP', nodePort: 12345, targetPort: 12345 }),
    1,
  ],
  [
    'invalid empty-but-set LoadBalancer source range annotation for non LoadBalancer type service',
    (s) => (s.metadata.annotations['service.beta.kubernetes.io/load-balancer-source-ranges'] = ''),
    1,
  ],
  [
    'valid whitespace-only LoadBalancer source range annotation',
    (s) => {
      s.spec.type = 'LoadBalancer';
      s.spec.externalTrafficPolicy = 'Cluster';
      s.spec.allocateLoadBalancerNodePorts = true;
      s.metadata.annotations['service.beta.kubernetes.io/load-balancer-source-ranges'] = '  ';
    },
    0,
  ],
  [
    'invalid source range annotation ignored with valid source range field',
    (s) => {
      s.spec.type = 'LoadBalancer';
      s.spec.externalTrafficPolicy = 'Cluster';
      s.spec.allocateLoadBalancerNodePorts = true;
      s.metadata.annotations['service.beta.kubernetes.io/load-balancer-source-ranges'] = 'foo.bar';
      s.spec.loadBalancerSourceRanges = ['1.2.3.0/24', '5.6.0.0/16'];
    },
    0,
  ],
  [
    'valid ExternalName (trailing dot)',
    (s) => {
      s.spec.type = 'ExternalName';
      s.spec.externalName = 'foo.bar.example.com.';
    },
    0,
  ],
  ['nil internalTraffic field when feature gate is on', (s) => delete s.spec.internalTrafficPolicy, 1],
  [
    'internalTrafficPolicy field nil when type is ExternalName',
    (s) => {
      delete s.spec.internalTrafficPolicy;
      s.spec.type = 'ExternalName';
      s.spec.externalName = 'foo.bar.com';
    },
    0,
  ],
  [
    'negative healthCheckNodePort field',
    (s) => {
      s.spec.type = 'LoadBalancer';
      s.spec.allocateLoadBalancerNodePorts = true;
      s.spec.externalTrafficPolicy = 'Local';
      s.spec.healthCheckNodePort = -1;
    },
    1,
  ],
  [
    'invalid timeoutSeconds field',
    (s) => {
      s.spec.sessionAffinity = 'ClientIP';
      s.spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: -1 } };
    },
    1,
  ],
  ['invalid, service with invalid ipFamilies', (s) => (s.spec.ipFamilies = ['not-a-valid-ip-family']), 1],
  [
    'IPFamilyPolicy(singleStack) is set for two families',
    (s) => {
      s.spec.ipFamilyPolicy = 'SingleStack';
      s.spec.ipFamilies = ['IPv4', 'IPv6'];
    },
    0,
  ],
  [
    'invalid, garbage ips',
    (s) => {
      s.spec.ipFamilyPolicy = 'RequireDualStack';
      s.spec.clusterIP = 'garbage-ip';
      s.spec.clusterIPs = ['garbage-ip', 'garbage-second-ip'];
    },
    2,
  ],
  [
    'invalid, IP + NONE',
    (s) => {
      s.spec.ipFamilyPolicy = 'RequireDualStack';
      s.spec.clusterIP = '2001::1';
      s.spec.clusterIPs = ['2001::1', 'None'];
    },
    1,
  ],
  [
    'invalid, same ip family (v6)',
    (s) => {
      s.spec.ipFamilyPolicy = 'RequireDualStack';
      s.spec.clusterIP = '2001::1';
      s.spec.clusterIPs = ['2001::1', '2001::4'];
      s.spec.ipFamilies = ['IPv4', 'IPv6'];
    },
    2,
  ],
  [
    'invalid, more than two ips',
    (s) => {
      s.spec.ipFamilyPolicy = 'RequireDualStack';
      s.spec.clusterIP = '10.0.0.1';
      s.spec.clusterIPs = ['10.0.0.1', '2001::1', '10.0.0.10'];
      s.spec.ipFamilies = ['IPv4', 'IPv6'];
    },
    1,
  ],
  [
    'valid, headless-no-selector + multi family + gate off',
    (s) => {
      s.spec.ipFamilyPolicy = 'RequireDualStack';
      s.spec.clusterIP = 'None';
      s.spec.clusterIPs = ['None'];
      s.spec.ipFamilies = ['IPv4', 'IPv6'];
      delete s.spec.selector;
    },
    0,
  ],
  [
    'invalid, families don\'t match (v6=>v4)',
    (s) => {
      s.spec.clusterIP = '2001::1';
      s.spec.clusterIPs = ['2001::1'];
      s.spec.ipFamilies = ['IPv4'];
    },
    1,
  ],
  [
    'invalid cluster ip != clusterIP in multi ip service',
    (s) => {
      s.spec.ipFamilyPolicy = 'RequireDualStack';
      s.spec.clusterIP = '10.0.0.10';
      s.spec.clusterIPs = ['10.0.0.1', '2001::1'];
    },
    1,
  ],
  ['Use AllocateLoadBalancerNodePorts when type is not LoadBalancer', (s) => (s.spec.allocateLoadBalancerNodePorts = true), 1],
  [
    'valid LoadBalancerClass when type is LoadBalancer',
    (s) => {
      s.spec.type = 'LoadBalancer';
      s.spec.externalTrafficPolicy = 'Cluster';
      s.spec.allocateLoadBalancerNodePorts = true;
      s.spec.loadBalancerClass = 'test.com/test-load-balancer-class';
    },
    0,
  ],
  ['valid: trafficDistribution field set to PreferClose', (s) => (s.spec['trafficDistribution'] = 'PreferClose'), 0],
];

describe('validateService: upstream TestValidateServiceCreate cases (counts)', () => {
  it.each(upstreamCases.map((c) => [c[0], c] as const))('%s', (_name, [, tweak, numErrs]) => {
    const s = makeValidService();
    tweak(s);
    const errs = validateService(s);
    expect(errs, render(errs).join('\n')).toHaveLength(numErrs);
  });

  it('accepts the base object', () => {
    expect(validateService(makeValidService())).toEqual([]);
  });
});

describe('validateService: messages', () => {
  it('reports errors in upstream order: metadata, ports, affinity, IPs, type, duplicates, policies', () => {
    const s = makeValidService();
    s.metadata.name = 'Bad';
    s.spec.ports = [
      { name: 'p', protocol: 'TCP', port: 80, targetPort: 80, nodePort: 30080 },
      { name: 'p', protocol: 'TCP', port: 80, targetPort: 80 },
    ];
    s.spec.sessionAffinity = 'Sticky';
    s.spec.externalIPs = ['127.0.0.1'];
    s.spec.externalTrafficPolicy = 'Cluster';
    s.spec.loadBalancerClass = 'x';
    expect(render(validateService(s)).map((m) => m.split(':')[0])).toEqual([
      'metadata.name',
      'spec.ports[1].name',
      'spec.sessionAffinity',
      'spec.externalIPs[0]',
      'spec.ports[0].nodePort',
      'spec.ports[1]',
      'spec.loadBalancerClass',
    ]);
  });

  it('requires allocateLoadBalancerNodePorts at a path without "spec", as upstream does', () => {
    const s = makeValidService();
    s.spec.type = 'LoadBalancer';
    s.spec.externalTrafficPolicy = 'Cluster';
    expect(render(validateService(s))).toEqual(['allocateLoadBalancerNodePorts: Required value']);
  });

  it('trims source ranges as Go strings.TrimSpace does, not as String.prototype.trim', () => {
    const s = makeValidService();
    s.spec.type = 'LoadBalancer';
    s.spec.externalTrafficPolicy = 'Cluster';
    s.spec.allocateLoadBalancerNodePorts = true;
    s.spec.loadBalancerSourceRanges = ['\u008510.0.0.0/8\u3000', '\ufeff10.0.0.0/8'];
    expect(render(validateService(s))).toEqual([
      // %q escapes the unprintable U+FEFF.
      'spec.LoadBalancerSourceRanges[1]: Invalid value: "\\ufeff10.0.0.0/8": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ]);
  });

  it('names the missing parts of a ClientIP config', () => {
    const s = makeValidService();
    s.spec.sessionAffinity = 'ClientIP';
    expect(render(validateService(s))).toEqual([
      'spec.sessionAffinityConfig: Required value: when session affinity type is ClientIP',
    ]);
    s.spec.sessionAffinityConfig = { clientIP: {} };
    expect(render(validateService(s))).toEqual([
      'spec.sessionAffinityConfig.clientIP.timeoutSeconds: Required value: when session affinity type is ClientIP',
    ]);
    s.spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 86400 } };
    expect(validateService(s)).toEqual([]);
  });

  it('accepts a defaulted LoadBalancer, NodePort and ExternalName Service', () => {
    const base = makeValidService();
    for (const type of ['LoadBalancer', 'NodePort'] as const) {
      const s = defaultService({ ...base, spec: { ...base.spec, type } });
      expect(validateService(s)).toEqual([]);
    }
    const external = defaultService({
      ...base,
      spec: { type: 'ExternalName', externalName: 'db.example.com.', sessionAffinity: 'None' },
    });
    expect(validateService(external)).toEqual([]);
  });
});

describe('validateNonSpecialIP', () => {
  const path = fieldPath('spec', 'externalIPs').index(0);
  it('reads IPv4 with leading zeros the sloppy way, and IPv4-mapped IPv6 as IPv4', () => {
    expect(render(validateNonSpecialIP('127.000.000.001', path))).toEqual([
      'spec.externalIPs[0]: Invalid value: "127.000.000.001": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    ]);
    expect(render(validateNonSpecialIP('::ffff:169.254.0.1', path))).toEqual([
      'spec.externalIPs[0]: Invalid value: "::ffff:169.254.0.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
    ]);
  });

  it('treats every ffX2:: address as link-local multicast, as Go does', () => {
    expect(render(validateNonSpecialIP('ff12::1', path))).toEqual([
      'spec.externalIPs[0]: Invalid value: "ff12::1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
    ]);
    expect(validateNonSpecialIP('224.0.1.1', path)).toEqual([]);
  });
});

describe('validateServiceClusterIPsRelatedFields', () => {
  it('skips ExternalName Services entirely', () => {
    const s = makeValidService();
    s.spec.type = 'ExternalName';
    s.spec.clusterIPs = ['garbage'];
    expect(validateServiceClusterIPsRelatedFields(s)).toEqual([]);
  });

  it('prints a nil and an empty clusterIPs list differently', () => {
    const s = makeValidService();
    s.spec.clusterIP = '';
    s.spec.clusterIPs = ['10.0.0.1', '10.0.0.2', 'fd00::1'];
    expect(render(validateServiceClusterIPsRelatedFields(s))).toEqual([
      'spec.clusterIPs: Invalid value: []string{"10.0.0.1", "10.0.0.2", "fd00::1"}: must be empty when `clusterIP` is not specified',
      'spec.clusterIPs: Invalid value: []string{"10.0.0.1", "10.0.0.2", "fd00::1"}: may only hold up to 2 values',
    ]);
  });
});

describe('validatePreparedServiceUpdate', () => {
  const stored = (): MutableService => {
    const s = makeValidService();
    s.spec.clusterIP = '10.0.0.1';
    s.spec.clusterIPs = ['10.0.0.1'];
    return s;
  };

  it('allows adding a secondary clusterIP and releasing it with SingleStack', () => {
    const old = stored();
    const upgraded = stored();
    upgraded.spec.clusterIPs = ['10.0.0.1', 'fd00::1'];
    upgraded.spec.ipFamilyPolicy = 'RequireDualStack';
    expect(validatePreparedServiceUpdate(upgraded, old)).toEqual([]);
    const downgraded = stored();
    downgraded.spec.ipFamilyPolicy = 'SingleStack';
    expect(validatePreparedServiceUpdate(downgraded, upgraded)).toEqual([]);
  });

  it('refuses unsetting the primary clusterIP', () => {
    const old = stored();
    const next = stored();
    delete next.spec.clusterIP;
    delete next.spec.clusterIPs;
    expect(render(validatePreparedServiceUpdate(next, old))).toEqual([
      'spec.clusterIPs[0]: Invalid value: []string(nil): primary clusterIP can not be unset',
    ]);
  });

  it('lets ExternalName Services change clusterIPs freely', () => {
    const old = makeValidService();
    old.spec = { type: 'ExternalName', externalName: 'a.example.com', sessionAffinity: 'None' };
    const next = stored();
    expect(validatePreparedServiceUpdate(next, old)).toEqual([]);
  });
});

describe('validateServiceStatusUpdate', () => {
  const lb = (): MutableService => {
    const s = makeValidService();
    s.spec.type = 'LoadBalancer';
    s.spec.externalTrafficPolicy = 'Cluster';
    s.spec.allocateLoadBalancerNodePorts = true;
    return s;
  };

  it('requires ipMode with an IP and forbids it without one', () => {
    const next = lb();
    next.status = { loadBalancer: { ingress: [{ ip: '203.0.113.1' }, { hostname: 'lb.example.com', ipMode: 'VIP' }] } };
    expect(render(validateServiceStatusUpdate(next, lb()))).toEqual([
      'status.loadBalancer.ingress[0].ipMode: Required value: must be specified when `ip` is set',
      'status.loadBalancer.ingress[1].ipMode: Forbidden: may not be specified when `ip` is not set',
    ]);
  });

  it('checks ipMode values and hostnames', () => {
    const next = lb();
    next.status = { loadBalancer: { ingress: [{ ip: '203.0.113.1', ipMode: 'Direct', hostname: '203.0.113.9' }] } };
    expect(render(validateServiceStatusUpdate(next, lb()))).toEqual([
      'status.loadBalancer.ingress[0].ipMode: Unsupported value: "Direct": supported values: "Proxy", "VIP"',
      'status.loadBalancer.ingress[0].hostname: Invalid value: "203.0.113.9": must be a DNS name, not an IP address',
    ]);
  });
});

describe('normalizeServiceClusterIPs', () => {
  it('fills clusterIPs from clusterIP on create, without touching the input', () => {
    const s = makeValidService();
    s.spec.clusterIP = '10.0.0.5';
    const out = normalizeServiceClusterIPs(s);
    expect(out.spec?.clusterIPs).toEqual(['10.0.0.5']);
    expect(s.spec.clusterIPs).toBeUndefined();
  });

  it('restores clusterIPs an old client dropped, and follows a changed clusterIP', () => {
    const old = makeValidService();
    old.spec.clusterIP = '10.0.0.5';
    old.spec.clusterIPs = ['10.0.0.5', 'fd00::5'];
    const dropped = makeValidService();
    dropped.spec.clusterIP = '10.0.0.5';
    expect(normalizeServiceClusterIPs(dropped, old).spec?.clusterIPs).toEqual(['10.0.0.5', 'fd00::5']);
    const changed = makeValidService();
    changed.spec.clusterIP = '10.0.0.6';
    changed.spec.clusterIPs = ['10.0.0.5', 'fd00::5'];
    expect(normalizeServiceClusterIPs(changed, old).spec?.clusterIPs).toEqual(['10.0.0.6']);
    const cleared = makeValidService();
    cleared.spec.clusterIPs = ['10.0.0.5', 'fd00::5'];
    expect(normalizeServiceClusterIPs(cleared, old).spec?.clusterIPs).toBeUndefined();
  });
});

describe('isHeadlessService', () => {
  it('looks at clusterIPs only', () => {
    expect(isHeadlessService({ clusterIPs: ['None'] })).toBe(true);
    expect(isHeadlessService({ clusterIP: 'None' })).toBe(false);
    expect(isHeadlessService({ clusterIPs: ['None', 'fd00::1'] })).toBe(false);
  });
});

// upstream (v1.33): pkg/apis/core/validation/validation.go (validateServiceTrafficDistribution):
// PreferSameZone and PreferSameNode only with the PreferSameTrafficDistribution gate on, which
// also widens the supported values the refusal lists.
describe('validateService: trafficDistribution and the PreferSameTrafficDistribution gate', () => {
  const withTD = (value: string): Service => {
    const s = makeValidService();
    s.spec['trafficDistribution'] = value;
    return s;
  };
  it.each([
    ['PreferClose', false, []],
    ['PreferSameZone', false, ['spec.trafficDistribution: Unsupported value: "PreferSameZone": supported values: "PreferClose"']],
    ['PreferSameNode', false, ['spec.trafficDistribution: Unsupported value: "PreferSameNode": supported values: "PreferClose"']],
    ['PreferClose', true, []],
    ['PreferSameZone', true, []],
    ['PreferSameNode', true, []],
    ['Random', true, ['spec.trafficDistribution: Unsupported value: "Random": supported values: "PreferClose", "PreferSameZone", "PreferSameNode"']],
  ] as const)('%s with the gate %s', (value, gate, want) => {
    expect(render(validateService(withTD(value), { preferSameTrafficDistribution: gate }))).toEqual(want);
  });

  it('the update runs the same check with the same gate', () => {
    const old = makeValidService();
    old.metadata.resourceVersion = '1';
    const next = withTD('PreferSameNode');
    next.metadata.resourceVersion = '1';
    expect(render(validatePreparedServiceUpdate(next, old))).toEqual(['spec.trafficDistribution: Unsupported value: "PreferSameNode": supported values: "PreferClose"']);
    expect(render(validatePreparedServiceUpdate(next, old, { preferSameTrafficDistribution: true }))).toEqual([]);
  });
});
