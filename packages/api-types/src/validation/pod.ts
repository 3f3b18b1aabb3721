// Pod validation, limited to the fields this project models.
// upstream (v1.32): pkg/apis/core/validation/validation.go
//   validatePodMetadataAndSpec / ValidatePodCreate (metadata with ValidatePodName),
//   ValidatePodSpec (only: validateDNSPolicy, nodeName, hostname, subdomain),
//   validatePodIPs and validateHostIPs (which ValidatePodStatusUpdate runs)
//
// NOT checked, because the Pod model here does not carry them or they do not bear on
// Service networking: containers and init/ephemeral containers (upstream would report
// `spec.containers: Required value` for a pod without any), volumes, restartPolicy,
// terminationGracePeriodSeconds, securityContext, affinity, tolerations, dnsConfig, host
// aliases, readiness and scheduling gates, resources, pod-specific annotations, and every
// update rule of ValidatePodUpdate (spec immutability and the like). A pod that passes here
// may still be refused by a real apiserver; one refused here is refused there too, with the
// same message for these fields.
import { DNS_POLICIES, type Pod } from '../objects/pod.js';
import { fieldPath } from './field-path.js';
import {
  duplicate,
  goQuote,
  goValue,
  invalid,
  notSupported,
  required,
  type FieldError,
  type GoValue,
} from './field-errors.js';
import { isDNS1123Label, isDualStackIPStrings, isValidIP, validateNodeName, validatePodName } from './names.js';
import { validateObjectMeta } from './object-meta.js';

const META = fieldPath('metadata');
const SPEC = fieldPath('spec');
// validateDNSPolicy lists them in this order (not sorted).

interface PodIPEntry {
  readonly ip: string;
}

/** A []core.PodIP or []core.HostIP as %#v prints it. */
function goIPList(type: 'PodIP' | 'HostIP', entries: readonly PodIPEntry[]): GoValue {
  return goValue(`[]core.${type}{${entries.map((e) => `core.${type}{IP:${goQuote(e.ip)}}`).join(', ')}}`);
}

function validateIPList(type: 'PodIP' | 'HostIP', entries: readonly PodIPEntry[], name: string): FieldError[] {
  const errs: FieldError[] = [];
  const path = fieldPath('status', name);
  entries.forEach((e, i) => {
    for (const msg of isValidIP(e.ip)) errs.push(invalid(path.index(i), e.ip, msg));
  });
  if (entries.length <= 1) return errs;
  const dual = isDualStackIPStrings(entries.map((e) => e.ip));
  // Upstream reports an internal error when an IP does not parse, besides the invalid
  // value below; those IPs were already reported above, so it is left out here.
  const checkDuplicates = (): void => {
    const seen = new Set<string>();
    entries.forEach((e, i) => {
      if (seen.has(e.ip)) errs.push(duplicate(path.index(i), goValue(`core.${type}{IP:${goQuote(e.ip)}}`)));
      seen.add(e.ip);
    });
  };
  const familyError = (): void => {
    if (!dual || entries.length > 2) {
      errs.push(invalid(path, goIPList(type, entries), 'may specify no more than one IP for each IP family'));
    }
  };
  // validatePodIPs checks families then duplicates; validateHostIPs the other way round.
  if (type === 'PodIP') {
    familyError();
    checkDuplicates();
  } else {
    checkDuplicates();
    familyError();
  }
  return errs;
}

/** validatePodIPs and validateHostIPs, as ValidatePodStatusUpdate runs them. */
function validatePodStatusIPs(pod: Pod): FieldError[] {
  const status = pod.status;
  const errs = validateIPList('PodIP', status?.podIPs ?? [], 'podIPs');
  const hostIPs = status?.hostIPs ?? [];
  if (hostIPs.length > 0) {
    const first = hostIPs[0]?.ip ?? '';
    if ((status?.hostIP ?? '') !== first) {
      errs.push(invalid(fieldPath('status', 'hostIPs').index(0).child('ip'), first, 'must be equal to `hostIP`'));
    }
    errs.push(...validateIPList('HostIP', hostIPs, 'hostIPs'));
  }
  return errs;
}

/**
 * The modelled subset of Pod validation, in upstream's order: metadata (name a DNS-1123
 * subdomain), then from ValidatePodSpec dnsPolicy, nodeName, hostname and subdomain, then
 * the status IP rules. Expects a defaulted pod (defaultPod sets dnsPolicy).
 */
export function validatePod(pod: Pod): FieldError[] {
  const errs = validateObjectMeta(pod.metadata, { namespaced: true, validateName: validatePodName }, META);
  const spec = pod.spec ?? {};

  const dnsPolicy = spec.dnsPolicy ?? '';
  if (dnsPolicy.length === 0) errs.push(required(SPEC.child('dnsPolicy')));
  else if (!(DNS_POLICIES as readonly string[]).includes(dnsPolicy)) {
    errs.push(notSupported(SPEC.child('dnsPolicy'), dnsPolicy, DNS_POLICIES));
  }

  const nodeName = spec.nodeName ?? '';
  if (nodeName.length > 0) {
    for (const msg of validateNodeName(nodeName, false)) errs.push(invalid(SPEC.child('nodeName'), nodeName, msg));
  }
  const hostname = spec.hostname ?? '';
  if (hostname.length > 0) {
    for (const msg of isDNS1123Label(hostname)) errs.push(invalid(SPEC.child('hostname'), hostname, msg));
  }
  const subdomain = spec.subdomain ?? '';
  if (subdomain.length > 0) {
    for (const msg of isDNS1123Label(subdomain)) errs.push(invalid(SPEC.child('subdomain'), subdomain, msg));
  }

  errs.push(...validatePodStatusIPs(pod));
  return errs;
}
