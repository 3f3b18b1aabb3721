// Invalid Services and Endpoints, each a small valid object with one mistake, and the exact
// messages a v1.32 apiserver's validation produces for it, in its order.
//
// Sources of the expectations:
// - the message strings in pkg/apis/core/validation/validation.go (v1.32) and
//   staging/src/k8s.io/apimachinery/pkg/util/validation/{validation,ip}.go, rendered by
//   field.Error.Error() (`<path>: <type>: <value>: <detail>`);
// - the cases of upstream's pkg/apis/core/validation/validation_test.go, named in the rows
//   (TestValidateServiceCreate, TestValidateServiceUpdate, TestValidateEndpointsCreate,
//   TestValidateEndpointsUpdate); upstream mostly asserts error counts there, the strings
//   come from the first source;
// - messages reported by real clusters, e.g. the duplicate-port struct rendering
//   `core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), ...}`.
//
// Services go through what the apiserver does before validation: v1 defaulting, then the
// registry's normalizeClusterIPs (so a manifest with only `clusterIP` is validated with
// clusterIPs filled in). A few rows change the object after that, to reach checks that v1
// defaulting otherwise makes unreachable; they say so.
import {
  DNS1035_LABEL_MSG as DNS1035,
  DNS1123_LABEL_MSG as DNS1123_LABEL,
  DNS1123_SUBDOMAIN_MSG as DNS1123_SUBDOMAIN,
  LINK_LOCAL_MSG as LINK_LOCAL,
  LINK_LOCAL_MULTICAST_MSG as LINK_LOCAL_MULTICAST,
  LOOPBACK_MSG as LOOPBACK,
  PORT_RANGE_MSG as PORT_RANGE,
  QUALIFIED_NAME_MSG,
  VALID_CIDR_MSG as VALID_CIDR,
  VALID_IP_MSG as VALID_IP,
} from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import { defaultEndpoints, defaultService } from '../defaults.js';
import type { Endpoints } from '../objects/endpoints.js';
import type { Service, ServiceSpec } from '../objects/service.js';
import { renderFieldError, type FieldError } from './field-errors.js';
import { validateEndpoints, validateEndpointsUpdate } from './endpoints.js';
import {
  normalizeServiceClusterIPs,
  validateService,
  validateServiceStatusUpdate,
  validatePreparedServiceUpdate,
} from './service.js';
import { invalidMessage } from './validate.js';

// --- upstream's long messages, verbatim (the shared ones are testkit's) --------------------
const QUALIFIED_NAME_PART = `name part ${QUALIFIED_NAME_MSG}`;
const PROTOCOLS = 'supported values: "SCTP", "TCP", "UDP"';
const SVC_PORT_80_TCP =
  'core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}';
const LB_ONLY = "may only be used when `type` is 'LoadBalancer'";
const SOURCE_RANGES_ANNOTATION = 'metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]';

// --- builders ------------------------------------------------------------------------------
type MutableService = Service & { spec: ServiceSpec };

/** The manifest a user would apply: valid as it stands. */
function baseService(): MutableService {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'default' },
    spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
  };
}

/** What validation sees on create: the manifest after `change`, defaulted and normalized. */
function svc(change: (s: MutableService) => void = () => undefined): Service {
  const s = baseService();
  change(s);
  return normalizeServiceClusterIPs(defaultService(s));
}

/** A stored Service (has a resourceVersion), for the old side of updates. */
function stored(change: (s: MutableService) => void = () => undefined): Service {
  const s = svc(change);
  return { ...s, metadata: { ...s.metadata, resourceVersion: '1', uid: '7d4c1b52-1f5e-4b7a-9c1e-3b2a4f5d6e7f' } };
}

/** The update path: the old object changed by the user, defaulted, normalized against the old one. */
function updated(old: Service, change: (s: MutableService) => void): Service {
  const s = structuredClone(old) as MutableService;
  change(s);
  return normalizeServiceClusterIPs(defaultService(s), old);
}

/** For rows that must skip v1 defaulting to reach a check. */
function after(service: Service, change: (s: MutableService) => void): Service {
  const s = structuredClone(service) as MutableService;
  change(s);
  return s;
}

function baseEndpoints(): Endpoints {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'web', namespace: 'default' },
    subsets: [{ addresses: [{ ip: '10.244.1.5' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }],
  };
}

function ep(change: (e: Endpoints & { subsets: NonNullable<Endpoints['subsets']> }) => void): Endpoints {
  const e = baseEndpoints() as Endpoints & { subsets: NonNullable<Endpoints['subsets']> };
  change(e);
  return defaultEndpoints(e);
}

function firstSubset(e: Endpoints): NonNullable<Endpoints['subsets']>[number] {
  const subset = e.subsets?.[0];
  if (subset === undefined) throw new Error('base Endpoints has a subset');
  return subset;
}

function setAddressIP(e: Endpoints, ip: string): void {
  firstSubset(e).addresses = [{ ip }];
}

interface Row {
  readonly name: string;
  readonly errors: () => readonly FieldError[];
  readonly expected: readonly string[];
  /** For a few rows, the whole 422 message. */
  readonly message?: { readonly object: () => Service | Endpoints; readonly text: string };
}

const svcCreate = (name: string, object: () => Service, expected: readonly string[]): Row => ({
  name,
  errors: () => validateService(object()),
  expected,
});

const epCreate = (name: string, object: () => Endpoints, expected: readonly string[]): Row => ({
  name,
  errors: () => validateEndpoints(object()),
  expected,
});

