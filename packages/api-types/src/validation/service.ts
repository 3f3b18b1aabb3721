// Service validation on create, update and status update, with upstream's messages in
// upstream's order.
// upstream (v1.32): pkg/apis/core/validation/validation.go
//   ValidateService, validateServicePort, validateClientIPAffinityConfig, validateAffinityTimeout,
//   ValidatePortNumOrName, ValidateServiceClusterIPsRelatedFields, validateUpgradeDowngradeClusterIPs,
//   validateUpgradeDowngradeIPFamilies, validateLoadBalancerClassField,
//   validateServiceExternalTrafficPolicy, validateServiceExternalTrafficFieldsUpdate,
//   validateServiceInternalTrafficFieldsValue, validateServiceTrafficDistribution,
//   ValidateServiceUpdate, ValidateServiceStatusUpdate, ValidateLoadBalancerStatus
// upstream (v1.32): pkg/api/service/util.go (ExternallyAccessible, NeedsHealthCheck)
// upstream (v1.32): pkg/registry/core/service/storage/storage.go (normalizeClusterIPs)
//
// These are the bare checks: they expect an object that went through what the apiserver does
// first (v1 defaulting, the registry's normalizeClusterIPs, IP-family defaulting and, on an
// update, patchAllocatedValues and PrepareForUpdate). validateServiceCreate and
// validateServiceUpdate (service-request.ts) run that whole path and are what a caller
// checking a user's manifest wants.
import { externallyAccessible } from '../defaults.js';
import { isLinkLocalMulticast, isLinkLocalUnicast, isLoopback, isUnspecified } from '../net/ip-classify.js';
import { isIPv6, parseIPSloppy } from '../net/ip.js';
import {
  CLUSTER_IP_NONE,
  MAX_CLIENT_IP_TIMEOUT_SECONDS,
  type Service,
  type ServicePort,
  type ServiceSpec,
  type ServiceStatus,
} from '../objects/service.js';
import { fieldPath, type FieldPath } from './field-path.js';
import {
  duplicate,
  forbidden,
  goQuote,
  goStringSlice,
  goValue,
  invalid,
  notSupported,
  required,
  type FieldError,
  type GoValue,
} from './field-errors.js';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isDualStackIPStrings,
  isQualifiedName,
  isValidCIDR,
  isValidIP,
  isValidPortName,
  isValidPortNum,
  validateServiceName,
} from './names.js';
import { FIELD_IMMUTABLE, validateLabels, validateObjectMeta, validateObjectMetaUpdate } from './object-meta.js';
import {
  SUPPORTED_IP_FAMILIES,
  SUPPORTED_IP_FAMILY_POLICIES,
  SUPPORTED_LB_IP_MODES,
  SUPPORTED_PROTOCOLS,
  SUPPORTED_SERVICE_TYPES,
  SUPPORTED_SESSION_AFFINITIES,
  SUPPORTED_TRAFFIC_POLICIES,
} from './supported-values.js';

const META = fieldPath('metadata');
const SPEC = fieldPath('spec');
const CLUSTER_IPS = SPEC.child('clusterIPs');
const IP_FAMILIES = SPEC.child('ipFamilies');
const IP_FAMILY_POLICY = SPEC.child('ipFamilyPolicy');
const LOAD_BALANCER_CLASS = SPEC.child('loadBalancerClass');

// upstream: pkg/cluster/ports KubeletPort. v1.32 still refuses it on LoadBalancer Services;
// the check was removed for v1.33 (kubernetes PR 129174, merged after v1.32.0).
const KUBELET_PORT = 10250;

// upstream: core.DeprecatedAnnotationTopologyAwareHints, core.AnnotationTopologyMode,
// core.AnnotationLoadBalancerSourceRangesKey
const ANNOTATION_TOPOLOGY_AWARE_HINTS = 'service.kubernetes.io/topology-aware-hints';
const ANNOTATION_TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode';
const ANNOTATION_LB_SOURCE_RANGES = 'service.beta.kubernetes.io/load-balancer-source-ranges';

// upstream (v1.33): v1.ServiceTrafficDistribution*, and validateServiceTrafficDistribution's
// supported values: PreferClose alone, or all three with the PreferSameTrafficDistribution gate.
const TRAFFIC_DISTRIBUTION_PREFER_CLOSE = 'PreferClose';
const TRAFFIC_DISTRIBUTIONS_PREFER_SAME = [TRAFFIC_DISTRIBUTION_PREFER_CLOSE, 'PreferSameZone', 'PreferSameNode'];