// --- Services on create ---------------------------------------------------------------------
const serviceRows: Row[] = [
  // TestValidateServiceCreate "invalid name" (upstream uses "-123"; the same rule).
  svcCreate('name with upper case', () => svc((s) => (s.metadata.name = 'Web')), [
    `metadata.name: Invalid value: "Web": ${DNS1035}`,
  ]),
  svcCreate('name starting with a digit', () => svc((s) => (s.metadata.name = '1web')), [
    `metadata.name: Invalid value: "1web": ${DNS1035}`,
  ]),
  // TestValidateServiceCreate "too long name"
  svcCreate('name of 64 characters', () => svc((s) => (s.metadata.name = 'a'.repeat(64))), [
    `metadata.name: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`,
  ]),
  svcCreate('name with a dot (DNS-1035 labels have none)', () => svc((s) => (s.metadata.name = 'web.app')), [
    `metadata.name: Invalid value: "web.app": ${DNS1035}`,
  ]),
  // TestValidateServiceCreate "missing namespace"
  svcCreate('missing namespace', () => svc((s) => delete s.metadata.namespace), ['metadata.namespace: Required value']),
  // TestValidateServiceCreate "missing ports"
  svcCreate('no ports on a ClusterIP Service', () => svc((s) => delete s.spec.ports), ['spec.ports: Required value']),
  // TestValidateServiceCreate "empty port[1] name"
  svcCreate(
    'two ports, the second without a name',
    () => svc((s) => s.spec.ports?.push({ port: 443, targetPort: 8443 })),
    ['spec.ports[1].name: Required value'],
  ),
  // TestValidateServiceCreate "dup port name"
  svcCreate(
    'two ports with the same name',
    () => svc((s) => s.spec.ports?.push({ name: 'http', port: 443, targetPort: 8443 })),
    ['spec.ports[1].name: Duplicate value: "http"'],
  ),
  // TestValidateServiceCreate "invalid port name"
  svcCreate('port name in upper case', () => svc((s) => (s.spec.ports = [{ name: 'HTTP', port: 80, targetPort: 8080 }])), [
    `spec.ports[0].name: Invalid value: "HTTP": ${DNS1123_LABEL}`,
  ]),
  // TestValidateServiceCreate "missing port"
  svcCreate('port 0', () => svc((s) => (s.spec.ports = [{ name: 'http', port: 0, targetPort: 8080 }])), [
    `spec.ports[0].port: Invalid value: 0: ${PORT_RANGE}`,
  ]),
  // TestValidateServiceCreate "invalid port"
  svcCreate('port 65536', () => svc((s) => (s.spec.ports = [{ name: 'http', port: 65536, targetPort: 8080 }])), [
    `spec.ports[0].port: Invalid value: 65536: ${PORT_RANGE}`,
  ]),
  // Without a targetPort, defaulting copies the bad port into it, so both are reported.
  svcCreate('port 0 and no targetPort', () => svc((s) => (s.spec.ports = [{ name: 'http', port: 0 }])), [
    `spec.ports[0].port: Invalid value: 0: ${PORT_RANGE}`,
    `spec.ports[0].targetPort: Invalid value: 0: ${PORT_RANGE}`,
  ]),
  // TestValidateServiceCreate "invalid protocol"
  svcCreate(
    'protocol HTTP',
    () => svc((s) => (s.spec.ports = [{ name: 'http', port: 80, targetPort: 8080, protocol: 'HTTP' }])),
    [`spec.ports[0].protocol: Unsupported value: "HTTP": ${PROTOCOLS}`],
  ),
  // TestValidateServiceCreate "invalid TargetPort int"
  svcCreate('targetPort 70000', () => svc((s) => (s.spec.ports = [{ name: 'http', port: 80, targetPort: 70000 }])), [
    `spec.ports[0].targetPort: Invalid value: 70000: ${PORT_RANGE}`,
  ]),
  svcCreate(
    'targetPort name with a double hyphen and a trailing one',
    () => svc((s) => (s.spec.ports = [{ name: 'http', port: 80, targetPort: 'http--alt-' }])),
    [
      'spec.ports[0].targetPort: Invalid value: "http--alt-": must not contain consecutive hyphens',
      'spec.ports[0].targetPort: Invalid value: "http--alt-": must not begin or end with a hyphen',
    ],
  ),
  svcCreate(
    'targetPort written as the string "8080"',
    () => svc((s) => (s.spec.ports = [{ name: 'http', port: 80, targetPort: '8080' }])),
    ['spec.ports[0].targetPort: Invalid value: "8080": must contain at least one letter (a-z)'],
  ),
  svcCreate(
    'appProtocol with a space',
    () => svc((s) => (s.spec.ports = [{ name: 'http', port: 80, targetPort: 8080, appProtocol: 'my proto' }])),
    [`spec.ports[0].appProtocol: Invalid value: "my proto": ${QUALIFIED_NAME_PART}`],
  ),
  // TestValidateServiceCreate "invalid selector"
  svcCreate('selector key with a space', () => svc((s) => (s.spec.selector = { 'app name': 'web' })), [
    `spec.selector: Invalid value: "app name": ${QUALIFIED_NAME_PART}`,
  ]),
  // TestValidateServiceCreate "invalid cluster service with NodePort"
  svcCreate(
    'nodePort on a ClusterIP Service',
    () => svc((s) => (s.spec.ports = [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30080 }])),
    ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"],
  ),
  // TestValidateServiceCreate "invalid duplicate ports (with same protocol)"
  svcCreate(
    'the same port twice with the same protocol',
    () => svc((s) => s.spec.ports?.push({ name: 'alt', port: 80, targetPort: 8081 })),
    [`spec.ports[1]: Duplicate value: ${SVC_PORT_80_TCP}`],
  ),
  // TestValidateServiceCreate "invalid public service with duplicate NodePort"
  svcCreate(
    'the same nodePort twice',
    () =>
      svc((s) => {
        s.spec.type = 'NodePort';
        s.spec.ports = [
          { name: 'http', port: 80, targetPort: 8080, nodePort: 30080 },
          { name: 'https', port: 443, targetPort: 8443, nodePort: 30080 },
        ];
      }),
    ['spec.ports[1].nodePort: Duplicate value: 30080'],
  ),
  svcCreate('type Foo', () => svc((s) => (s.spec.type = 'Foo')), [
    'spec.type: Unsupported value: "Foo": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
  ]),
  // TestValidateServiceCreate "invalid node port with clusterIP None"
  svcCreate(
    'headless NodePort Service',
    () =>
      svc((s) => {
        s.spec.type = 'NodePort';
        s.spec.clusterIP = 'None';
      }),
    [`spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`],
  ),
  // TestValidateServiceCreate "LoadBalancer type cannot have None ClusterIP"
  svcCreate(
    'headless LoadBalancer Service',
    () =>
      svc((s) => {
        s.spec.type = 'LoadBalancer';
        s.spec.clusterIP = 'None';
      }),
    [`spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for LoadBalancer services`],
  ),
  // TestValidateServiceCreate "invalid port type=LoadBalancer" as of v1.32; the check was
  // dropped for v1.33 (kubernetes PR 129174) and the case renamed "valid port type=LoadBalancer".
  svcCreate(
    'LoadBalancer exposing the kubelet port',
    () =>
      svc((s) => {
        s.spec.type = 'LoadBalancer';
        s.spec.ports = [{ name: 'kubelet', port: 10250, targetPort: 10250 }];
      }),
    ['spec.ports[0]: Invalid value: 10250: may not expose port 10250 externally since it is used by kubelet'],
  ),
  // TestValidateServiceCreate "invalid ExternalName clusterIP (valid IP)"
  svcCreate(
    'ExternalName with a clusterIP',
    () =>
      svc((s) => {
        s.spec.type = 'ExternalName';
        s.spec.externalName = 'db.example.com';
        s.spec.clusterIP = '10.0.0.10';
      }),
    ['spec.clusterIPs: Forbidden: may not be set for ExternalName services'],
  ),
  svcCreate('ExternalName without externalName', () => svc((s) => (s.spec.type = 'ExternalName')), [
    'spec.externalName: Required value',
  ]),
  // cf. TestValidateServiceCreate "invalid ExternalName (not a DNS name)"
  svcCreate(
    'ExternalName with an underscore',
    () =>
      svc((s) => {
        s.spec.type = 'ExternalName';
        s.spec.externalName = 'db_example.com';
      }),
    [`spec.externalName: Invalid value: "db_example.com": ${DNS1123_SUBDOMAIN}`],
  ),
  svcCreate(
    'ExternalName with ipFamilyPolicy',
    () =>
      svc((s) => {
        s.spec.type = 'ExternalName';
        s.spec.externalName = 'db.example.com';
        s.spec.ipFamilyPolicy = 'SingleStack';
      }),
    ['spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services'],
  ),
  // cf. TestValidateServiceCreate "invalid timeoutSeconds field" (upstream uses -1)
  svcCreate(
    'ClientIP affinity with timeout 0',
    () =>
      svc((s) => {
        s.spec.sessionAffinity = 'ClientIP';
        s.spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 0 } };
      }),
    ['spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400'],
  ),
  svcCreate(
    'ClientIP affinity with timeout 86401',
    () =>
      svc((s) => {
        s.spec.sessionAffinity = 'ClientIP';
        s.spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 86401 } };
      }),
    [
      'spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 and less than 86400',
    ],
  ),
  // TestValidateServiceCreate "sessionAffinityConfig can't be set when session affinity is None".
  // v1 defaulting drops the config when the affinity is None, so the object is changed
  // after defaulting: only an internal client could send it.
  svcCreate(
    'sessionAffinityConfig with affinity None (past defaulting)',
    () => after(svc(), (s) => (s.spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 90 } })),
    ['spec.sessionAffinityConfig: Forbidden: must not be set when session affinity is None'],
  ),
  svcCreate('sessionAffinity Sticky', () => svc((s) => (s.spec.sessionAffinity = 'Sticky')), [
    'spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"',
  ]),
  // TestValidateServiceCreate "invalid publicIPs unspecified"
  svcCreate('externalIP 0.0.0.0', () => svc((s) => (s.spec.externalIPs = ['0.0.0.0'])), [
    'spec.externalIPs[0]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
  ]),
  // TestValidateServiceCreate "invalid publicIPs loopback"
  svcCreate('externalIP 127.0.0.1', () => svc((s) => (s.spec.externalIPs = ['127.0.0.1'])), [
    `spec.externalIPs[0]: Invalid value: "127.0.0.1": ${LOOPBACK}`,
  ]),
  svcCreate('externalIP 169.254.1.1', () => svc((s) => (s.spec.externalIPs = ['169.254.1.1'])), [
    `spec.externalIPs[0]: Invalid value: "169.254.1.1": ${LINK_LOCAL}`,
  ]),
  svcCreate('externalIP 224.0.0.1', () => svc((s) => (s.spec.externalIPs = ['224.0.0.1'])), [
    `spec.externalIPs[0]: Invalid value: "224.0.0.1": ${LINK_LOCAL_MULTICAST}`,
  ]),
  svcCreate('externalIP fe80::1 (second in the list)', () => svc((s) => (s.spec.externalIPs = ['203.0.113.7', 'fe80::1'])), [
    `spec.externalIPs[1]: Invalid value: "fe80::1": ${LINK_LOCAL}`,
  ]),
  svcCreate('externalIP ::1', () => svc((s) => (s.spec.externalIPs = ['::1'])), [
    `spec.externalIPs[0]: Invalid value: "::1": ${LOOPBACK}`,
  ]),
  // TestValidateServiceCreate "invalid publicIPs host"
  svcCreate('externalIP that is not an IP', () => svc((s) => (s.spec.externalIPs = ['not-an-ip'])), [
    `spec.externalIPs[0]: Invalid value: "not-an-ip": ${VALID_IP}`,
  ]),
  // TestValidateServiceCreate "invalid source range for non LoadBalancer type service"
  svcCreate('loadBalancerSourceRanges on a ClusterIP Service', () => svc((s) => (s.spec.loadBalancerSourceRanges = ['10.0.0.0/8'])), [
    `spec.LoadBalancerSourceRanges: Forbidden: ${LB_ONLY}`,
  ]),
  // TestValidateServiceCreate "invalid LoadBalancer source range (invalid CIDR)"
  svcCreate(
    'loadBalancerSourceRanges with a /33',
    () =>
      svc((s) => {
        s.spec.type = 'LoadBalancer';
        s.spec.loadBalancerSourceRanges = ['10.0.0.0/33'];
      }),
    [`spec.LoadBalancerSourceRanges[0]: Invalid value: "10.0.0.0/33": ${VALID_CIDR}`],
  ),
  // TestValidateServiceCreate "invalid empty LoadBalancer source range": padding is trimmed first,
  // so the value printed is the trimmed (here empty) one.
  svcCreate(
    'loadBalancerSourceRanges padded with spaces',
    () =>
      svc((s) => {
        s.spec.type = 'LoadBalancer';
        s.spec.loadBalancerSourceRanges = [' 192.168.0.0/16 ', '   '];
      }),
    [`spec.LoadBalancerSourceRanges[1]: Invalid value: "": ${VALID_CIDR}`],
  ),
  // TestValidateServiceCreate "invalid LoadBalancer source range annotation (hostname)" and
  // "... annotation for non LoadBalancer type service" together: the annotation is checked
  // even on a ClusterIP Service.
  svcCreate(
    'source-range annotation with a hostname on a ClusterIP Service',
    () => svc((s) => (s.metadata.annotations = { 'service.beta.kubernetes.io/load-balancer-source-ranges': 'foo.bar' })),
    [
      `${SOURCE_RANGES_ANNOTATION}: Forbidden: ${LB_ONLY}`,
      `${SOURCE_RANGES_ANNOTATION}: Invalid value: "foo.bar": ${VALID_CIDR}`,
    ],
  ),
  // TestValidateServiceCreate "invalid cluster ip"
  svcCreate('clusterIP 10.0.0.300', () => svc((s) => (s.spec.clusterIP = '10.0.0.300')), [
    `spec.clusterIPs[0]: Invalid value: "10.0.0.300": ${VALID_IP}`,
  ]),
  // TestValidateServiceCreate "invalid cluster ip != clusterIP in single ip service"
  svcCreate(
    'clusterIPs not starting with clusterIP',
    () =>
      svc((s) => {
        s.spec.clusterIP = '10.0.0.10';
        s.spec.clusterIPs = ['10.0.0.11'];
      }),
    ['spec.clusterIPs: Invalid value: []string{"10.0.0.11"}: first value must match `clusterIP`'],
  ),
  svcCreate(
    'two IPv4 clusterIPs',
    () =>
      svc((s) => {
        s.spec.clusterIP = '10.0.0.10';
        s.spec.clusterIPs = ['10.0.0.10', '10.0.0.11'];
      }),
    ['spec.clusterIPs: Invalid value: []string{"10.0.0.10", "10.0.0.11"}: may specify no more than one IP for each IP family'],
  ),
  svcCreate('ipFamilyPolicy DualStack', () => svc((s) => (s.spec.ipFamilyPolicy = 'DualStack')), [
    'spec.ipFamilyPolicy: Unsupported value: "DualStack": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"',
  ]),
  // cf. TestValidateServiceCreate "invalid, service with same ip families"
  svcCreate('ipFamilies listing IPv4 twice', () => svc((s) => (s.spec.ipFamilies = ['IPv4', 'IPv4'])), [
    'spec.ipFamilies[1]: Duplicate value: "IPv4"',
  ]),
  // TestValidateServiceCreate "invalid, families don't match (v4=>v6)"
  svcCreate(
    'IPv6 family with an IPv4 clusterIP',
    () =>
      svc((s) => {
        s.spec.clusterIP = '10.0.0.10';
        s.spec.ipFamilies = ['IPv6'];
      }),
    ['spec.clusterIPs[0]: Invalid value: "10.0.0.10": expected an IPv6 value as indicated by `ipFamilies[0]`'],
  ),
  // TestValidateServiceCreate "invalid: set LoadBalancerClass when type is not LoadBalancer"
  svcCreate('loadBalancerClass on a ClusterIP Service', () => svc((s) => (s.spec.loadBalancerClass = 'example.com/lb')), [
    `spec.loadBalancerClass: Forbidden: ${LB_ONLY}`,
  ]),
  svcCreate(
    'loadBalancerClass with a space',
    () =>
      svc((s) => {
        s.spec.type = 'LoadBalancer';
        s.spec.loadBalancerClass = 'example.com/my class';
      }),
    [`spec.loadBalancerClass: Invalid value: "example.com/my class": ${QUALIFIED_NAME_PART}`],
  ),
  // TestValidateServiceCreate "invalid externalTraffic field"
  svcCreate(
    'externalTrafficPolicy Global',
    () =>
      svc((s) => {
        s.spec.type = 'NodePort';
        s.spec.externalTrafficPolicy = 'Global';
      }),
    ['spec.externalTrafficPolicy: Unsupported value: "Global": supported values: "Cluster", "Local"'],
  ),
  svcCreate('externalTrafficPolicy on an internal-only Service', () => svc((s) => (s.spec.externalTrafficPolicy = 'Local')), [
    'spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
  ]),
  // TestValidateServiceExternalTrafficPolicy "cannot set healthCheckNodePort field on nodePort service"
  svcCreate(
    'healthCheckNodePort on a NodePort Service',
    () =>
      svc((s) => {
        s.spec.type = 'NodePort';
        s.spec.healthCheckNodePort = 30000;
      }),
    ["spec.healthCheckNodePort: Invalid value: 30000: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"],
  ),
  // The allocator fills it in before validation on a real apiserver.
  svcCreate(
    'LoadBalancer with policy Local and no healthCheckNodePort',
    () =>
      svc((s) => {
        s.spec.type = 'LoadBalancer';
        s.spec.externalTrafficPolicy = 'Local';
      }),
    ['spec.healthCheckNodePort: Required value'],
  ),
  // cf. TestValidateServiceCreate "invalid internalTraffic field"
  svcCreate('internalTrafficPolicy Node', () => svc((s) => (s.spec.internalTrafficPolicy = 'Node')), [
    'spec.internalTrafficPolicy: Unsupported value: "Node": supported values: "Cluster", "Local"',
  ]),
  // cf. TestValidateServiceCreate "Use AllocateLoadBalancerNodePorts when type is not LoadBalancer"
  svcCreate('allocateLoadBalancerNodePorts on a ClusterIP Service', () => svc((s) => (s.spec.allocateLoadBalancerNodePorts = false)), [
    `spec.allocateLoadBalancerNodePorts: Forbidden: ${LB_ONLY}`,
  ]),
  // TestValidateServiceCreate "topology annotations are mismatched"
  svcCreate(
    'topology-mode annotation disagreeing with topology-aware-hints',
    () =>
      svc(
        (s) =>
          (s.metadata.annotations = {
            'service.kubernetes.io/topology-aware-hints': 'Auto',
            'service.kubernetes.io/topology-mode': 'Disabled',
          }),
      ),
    [
      'metadata.annotations[service.kubernetes.io/topology-mode]: Invalid value: "Disabled": must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified',
    ],
  ),
  // TestValidateServiceCreate "invalid, same ip family (v4)"
  svcCreate(
    'two IPv4 clusterIPs against IPv4,IPv6 families',
    () =>
      svc((s) => {
        s.spec.ipFamilyPolicy = 'RequireDualStack';
        s.spec.clusterIP = '10.0.0.1';
        s.spec.clusterIPs = ['10.0.0.1', '10.0.0.10'];
        s.spec.ipFamilies = ['IPv4', 'IPv6'];
      }),
    [
      'spec.clusterIPs: Invalid value: []string{"10.0.0.1", "10.0.0.10"}: may specify no more than one IP for each IP family',
      'spec.clusterIPs[1]: Invalid value: "10.0.0.10": expected an IPv6 value as indicated by `ipFamilies[1]`',
    ],
  ),
  // TestValidateServiceCreate "invalid, EMPTY STRING + IP"
  svcCreate(
    'clusterIPs starting with an empty string',
    () =>
      svc((s) => {
        s.spec.ipFamilyPolicy = 'RequireDualStack';
        s.spec.clusterIPs = ['', '2001::1'];
      }),
    [
      'spec.clusterIPs: Invalid value: []string{"", "2001::1"}: must be empty when `clusterIP` is not specified',
      `spec.clusterIPs[0]: Invalid value: "": ${VALID_IP}`,
    ],
  ),
  // TestValidateServiceCreate "invalid, NONE + IP"
  svcCreate(
    'None followed by an IP in clusterIPs',
    () =>
      svc((s) => {
        s.spec.ipFamilyPolicy = 'RequireDualStack';
        s.spec.clusterIP = 'None';
        s.spec.clusterIPs = ['None', '2001::1'];
      }),
    [`spec.clusterIPs: Invalid value: []string{"None", "2001::1"}: 'None' must be the first and only value`],
  ),
  // TestValidateServiceCreate "invalid, service with 2+ ipFamilies": only the repeat is reported.
  svcCreate(
    'three ipFamilies',
    () =>
      svc((s) => {
        s.spec.ipFamilyPolicy = 'RequireDualStack';
        s.spec.ipFamilies = ['IPv4', 'IPv6', 'IPv4'];
      }),
    ['spec.ipFamilies[2]: Duplicate value: "IPv4"'],
  ),
  // TestValidateServiceCreate "invalid ExternalName clusterIP (None)"
  svcCreate(
    'headless ExternalName',
    () =>
      svc((s) => {
        s.spec.type = 'ExternalName';
        s.spec.externalName = 'foo.bar.example.com';
        s.spec.clusterIP = 'None';
      }),
    ['spec.clusterIPs: Forbidden: may not be set for ExternalName services'],
  ),
  // TestValidateServiceCreate "invalid ExternalName (not a DNS name)"
  svcCreate(
    'ExternalName starting with a hyphen',
    () =>
      svc((s) => {
        s.spec.type = 'ExternalName';
        s.spec.externalName = '-123';
      }),
    [`spec.externalName: Invalid value: "-123": ${DNS1123_SUBDOMAIN}`],
  ),
  // TestValidateServiceCreate "invalid LoadBalancerClass": the prefix must be a DNS subdomain.
  svcCreate(
    'loadBalancerClass with an upper-case prefix',
    () =>
      svc((s) => {
        s.spec.type = 'LoadBalancer';
        s.spec.loadBalancerClass = 'Bad/LoadBalancerClass';
      }),
    [`spec.loadBalancerClass: Invalid value: "Bad/LoadBalancerClass": prefix part ${DNS1123_SUBDOMAIN}`],
  ),
  // TestValidateServiceCreate "invalid appProtocol"
  svcCreate(
    'appProtocol with braces and brackets',
    () =>
      svc(
        (s) =>
          (s.spec.ports = [
            { port: 12345, targetPort: 12345, protocol: 'TCP', appProtocol: 'example.com/protocol_with{invalid}[characters]' },
          ]),
      ),
    [
      `spec.ports[0].appProtocol: Invalid value: "example.com/protocol_with{invalid}[characters]": ${QUALIFIED_NAME_PART}`,
    ],
  ),
  // TestValidateServiceCreate "invalid: trafficDistribution field set to Random"
  svcCreate('trafficDistribution Random', () => svc((s) => (s.spec['trafficDistribution'] = 'Random')), [
    'spec.trafficDistribution: Unsupported value: "Random": supported values: "PreferClose"',
  ]),
  // TestValidateServiceExternalTrafficPolicy "cannot set externalTrafficPolicy or
  // healthCheckNodePort fields on clusterIP service"
  svcCreate(
    'externalTrafficPolicy and healthCheckNodePort on a ClusterIP Service',
    () =>
      svc((s) => {
        s.spec.externalTrafficPolicy = 'Local';
        s.spec.healthCheckNodePort = 34567;
      }),
    [
      'spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
      "spec.healthCheckNodePort: Invalid value: 34567: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
    ],
  ),
];