/** The feature gates the Service validation reads, as upstream's reads utilfeature.DefaultFeatureGate. */
export interface ServiceValidationOptions {
  /** kube-apiserver's PreferSameTrafficDistribution gate (alpha in v1.33, off by default): trafficDistribution may also be PreferSameZone or PreferSameNode. */
  readonly preferSameTrafficDistribution?: boolean;
}

const MAY_NOT_CHANGE = 'may not change once set';

function oneOf(values: readonly string[], value: string): boolean {
  return values.includes(value);
}

// Go's strings.TrimSpace trims unicode.IsSpace, which is not JavaScript's trim(): Go keeps
// U+FEFF and trims U+0085. loadBalancerSourceRanges depends on it.
const GO_SPACE_CLASS = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const GO_SPACE_EDGES = new RegExp(`^${GO_SPACE_CLASS}+|${GO_SPACE_CLASS}+$`, 'g');

function goTrimSpace(s: string): string {
  return s.replace(GO_SPACE_EDGES, '');
}

/** A Service is headless when clusterIPs is exactly ["None"]. upstream: isHeadlessService */
export function isHeadlessService(spec: ServiceSpec | undefined): boolean {
  const ips = spec?.clusterIPs;
  return ips !== undefined && ips.length === 1 && ips[0] === CLUSTER_IP_NONE;
}

/** upstream: pkg/api/service/util.go NeedsHealthCheck (via RequestsOnlyLocalTraffic). */
export function needsHealthCheck(spec: ServiceSpec | undefined): boolean {
  return spec?.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
}

/**
 * The key upstream reports for a duplicate port: a core.ServicePort holding only the
 * protocol and port, printed by %#v (AppProtocol is a nil pointer, TargetPort the zero
 * IntOrString).
 */
function goServicePortKey(protocol: string, port: number): GoValue {
  return goValue(
    `core.ServicePort{Name:"", Protocol:${goQuote(protocol)}, AppProtocol:(*string)(nil), Port:${port}, ` +
      'TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
  );
}

/** A []core.IPFamily as %#v prints it; an absent list is nil. */
function goIPFamilySlice(families: readonly string[] | undefined): GoValue {
  if (families === undefined) return goValue('[]core.IPFamily(nil)');
  return goValue(`[]core.IPFamily{${families.map(goQuote).join(', ')}}`);
}

function dnsLabelErrors(value: string, path: FieldPath): FieldError[] {
  return isDNS1123Label(value).map((msg) => invalid(path, value, msg));
}

function qualifiedNameErrors(value: string, path: FieldPath): FieldError[] {
  return isQualifiedName(value).map((msg) => invalid(path, value, msg));
}

/**
 * ValidateNonSpecialIP: unspecified, loopback, link-local and link-local multicast
 * addresses make no sense as endpoints or external IPs. The multicast range in the message
 * says ff02::/10 although Go tests ffX2::/16; both are upstream's.
 */