// Rows whose whole 422 message is checked too.
serviceRows.push(
  {
    name: 'port 0 (whole message)',
    errors: () => validateService(svc((s) => (s.spec.ports = [{ name: 'http', port: 0, targetPort: 8080 }]))),
    expected: [`spec.ports[0].port: Invalid value: 0: ${PORT_RANGE}`],
    message: {
      object: () => svc((s) => (s.spec.ports = [{ name: 'http', port: 0, targetPort: 8080 }])),
      text: `Service "web" is invalid: spec.ports[0].port: Invalid value: 0: ${PORT_RANGE}`,
    },
  },
  {
    name: 'two ports, unnamed second one, bad protocol (whole message)',
    errors: () =>
      validateService(svc((s) => s.spec.ports?.push({ port: 443, targetPort: 8443, protocol: 'HTTPS' }))),
    expected: ['spec.ports[1].name: Required value', `spec.ports[1].protocol: Unsupported value: "HTTPS": ${PROTOCOLS}`],
    message: {
      object: () => svc((s) => s.spec.ports?.push({ port: 443, targetPort: 8443, protocol: 'HTTPS' })),
      text: `Service "web" is invalid: [spec.ports[1].name: Required value, spec.ports[1].protocol: Unsupported value: "HTTPS": ${PROTOCOLS}]`,
    },
  },
);