export function validateNonSpecialIP(ipAddress: string, path: FieldPath): FieldError[] {
  const parsed = parseIPSloppy(ipAddress);
  if (!parsed.ok) return [invalid(path, ipAddress, 'must be a valid IP address')];
  const ip = parsed.value;
  const errs: FieldError[] = [];
  if (isUnspecified(ip)) errs.push(invalid(path, ipAddress, `may not be unspecified (${ipAddress})`));
  if (isLoopback(ip)) errs.push(invalid(path, ipAddress, 'may not be in the loopback range (127.0.0.0/8, ::1/128)'));
  if (isLinkLocalUnicast(ip)) {
    errs.push(invalid(path, ipAddress, 'may not be in the link-local range (169.254.0.0/16, fe80::/10)'));
  }
  if (isLinkLocalMulticast(ip)) {
    errs.push(invalid(path, ipAddress, 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'));
  }
  return errs;
}

/** ValidatePortNumOrName: an IntOrString is a port number or an IANA_SVC_NAME. */
function validatePortNumOrName(port: number | string, path: FieldPath): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((msg) => invalid(path, port, msg));
  return isValidPortName(port).map((msg) => invalid(path, port, msg));
}

function validateServicePort(
  sp: ServicePort,
  requireName: boolean,
  allNames: Set<string>,
  path: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  const name = sp.name ?? '';
  if (requireName && name.length === 0) {
    errs.push(required(path.child('name')));
  } else if (name.length > 0) {
    errs.push(...dnsLabelErrors(name, path.child('name')));
    if (allNames.has(name)) errs.push(duplicate(path.child('name'), name));
    else allNames.add(name);
  }
  for (const msg of isValidPortNum(sp.port)) errs.push(invalid(path.child('port'), sp.port, msg));
  const protocol = sp.protocol ?? '';
  if (protocol.length === 0) {
    errs.push(required(path.child('protocol')));
  } else if (!oneOf(SUPPORTED_PROTOCOLS, protocol)) {
    errs.push(notSupported(path.child('protocol'), protocol, SUPPORTED_PROTOCOLS));
  }
  // An absent targetPort is Go's zero IntOrString, the integer 0; v1 defaulting copies the
  // port into it, so only an undefaulted object gets here without one.
  errs.push(...validatePortNumOrName(sp.targetPort ?? 0, path.child('targetPort')));
  if (sp.appProtocol !== undefined) errs.push(...qualifiedNameErrors(sp.appProtocol, path.child('appProtocol')));
  return errs;
}

function validateClientIPAffinityConfig(
  config: ServiceSpec['sessionAffinityConfig'],
  path: FieldPath,
): FieldError[] {
  const detail = 'when session affinity type is ClientIP';
  if (config === undefined) return [required(path, detail)];
  if (config.clientIP === undefined) return [required(path.child('clientIP'), detail)];
  const timeoutPath = path.child('clientIP').child('timeoutSeconds');
  const timeout = config.clientIP.timeoutSeconds;
  if (timeout === undefined) return [required(timeoutPath, detail)];
  // validateAffinityTimeout: the bound is inclusive although the message says "less than".
  if (timeout <= 0 || timeout > MAX_CLIENT_IP_TIMEOUT_SECONDS) {
    return [invalid(timeoutPath, timeout, `must be greater than 0 and less than ${MAX_CLIENT_IP_TIMEOUT_SECONDS}`)];
  }
  return [];
}

/**
 * ValidateServiceClusterIPsRelatedFields: clusterIP and clusterIPs in step, ipFamilies and
 * ipFamilyPolicy values, clusterIPs well formed, at most one per family and matching
 * ipFamilies. The registry also runs it before allocating.
 */
export function validateServiceClusterIPsRelatedFields(service: Service): FieldError[] {
  const spec = service.spec ?? {};
  // ExternalName Services were checked (everything must be unset) in validateService.
  if (spec.type === 'ExternalName') return [];

  const errs: FieldError[] = [];
  const clusterIP = spec.clusterIP ?? '';
  const clusterIPs = spec.clusterIPs ?? [];
  let hasInvalidIPs = false;

  if (clusterIP.length > 0) {
    if (clusterIPs.length === 0) errs.push(required(CLUSTER_IPS));
    else if (clusterIPs[0] !== clusterIP) {
      errs.push(invalid(CLUSTER_IPS, goStringSlice(spec.clusterIPs), 'first value must match `clusterIP`'));
    }
  } else if (clusterIPs.length > 0) {
    errs.push(invalid(CLUSTER_IPS, goStringSlice(spec.clusterIPs), 'must be empty when `clusterIP` is not specified'));
  }

  const seen = new Set<string>();
  (spec.ipFamilies ?? []).forEach((family, i) => {
    if (!oneOf(SUPPORTED_IP_FAMILIES, family)) {
      errs.push(notSupported(IP_FAMILIES.index(i), family, SUPPORTED_IP_FAMILIES));
    }
    if (seen.has(family)) errs.push(duplicate(IP_FAMILIES.index(i), family));
    seen.add(family);
  });

  if (spec.ipFamilyPolicy !== undefined && !oneOf(SUPPORTED_IP_FAMILY_POLICIES, spec.ipFamilyPolicy)) {
    errs.push(notSupported(IP_FAMILY_POLICY, spec.ipFamilyPolicy, SUPPORTED_IP_FAMILY_POLICIES));
  }

  clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === CLUSTER_IP_NONE) {
      if (clusterIPs.length > 1) {
        hasInvalidIPs = true;
        errs.push(invalid(CLUSTER_IPS, goStringSlice(spec.clusterIPs), "'None' must be the first and only value"));
      }
      return;
    }
    const msgs = isValidIP(ip);
    if (msgs.length > 0) hasInvalidIPs = true;
    for (const msg of msgs) errs.push(invalid(CLUSTER_IPS.index(i), ip, msg));
  });

  if (clusterIPs.length > 2) {
    errs.push(invalid(CLUSTER_IPS, goStringSlice(spec.clusterIPs), 'may only hold up to 2 values'));
  }

  // Upstream stops here: family checks on bad IPs would only add noise.
  if (hasInvalidIPs) return errs;

  if (clusterIPs.length > 1 && !isDualStackIPStrings(clusterIPs)) {
    errs.push(
      invalid(CLUSTER_IPS, goStringSlice(spec.clusterIPs), 'may specify no more than one IP for each IP family'),
    );
  }

  const families = spec.ipFamilies ?? [];
  if (!isHeadlessService(spec) && clusterIPs.length > 0 && families.length > 0) {
    for (let i = 0; i < clusterIPs.length && i < families.length; i++) {
      const ip = clusterIPs[i] ?? '';
      if (families[i] === 'IPv4' && isIPv6(ip)) {
        errs.push(invalid(CLUSTER_IPS.index(i), ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      }
      if (families[i] === 'IPv6' && !isIPv6(ip)) {
        errs.push(invalid(CLUSTER_IPS.index(i), ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
      }
    }
  }
  return errs;
}

/** validateLoadBalancerClassField: set only on LoadBalancer, a qualified name, fixed once set. */
function validateLoadBalancerClassField(oldService: Service | undefined, service: Service): FieldError[] {
  const errs: FieldError[] = [];
  const spec = service.spec;
  const isLB = spec?.type === 'LoadBalancer';
  const lbClass = spec?.loadBalancerClass;
  if (oldService !== undefined && oldService.spec?.type === 'LoadBalancer' && isLB) {
    if (oldService.spec.loadBalancerClass !== lbClass) {
      errs.push(invalid(LOAD_BALANCER_CLASS, lbClass ?? null, MAY_NOT_CHANGE));
    }
  }
  if (isLB) {
    if (lbClass !== undefined) errs.push(...qualifiedNameErrors(lbClass, LOAD_BALANCER_CLASS));
  } else if (lbClass !== undefined) {
    errs.push(forbidden(LOAD_BALANCER_CLASS, "may only be used when `type` is 'LoadBalancer'"));
  }
  return errs;
}

function validateServiceExternalTrafficPolicy(spec: ServiceSpec): FieldError[] {
  const errs: FieldError[] = [];
  const policy = spec.externalTrafficPolicy ?? '';
  if (!externallyAccessible(spec)) {
    if (policy.length > 0) {
      errs.push(
        invalid(SPEC.child('externalTrafficPolicy'), policy, 'may only be set for externally-accessible services'),
      );
    }
  } else if (policy.length === 0) {
    errs.push(required(SPEC.child('externalTrafficPolicy')));
  } else if (!oneOf(SUPPORTED_TRAFFIC_POLICIES, policy)) {
    errs.push(notSupported(SPEC.child('externalTrafficPolicy'), policy, SUPPORTED_TRAFFIC_POLICIES));
  }

  const hcnp = spec.healthCheckNodePort ?? 0;
  const path = SPEC.child('healthCheckNodePort');
  if (!needsHealthCheck(spec)) {
    if (hcnp !== 0) {
      errs.push(
        invalid(path, hcnp, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"),
      );
    }
  } else if (hcnp === 0) {
    errs.push(required(path));
  } else {
    for (const msg of isValidPortNum(hcnp)) errs.push(invalid(path, hcnp, msg));
  }
  return errs;
}

function validateServiceInternalTrafficFieldsValue(spec: ServiceSpec): FieldError[] {
  const path = SPEC.child('internalTrafficPolicy');
  const policy = spec.internalTrafficPolicy;
  if (policy === undefined) {
    // Required only for these types: upstream did not check the others before the field
    // went beta and keeps tolerating stored objects without it.
    const type = spec.type;
    return type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP' ? [required(path)] : [];
  }
  return oneOf(SUPPORTED_TRAFFIC_POLICIES, policy) ? [] : [notSupported(path, policy, SUPPORTED_TRAFFIC_POLICIES)];
}

function validateServiceTrafficDistribution(spec: ServiceSpec, options: ServiceValidationOptions): FieldError[] {
  // Not in the modelled schema; a loose object keeps it, and the decoder would refuse a
  // non-string.
  const value = spec['trafficDistribution'];
  const supported = options.preferSameTrafficDistribution === true ? TRAFFIC_DISTRIBUTIONS_PREFER_SAME : [TRAFFIC_DISTRIBUTION_PREFER_CLOSE];
  if (typeof value !== 'string' || supported.includes(value)) return [];
  return [notSupported(SPEC.child('trafficDistribution'), value, supported)];
}

function validateLoadBalancerSourceRanges(service: Service, spec: ServiceSpec): FieldError[] {
  const errs: FieldError[] = [];
  const isLB = spec.type === 'LoadBalancer';
  const ranges = spec.loadBalancerSourceRanges ?? [];
  if (ranges.length > 0) {
    // Upstream's path really is capitalised here.
    const path = SPEC.child('LoadBalancerSourceRanges');
    if (!isLB) errs.push(forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
    ranges.forEach((raw, i) => {
      // Space padding is tolerated (a leftover of the annotation), so the bad value
      // reported is the trimmed one.
      const value = goTrimSpace(raw);
      for (const msg of isValidCIDR(value)) errs.push(invalid(path.index(i), value, msg));
    });
    return errs;
  }
  const annotations = service.metadata.annotations ?? {};
  if (!Object.hasOwn(annotations, ANNOTATION_LB_SOURCE_RANGES)) return errs;
  const path = META.child('annotations').key(ANNOTATION_LB_SOURCE_RANGES);
  if (!isLB) errs.push(forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
  const val = goTrimSpace(annotations[ANNOTATION_LB_SOURCE_RANGES] ?? '');
  if (val.length > 0) {
    for (const part of val.split(',')) {
      const value = goTrimSpace(part);
      for (const msg of isValidCIDR(value)) errs.push(invalid(path, value, msg));
    }
  }
  return errs;
}

/**
 * ValidateService (= ValidateServiceCreate) on a defaulted Service whose cluster IPs and
 * IP families were filled in (see validateServiceCreate for the whole path). Status is not
 * looked at: the strategy clears it on create.
 */
export function validateService(service: Service, options: ServiceValidationOptions = {}): FieldError[] {
  const errs = validateObjectMeta(service.metadata, { namespaced: true, validateName: validateServiceName }, META);

  const annotations = service.metadata.annotations ?? {};
  if (
    Object.hasOwn(annotations, ANNOTATION_TOPOLOGY_MODE) &&
    Object.hasOwn(annotations, ANNOTATION_TOPOLOGY_AWARE_HINTS) &&
    annotations[ANNOTATION_TOPOLOGY_MODE] !== annotations[ANNOTATION_TOPOLOGY_AWARE_HINTS]
  ) {
    errs.push(
      invalid(
        META.child('annotations').key(ANNOTATION_TOPOLOGY_MODE),
        annotations[ANNOTATION_TOPOLOGY_MODE] ?? '',
        `must match annotations[${ANNOTATION_TOPOLOGY_AWARE_HINTS}] when both are specified`,
      ),
    );
  }

  const spec: ServiceSpec = service.spec ?? {};
  const type = spec.type ?? '';
  const ports = spec.ports ?? [];
  const portsPath = SPEC.child('ports');
  const headless = isHeadlessService(spec);

  if (ports.length === 0 && !headless && type !== 'ExternalName') errs.push(required(portsPath));

  switch (type) {
    case 'LoadBalancer':
      ports.forEach((port, i) => {
        if (port.port === KUBELET_PORT) {
          errs.push(
            invalid(
              portsPath.index(i),
              port.port,
              `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`,
            ),
          );
        }
      });
      if (headless) {
        errs.push(invalid(CLUSTER_IPS.index(0), CLUSTER_IP_NONE, "may not be set to 'None' for LoadBalancer services"));
      }
      break;
    case 'NodePort':
      if (headless) {
        errs.push(invalid(CLUSTER_IPS.index(0), CLUSTER_IP_NONE, "may not be set to 'None' for NodePort services"));
      }
      break;
    case 'ExternalName': {
      if ((spec.clusterIPs ?? []).length > 0) {
        errs.push(forbidden(CLUSTER_IPS, 'may not be set for ExternalName services'));
      }
      if ((spec.ipFamilies ?? []).length > 0) {
        errs.push(forbidden(IP_FAMILIES, 'may not be set for ExternalName services'));
      }
      if (spec.ipFamilyPolicy !== undefined) {
        errs.push(forbidden(IP_FAMILY_POLICY, 'may not be set for ExternalName services'));
      }
      // A CNAME may end in a dot to say it is fully qualified; one dot is dropped.
      const externalName = spec.externalName ?? '';
      const cname = externalName.endsWith('.') ? externalName.slice(0, -1) : externalName;
      if (cname.length > 0) {
        for (const msg of isDNS1123Subdomain(cname)) errs.push(invalid(SPEC.child('externalName'), cname, msg));
      } else {
        errs.push(required(SPEC.child('externalName')));
      }
      break;
    }
    default:
      break;
  }

  const allPortNames = new Set<string>();
  ports.forEach((port, i) => {
    errs.push(...validateServicePort(port, ports.length > 1, allPortNames, portsPath.index(i)));
  });

  if (spec.selector !== undefined) errs.push(...validateLabels(spec.selector, SPEC.child('selector')));

  const affinity = spec.sessionAffinity ?? '';
  if (affinity.length === 0) {
    errs.push(required(SPEC.child('sessionAffinity')));
  } else if (!oneOf(SUPPORTED_SESSION_AFFINITIES, affinity)) {
    errs.push(notSupported(SPEC.child('sessionAffinity'), affinity, SUPPORTED_SESSION_AFFINITIES));
  }
  if (affinity === 'ClientIP') {
    errs.push(...validateClientIPAffinityConfig(spec.sessionAffinityConfig, SPEC.child('sessionAffinityConfig')));
  } else if (affinity === 'None' && spec.sessionAffinityConfig !== undefined) {
    // v1 defaulting clears the config when the affinity is None, so only callers that
    // skip defaulting get this one.
    errs.push(forbidden(SPEC.child('sessionAffinityConfig'), 'must not be set when session affinity is None'));
  }

  errs.push(...validateServiceClusterIPsRelatedFields(service));

  (spec.externalIPs ?? []).forEach((ip, i) => {
    const path = SPEC.child('externalIPs').index(i);
    const msgs = isValidIP(ip);
    if (msgs.length > 0) for (const msg of msgs) errs.push(invalid(path, ip, msg));
    else errs.push(...validateNonSpecialIP(ip, path));
  });

  if (type.length === 0) errs.push(required(SPEC.child('type')));
  else if (!oneOf(SUPPORTED_SERVICE_TYPES, type)) {
    errs.push(notSupported(SPEC.child('type'), type, SUPPORTED_SERVICE_TYPES));
  }

  if (type === 'ClusterIP') {
    ports.forEach((port, i) => {
      if ((port.nodePort ?? 0) !== 0) {
        errs.push(forbidden(portsPath.index(i).child('nodePort'), "may not be used when `type` is 'ClusterIP'"));
      }
    });
  }

  // Node ports and ports are each unique per protocol.
  const nodePorts = new Set<string>();
  ports.forEach((port, i) => {
    const nodePort = port.nodePort ?? 0;
    if (nodePort === 0) return;
    const key = `${port.protocol ?? ''}/${nodePort}`;
    if (nodePorts.has(key)) errs.push(duplicate(portsPath.index(i).child('nodePort'), nodePort));
    nodePorts.add(key);
  });
  const seenPorts = new Set<string>();
  ports.forEach((port, i) => {
    const protocol = port.protocol ?? '';
    const key = `${protocol}/${port.port}`;
    if (seenPorts.has(key)) errs.push(duplicate(portsPath.index(i), goServicePortKey(protocol, port.port)));
    seenPorts.add(key);
  });

  errs.push(...validateLoadBalancerSourceRanges(service, spec));

  if (spec.allocateLoadBalancerNodePorts !== undefined && type !== 'LoadBalancer') {
    errs.push(forbidden(SPEC.child('allocateLoadBalancerNodePorts'), "may only be used when `type` is 'LoadBalancer'"));
  }
  if (type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) {
    // Upstream roots this path at the top, without "spec". v1 defaulting sets the field
    // for LoadBalancer, so only undefaulted objects get here.
    errs.push(required(fieldPath('allocateLoadBalancerNodePorts')));
  }

  errs.push(...validateLoadBalancerClassField(undefined, service));
  errs.push(...validateServiceExternalTrafficPolicy(spec));
  errs.push(...validateServiceInternalTrafficFieldsValue(spec));
  errs.push(...validateServiceTrafficDistribution(spec, options));
  return errs;
}

/**
 * validateUpgradeDowngradeClusterIPs: a secondary clusterIP may be added or released (the
 * latter only with ipFamilyPolicy SingleStack), nothing else may change, unless the Service
 * is or was ExternalName, or stays headless.
 */
function validateUpgradeDowngradeClusterIPs(oldService: Service, service: Service): FieldError[] {
  const errs: FieldError[] = [];
  const oldSpec = oldService.spec ?? {};
  const spec = service.spec ?? {};
  if (spec.type === 'ExternalName' || oldSpec.type === 'ExternalName') return errs;
  if (isHeadlessService(oldSpec) && isHeadlessService(spec)) return errs;

  const oldIPs = oldSpec.clusterIPs ?? [];
  const newIPs = spec.clusterIPs ?? [];
  const bad = goStringSlice(spec.clusterIPs);
  if (oldIPs.length === newIPs.length) {
    oldIPs.forEach((ip, i) => {
      if (ip !== newIPs[i]) errs.push(invalid(CLUSTER_IPS.index(i), bad, MAY_NOT_CHANGE));
    });
  } else if (oldIPs.length > newIPs.length) {
    if (newIPs.length === 0) errs.push(invalid(CLUSTER_IPS.index(0), bad, 'primary clusterIP can not be unset'));
    if (oldIPs.length > 0 && newIPs.length > 0 && newIPs[0] !== oldIPs[0]) {
      errs.push(invalid(CLUSTER_IPS.index(0), bad, MAY_NOT_CHANGE));
    }
    if (newIPs.length === 1 && spec.ipFamilyPolicy !== 'SingleStack') {
      errs.push(
        invalid(
          IP_FAMILY_POLICY,
          spec.ipFamilyPolicy ?? null,
          "must be set to 'SingleStack' when releasing the secondary clusterIP",
        ),
      );
    }
  } else if (oldIPs.length > 0 && newIPs[0] !== oldIPs[0]) {
    errs.push(invalid(CLUSTER_IPS.index(0), bad, MAY_NOT_CHANGE));
  }
  return errs;
}

/**
 * validateUpgradeDowngradeIPFamilies, the ipFamilies twin of the clusterIPs rule. Kept as
 * upstream has it: every changed family is reported at index 0, and two of the checks look
 * at clusterIPs (the "unset" test and the bad value printed for a changed primary).
 */
function validateUpgradeDowngradeIPFamilies(oldService: Service, service: Service): FieldError[] {
  const errs: FieldError[] = [];
  const oldSpec = oldService.spec ?? {};
  const spec = service.spec ?? {};
  if (spec.type === 'ExternalName' || oldSpec.type === 'ExternalName') return errs;
  const oldHeadless = isHeadlessService(oldSpec);
  const newHeadless = isHeadlessService(spec);
  if (oldHeadless !== newHeadless || newHeadless) return errs;

  const oldFamilies = oldSpec.ipFamilies ?? [];
  const newFamilies = spec.ipFamilies ?? [];
  const primaryPath = IP_FAMILIES.index(0);
  if (oldFamilies.length === newFamilies.length) {
    oldFamilies.forEach((family, i) => {
      if (family !== newFamilies[i]) errs.push(invalid(primaryPath, goIPFamilySlice(spec.ipFamilies), MAY_NOT_CHANGE));
    });
  } else if (oldFamilies.length > newFamilies.length) {
    if ((spec.clusterIPs ?? []).length === 0) {
      errs.push(invalid(primaryPath, goIPFamilySlice(spec.ipFamilies), 'primary ipFamily can not be unset'));
    }
    if (newFamilies.length > 0 && newFamilies[0] !== oldFamilies[0]) {
      errs.push(invalid(primaryPath, goStringSlice(spec.clusterIPs), MAY_NOT_CHANGE));
    }
    if (newFamilies.length === 1 && spec.ipFamilyPolicy !== 'SingleStack') {
      errs.push(
        invalid(
          IP_FAMILY_POLICY,
          spec.ipFamilyPolicy ?? null,
          "must be set to 'SingleStack' when releasing the secondary ipFamily",
        ),
      );
    }
  } else if (oldFamilies.length > 0 && newFamilies.length > 0 && newFamilies[0] !== oldFamilies[0]) {
    errs.push(invalid(primaryPath, goStringSlice(spec.clusterIPs), MAY_NOT_CHANGE));
  }
  return errs;
}

/** validateServiceExternalTrafficFieldsUpdate: the health check port is fixed while it is needed. */
function validateServiceExternalTrafficFieldsUpdate(oldService: Service, service: Service): FieldError[] {
  if (!needsHealthCheck(oldService.spec) || !needsHealthCheck(service.spec)) return [];
  if ((service.spec?.healthCheckNodePort ?? 0) === (oldService.spec?.healthCheckNodePort ?? 0)) return [];
  return [forbidden(SPEC.child('healthCheckNodePort'), FIELD_IMMUTABLE)];
}

/**
 * ValidateServiceUpdate, on a Service already prepared for the update (see
 * validateServiceUpdate for the whole path): metadata update rules, then the update-only
 * spec rules, then everything ValidateService checks on the new object. Rules that run twice (the
 * loadBalancerClass ones) report twice, as upstream does; the aggregate message drops the
 * repeats.
 */
export function validatePreparedServiceUpdate(service: Service, oldService: Service, options: ServiceValidationOptions = {}): FieldError[] {
  const errs = validateObjectMetaUpdate(service.metadata, oldService.metadata, META);
  errs.push(...validateUpgradeDowngradeClusterIPs(oldService, service));
  errs.push(...validateUpgradeDowngradeIPFamilies(oldService, service));
  errs.push(...validateLoadBalancerClassField(oldService, service));
  errs.push(...validateServiceExternalTrafficFieldsUpdate(oldService, service));
  errs.push(...validateService(service, options));
  return errs;
}

/**
 * ValidateLoadBalancerStatus as v1.32 runs it: LoadBalancerIPMode is GA (on) and the
 * deprecated AllowServiceLBStatusOnNonLB gate is off.
 */
export function validateLoadBalancerStatus(
  status: ServiceStatus['loadBalancer'],
  path: FieldPath,
  spec: ServiceSpec | undefined,
): FieldError[] {
  const errs: FieldError[] = [];
  const ingressPath = path.child('ingress');
  const ingress = status?.ingress ?? [];
  if (spec?.type !== 'LoadBalancer' && ingress.length > 0) {
    return [forbidden(ingressPath, "may only be used when `spec.type` is 'LoadBalancer'")];
  }
  ingress.forEach((entry, i) => {
    const idx = ingressPath.index(i);
    const ip = entry.ip ?? '';
    if (ip.length > 0) for (const msg of isValidIP(ip)) errs.push(invalid(idx.child('ip'), ip, msg));
    if (entry.ipMode === undefined) {
      if (ip.length > 0) errs.push(required(idx.child('ipMode'), 'must be specified when `ip` is set'));
    } else if (ip.length === 0) {
      errs.push(forbidden(idx.child('ipMode'), 'may not be specified when `ip` is not set'));
    } else if (!oneOf(SUPPORTED_LB_IP_MODES, entry.ipMode)) {
      errs.push(notSupported(idx.child('ipMode'), entry.ipMode, SUPPORTED_LB_IP_MODES));
    }
    const hostname = entry.hostname ?? '';
    if (hostname.length > 0) {
      for (const msg of isDNS1123Subdomain(hostname)) errs.push(invalid(idx.child('hostname'), hostname, msg));
      if (parseIPSloppy(hostname).ok) {
        errs.push(invalid(idx.child('hostname'), hostname, 'must be a DNS name, not an IP address'));
      }
    }
  });
  return errs;
}

/** ValidateServiceStatusUpdate: the status strategy keeps the old spec, so only status is checked. */
export function validateServiceStatusUpdate(service: Service, oldService: Service): FieldError[] {
  const errs = validateObjectMetaUpdate(service.metadata, oldService.metadata, META);
  errs.push(
    ...validateLoadBalancerStatus(service.status?.loadBalancer, fieldPath('status', 'loadBalancer'), service.spec),
  );
  return errs;
}

export function sameClusterIPs(a: ServiceSpec, b: ServiceSpec): boolean {
  const x = a.clusterIPs ?? [];
  const y = b.clusterIPs ?? [];
  return x.length === y.length && x.every((ip, i) => ip === y[i]);
}

/**
 * The registry's normalizeClusterIPs, which runs before validation: keeps clusterIP and
 * clusterIPs in step for clients that only know the singular field. Returns a new object;
 * the input is not changed.
 */
export function normalizeServiceClusterIPs(service: Service, oldService?: Service): Service {
  const spec: ServiceSpec = { ...service.spec };
  const clusterIP = spec.clusterIP ?? '';
  if (oldService === undefined) {
    if (clusterIP.length > 0 && (spec.clusterIPs ?? []).length === 0) spec.clusterIPs = [clusterIP];
    return { ...service, spec };
  }
  const oldSpec: ServiceSpec = oldService.spec ?? {};
  const oldClusterIP = oldSpec.clusterIP ?? '';
  // An old client that patched some other field and dropped clusterIPs.
  if ((oldSpec.clusterIPs ?? []).length > 0 && (spec.clusterIPs ?? []).length === 0 && oldClusterIP === clusterIP) {
    spec.clusterIPs = oldSpec.clusterIPs;
  }
  if (oldClusterIP !== clusterIP && sameClusterIPs(oldSpec, spec)) {
    if (oldClusterIP.length > 0 && clusterIP.length === 0) delete spec.clusterIPs;
    else spec.clusterIPs = [clusterIP];
  }
  return { ...service, spec };
}