// --- Services on update and status update ----------------------------------------------------
const serviceUpdateRows: Row[] = [
  // TestValidateServiceUpdate "Change clusterIP" family: the message upstream gives for a
  // changed clusterIP is "may not change once set", not "field is immutable".
  {
    name: 'update changing clusterIP',
    errors: () => {
      const old = stored((s) => (s.spec.clusterIP = '10.0.0.10'));
      return validatePreparedServiceUpdate(updated(old, (s) => (s.spec.clusterIP = '10.0.0.20')), old);
    },
    expected: ['spec.clusterIPs[0]: Invalid value: []string{"10.0.0.20"}: may not change once set'],
  },
  // TestValidateServiceUpdate "change type NodePort -> ExternalName" family. Upstream's
  // strategy (dropTypeDependentFields) clears fields the user left untouched; these were
  // set by the user, so validation sees them.
  {
    name: 'update NodePort -> ExternalName keeping clusterIPs and families',
    errors: () => {
      const old = stored((s) => {
        s.spec.type = 'NodePort';
        s.spec.clusterIP = '10.0.0.10';
        s.spec.ipFamilies = ['IPv4'];
        s.spec.ipFamilyPolicy = 'SingleStack';
        s.spec.ports = [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30080 }];
      });
      return validatePreparedServiceUpdate(
        updated(old, (s) => {
          s.spec.type = 'ExternalName';
          s.spec.externalName = 'web.example.com';
        }),
        old,
      );
    },
    expected: [
      'spec.clusterIPs: Forbidden: may not be set for ExternalName services',
      'spec.ipFamilies: Forbidden: may not be set for ExternalName services',
      'spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services',
      'spec.externalTrafficPolicy: Invalid value: "Cluster": may only be set for externally-accessible services',
    ],
  },
  // TestValidateServiceUpdate "change type ExternalName -> ClusterIP" family: ports become required.
  {
    name: 'update ExternalName -> ClusterIP without ports',
    errors: () => {
      const old = stored((s) => {
        s.spec.type = 'ExternalName';
        s.spec.externalName = 'db.example.com';
        delete s.spec.ports;
      });
      return validatePreparedServiceUpdate(
        updated(old, (s) => {
          s.spec.type = 'ClusterIP';
          delete s.spec.externalName;
        }),
        old,
      );
    },
    expected: ['spec.ports: Required value'],
  },
  // TestValidateServiceUpdate "update LoadBalancer type of service with loadBalancerClass changed"
  {
    name: 'update changing loadBalancerClass',
    errors: () => {
      const old = stored((s) => {
        s.spec.type = 'LoadBalancer';
        s.spec.loadBalancerClass = 'example.com/a';
      });
      return validatePreparedServiceUpdate(updated(old, (s) => (s.spec.loadBalancerClass = 'example.com/b')), old);
    },
    expected: ['spec.loadBalancerClass: Invalid value: "example.com/b": may not change once set'],
  },
  {
    name: 'update without resourceVersion',
    errors: () => {
      const old = stored();
      return validatePreparedServiceUpdate(updated(old, (s) => delete s.metadata.resourceVersion), old);
    },
    expected: ['metadata.resourceVersion: Invalid value: "": must be specified for an update'],
  },
  {
    name: 'update renaming the Service',
    errors: () => {
      const old = stored();
      return validatePreparedServiceUpdate(updated(old, (s) => (s.metadata.name = 'web2')), old);
    },
    expected: ['metadata.name: Invalid value: "web2": field is immutable'],
  },
  {
    name: 'update switching a single-stack Service from IPv4 to IPv6',
    errors: () => {
      const old = stored((s) => {
        s.spec.clusterIP = '10.0.0.10';
        s.spec.ipFamilies = ['IPv4'];
        s.spec.ipFamilyPolicy = 'SingleStack';
      });
      return validatePreparedServiceUpdate(updated(old, (s) => (s.spec.ipFamilies = ['IPv6'])), old);
    },
    expected: [
      'spec.ipFamilies[0]: Invalid value: []core.IPFamily{"IPv6"}: may not change once set',
      'spec.clusterIPs[0]: Invalid value: "10.0.0.10": expected an IPv6 value as indicated by `ipFamilies[0]`',
    ],
  },
  // TestValidateServiceUpdate "downgrade: dual stack to single stack without policy"
  {
    name: 'update dropping the secondary IP while still RequireDualStack',
    errors: () => {
      const old = stored((s) => {
        s.spec.clusterIP = '10.0.0.10';
        s.spec.clusterIPs = ['10.0.0.10', 'fd00::10'];
        s.spec.ipFamilies = ['IPv4', 'IPv6'];
        s.spec.ipFamilyPolicy = 'RequireDualStack';
      });
      return validatePreparedServiceUpdate(
        updated(old, (s) => {
          s.spec.clusterIPs = ['10.0.0.10'];
          s.spec.ipFamilies = ['IPv4'];
        }),
        old,
      );
    },
    expected: [
      `spec.ipFamilyPolicy: Invalid value: "RequireDualStack": must be set to 'SingleStack' when releasing the secondary clusterIP`,
      `spec.ipFamilyPolicy: Invalid value: "RequireDualStack": must be set to 'SingleStack' when releasing the secondary ipFamily`,
    ],
  },
  {
    name: 'update changing healthCheckNodePort',
    errors: () => {
      const old = stored((s) => {
        s.spec.type = 'LoadBalancer';
        s.spec.externalTrafficPolicy = 'Local';
        s.spec.healthCheckNodePort = 30100;
      });
      return validatePreparedServiceUpdate(updated(old, (s) => (s.spec.healthCheckNodePort = 30200)), old);
    },
    expected: ['spec.healthCheckNodePort: Forbidden: field is immutable'],
  },
  // Checked by the update rule and again by ValidateService: upstream lists it twice and
  // the 422 message shows it once.
  {
    name: 'update adding loadBalancerClass to a ClusterIP Service (whole message)',
    errors: () => {
      const old = stored();
      return validatePreparedServiceUpdate(updated(old, (s) => (s.spec.loadBalancerClass = 'example.com/lb')), old);
    },
    expected: [`spec.loadBalancerClass: Forbidden: ${LB_ONLY}`, `spec.loadBalancerClass: Forbidden: ${LB_ONLY}`],
    message: {
      object: () => stored(),
      text: `Service "web" is invalid: spec.loadBalancerClass: Forbidden: ${LB_ONLY}`,
    },
  },
  {
    name: 'status update with ingress on a ClusterIP Service',
    errors: () => {
      const old = stored();
      const next = updated(old, (s) => (s.status = { loadBalancer: { ingress: [{ ip: '203.0.113.10' }] } }));
      return validateServiceStatusUpdate(next, old);
    },
    expected: ["status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'"],
  },
  {
    name: 'status update with a bad ingress IP',
    errors: () => {
      const old = stored((s) => (s.spec.type = 'LoadBalancer'));
      const next = updated(old, (s) => (s.status = { loadBalancer: { ingress: [{ ip: '203.0.113.300' }] } }));
      return validateServiceStatusUpdate(next, old);
    },
    expected: [`status.loadBalancer.ingress[0].ip: Invalid value: "203.0.113.300": ${VALID_IP}`],
  },
];

// --- Endpoints --------------------------------------------------------------------------------
const endpointsRows: Row[] = [
  // TestValidateEndpointsCreate "empty addresses"
  epCreate('subset without addresses', () => ep((e) => delete firstSubset(e).addresses), [
    'subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`',
  ]),
  // TestValidateEndpointsCreate "Address is loopback"
  epCreate('loopback address', () => ep((e) => setAddressIP(e, '127.0.0.1')), [
    `subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": ${LOOPBACK}`,
  ]),
  // TestValidateEndpointsCreate "Address is link-local"
  epCreate('link-local address (the metadata server)', () => ep((e) => setAddressIP(e, '169.254.169.254')), [
    `subsets[0].addresses[0].ip: Invalid value: "169.254.169.254": ${LINK_LOCAL}`,
  ]),
  epCreate('unspecified address', () => ep((e) => setAddressIP(e, '0.0.0.0')), [
    'subsets[0].addresses[0].ip: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
  ]),
  // TestValidateEndpointsCreate "Address is link-local multicast"
  epCreate('link-local multicast address', () => ep((e) => setAddressIP(e, '224.0.0.1')), [
    `subsets[0].addresses[0].ip: Invalid value: "224.0.0.1": ${LINK_LOCAL_MULTICAST}`,
  ]),
  epCreate('IPv6 loopback among the not-ready addresses', () => ep((e) => (firstSubset(e).notReadyAddresses = [{ ip: '::1' }])), [
    `subsets[0].notReadyAddresses[0].ip: Invalid value: "::1": ${LOOPBACK}`,
  ]),
  epCreate('IPv6 link-local address', () => ep((e) => setAddressIP(e, 'fe80::1')), [
    `subsets[0].addresses[0].ip: Invalid value: "fe80::1": ${LINK_LOCAL}`,
  ]),
  epCreate('IPv6 unspecified address', () => ep((e) => setAddressIP(e, '::')), [
    'subsets[0].addresses[0].ip: Invalid value: "::": may not be unspecified (::)',
  ]),
  // cf. TestValidateEndpointsCreate "invalid IP": both IsValidIP and ValidateNonSpecialIP report it.
  epCreate('address that is not an IP', () => ep((e) => setAddressIP(e, 'not-an-ip')), [
    `subsets[0].addresses[0].ip: Invalid value: "not-an-ip": ${VALID_IP}`,
    'subsets[0].addresses[0].ip: Invalid value: "not-an-ip": must be a valid IP address',
  ]),
  // cf. TestValidateEndpointsCreate "Port missing number"
  epCreate('port 0', () => ep((e) => (firstSubset(e).ports = [{ name: 'http', port: 0, protocol: 'TCP' }])), [
    `subsets[0].ports[0].port: Invalid value: 0: ${PORT_RANGE}`,
  ]),
  // TestValidateEndpointsCreate "Invalid port number"
  epCreate('port 66000', () => ep((e) => (firstSubset(e).ports = [{ name: 'http', port: 66000, protocol: 'TCP' }])), [
    `subsets[0].ports[0].port: Invalid value: 66000: ${PORT_RANGE}`,
  ]),
  // TestValidateEndpointsCreate "Invalid protocol"
  epCreate('protocol HTTP', () => ep((e) => (firstSubset(e).ports = [{ name: 'http', port: 8080, protocol: 'HTTP' }])), [
    `subsets[0].ports[0].protocol: Unsupported value: "HTTP": ${PROTOCOLS}`,
  ]),
  // TestValidateEndpointsCreate "Multiple ports, one without name"
  epCreate(
    'two ports, the first without a name',
    () =>
      ep(
        (e) =>
          (firstSubset(e).ports = [
            { port: 8675, protocol: 'TCP' },
            { name: 'b', port: 309, protocol: 'TCP' },
          ]),
      ),
    ['subsets[0].ports[0].name: Required value'],
  ),
  epCreate('port name in upper case', () => ep((e) => (firstSubset(e).ports = [{ name: 'HTTP', port: 8080, protocol: 'TCP' }])), [
    `subsets[0].ports[0].name: Invalid value: "HTTP": ${DNS1123_LABEL}`,
  ]),
  epCreate('hostname with an underscore', () => ep((e) => (firstSubset(e).addresses = [{ ip: '10.244.1.5', hostname: 'web_1' }])), [
    `subsets[0].addresses[0].hostname: Invalid value: "web_1": ${DNS1123_LABEL}`,
  ]),
  epCreate('nodeName with an underscore', () => ep((e) => (firstSubset(e).addresses = [{ ip: '10.244.1.5', nodeName: 'node_1' }])), [
    `subsets[0].addresses[0].nodeName: Invalid value: "node_1": ${DNS1123_SUBDOMAIN}`,
  ]),
  // cf. TestValidateEndpointsCreate "Invalid AppProtocol"
  epCreate(
    'appProtocol with a space',
    () => ep((e) => (firstSubset(e).ports = [{ name: 'http', port: 8080, protocol: 'TCP', appProtocol: 'my proto' }])),
    [`subsets[0].ports[0].appProtocol: Invalid value: "my proto": ${QUALIFIED_NAME_PART}`],
  ),
  // cf. TestValidateEndpointsCreate "invalid name"
  epCreate('name in upper case', () => ep((e) => (e.metadata.name = 'Web')), [
    `metadata.name: Invalid value: "Web": ${DNS1123_SUBDOMAIN}`,
  ]),
  // TestValidateEndpointsCreate "Address missing IP": both IP checks report the empty string.
  epCreate('address without an IP', () => ep((e) => setAddressIP(e, '')), [
    `subsets[0].addresses[0].ip: Invalid value: "": ${VALID_IP}`,
    'subsets[0].addresses[0].ip: Invalid value: "": must be a valid IP address',
  ]),
  // TestValidateEndpointsCreate "invalid IP"
  epCreate('IPv6 address in brackets', () => ep((e) => setAddressIP(e, '[2001:0db8:85a3:0042:1000:8a2e:0370:7334]')), [
    `subsets[0].addresses[0].ip: Invalid value: "[2001:0db8:85a3:0042:1000:8a2e:0370:7334]": ${VALID_IP}`,
    'subsets[0].addresses[0].ip: Invalid value: "[2001:0db8:85a3:0042:1000:8a2e:0370:7334]": must be a valid IP address',
  ]),
  // TestValidateEndpointsUpdate "update to invalid app protocol"
  {
    name: 'update to an appProtocol starting with a tilde',
    errors: () => {
      const withRV = (e: Endpoints): Endpoints => ({ ...e, metadata: { ...e.metadata, resourceVersion: '1234' } });
      const old = withRV(baseEndpoints());
      const next = withRV(ep((e) => (firstSubset(e).ports = [{ name: 'http', port: 8080, protocol: 'TCP', appProtocol: '~https' }])));
      return validateEndpointsUpdate(next, old);
    },
    expected: [`subsets[0].ports[0].appProtocol: Invalid value: "~https": ${QUALIFIED_NAME_PART}`],
  },
  {
    name: 'loopback address (whole message)',
    errors: () => validateEndpoints(ep((e) => setAddressIP(e, '127.0.0.1'))),
    expected: [`subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": ${LOOPBACK}`],
    message: {
      object: () => ep((e) => setAddressIP(e, '127.0.0.1')),
      text: `Endpoints "web" is invalid: subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": ${LOOPBACK}`,
    },
  },
  {
    name: 'update without resourceVersion',
    errors: () => {
      const old = { ...baseEndpoints(), metadata: { name: 'web', namespace: 'default', resourceVersion: '7' } };
      return validateEndpointsUpdate(baseEndpoints(), old);
    },
    expected: ['metadata.resourceVersion: Invalid value: "": must be specified for an update'],
  },
  {
    name: 'update moving the Endpoints to another namespace',
    errors: () => {
      const old = { ...baseEndpoints(), metadata: { name: 'web', namespace: 'default', resourceVersion: '7' } };
      const next = { ...baseEndpoints(), metadata: { name: 'web', namespace: 'prod', resourceVersion: '7' } };
      return validateEndpointsUpdate(next, old);
    },
    expected: ['metadata.namespace: Invalid value: "prod": field is immutable'],
  },
];

const render = (errs: readonly FieldError[]): string[] => errs.map(renderFieldError);

describe('invalid Services and Endpoints, with the exact upstream messages', () => {
  const rows = [...serviceRows, ...serviceUpdateRows, ...endpointsRows];

  it('has enough rows of each kind', () => {
    expect(serviceRows.length).toBeGreaterThanOrEqual(30);
    expect(endpointsRows.length).toBeGreaterThanOrEqual(12);
    expect(rows.length).toBeGreaterThanOrEqual(45);
  });

  it.each(rows.map((r) => [r.name, r] as const))('%s', (_name, row) => {
    expect(render(row.errors())).toEqual(row.expected);
    if (row.message !== undefined) {
      expect(invalidMessage(row.message.object(), row.errors())).toBe(row.message.text);
    }
  });

  it('accepts the bases themselves', () => {
    expect(validateService(svc())).toEqual([]);
    expect(validateEndpoints(ep(() => undefined))).toEqual([]);
  });
});
