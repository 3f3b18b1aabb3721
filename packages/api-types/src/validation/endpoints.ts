// Endpoints validation on create and update, with upstream's messages in upstream's order.
// upstream (v1.32): pkg/apis/core/validation/validation.go
//   ValidateEndpoints, ValidateEndpointsCreate, ValidateEndpointsUpdate, validateEndpointSubsets,
//   validateEndpointAddress, validateEndpointPort, ValidateNonSpecialIP, ValidateEndpointsName
//
// The Endpoints strategy does nothing else before validating (no status, no allocation),
// so a defaulted object (defaultEndpoints fills port protocols) is what the apiserver sees.
import type { EndpointAddress, EndpointPort, Endpoints, EndpointSubset } from '../objects/endpoints.js';
import { fieldPath, type FieldPath } from './field-path.js';
import { invalid, notSupported, required, type FieldError } from './field-errors.js';
import {
  isDNS1123Label,
  isQualifiedName,
  isValidIP,
  isValidPortNum,
  validateEndpointsName,
  validateNodeName,
} from './names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './object-meta.js';
import { validateNonSpecialIP } from './service.js';
import { SUPPORTED_PROTOCOLS } from './supported-values.js';

const META = fieldPath('metadata');
// upstream: supportedPortProtocols, reported through sets.List (sorted)

function validateEndpointAddress(address: EndpointAddress, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ipPath = path.child('ip');
  for (const msg of isValidIP(address.ip)) errs.push(invalid(ipPath, address.ip, msg));
  const hostname = address.hostname ?? '';
  if (hostname.length > 0) {
    for (const msg of isDNS1123Label(hostname)) errs.push(invalid(path.child('hostname'), hostname, msg));
  }
  // nodeName is a pointer upstream: present-but-empty is checked (and fails), absent is not.
  if (address.nodeName !== undefined) {
    const nodeName = address.nodeName;
    for (const msg of validateNodeName(nodeName, false)) errs.push(invalid(path.child('nodeName'), nodeName, msg));
  }
  // Runs even after the IP failed to parse, which is why a bad IP reports twice.
  errs.push(...validateNonSpecialIP(address.ip, ipPath));
  return errs;
}

function validateEndpointPort(port: EndpointPort, requireName: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = port.name ?? '';
  if (requireName && name.length === 0) {
    errs.push(required(path.child('name')));
  } else if (name.length > 0) {
    for (const msg of isDNS1123Label(name)) errs.push(invalid(path.child('name'), name, msg));
  }
  for (const msg of isValidPortNum(port.port)) errs.push(invalid(path.child('port'), port.port, msg));
  const protocol = port.protocol ?? '';
  if (protocol.length === 0) {
    errs.push(required(path.child('protocol')));
  } else if (!SUPPORTED_PROTOCOLS.includes(protocol)) {
    errs.push(notSupported(path.child('protocol'), protocol, SUPPORTED_PROTOCOLS));
  }
  if (port.appProtocol !== undefined) {
    const appProtocol = port.appProtocol;
    for (const msg of isQualifiedName(appProtocol)) errs.push(invalid(path.child('appProtocol'), appProtocol, msg));
  }
  return errs;
}

function validateEndpointSubsets(subsets: readonly EndpointSubset[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  subsets.forEach((subset, i) => {
    const idx = path.index(i);
    const addresses = subset.addresses ?? [];
    const notReady = subset.notReadyAddresses ?? [];
    const ports = subset.ports ?? [];
    // Ports may be empty (headless Services), addresses may not.
    if (addresses.length === 0 && notReady.length === 0) {
      errs.push(required(idx, 'must specify `addresses` or `notReadyAddresses`'));
    }
    addresses.forEach((a, j) => errs.push(...validateEndpointAddress(a, idx.child('addresses').index(j))));
    notReady.forEach((a, j) => errs.push(...validateEndpointAddress(a, idx.child('notReadyAddresses').index(j))));
    ports.forEach((p, j) => errs.push(...validateEndpointPort(p, ports.length > 1, idx.child('ports').index(j))));
  });
  return errs;
}

/**
 * ValidateEndpoints (= ValidateEndpointsCreate). Subset paths start at `subsets`, not
 * `spec.subsets`: Endpoints has no spec.
 */
export function validateEndpoints(endpoints: Endpoints): FieldError[] {
  const errs = validateObjectMeta(
    endpoints.metadata,
    { namespaced: true, validateName: validateEndpointsName },
    META,
  );
  errs.push(...validateEndpointSubsets(endpoints.subsets ?? [], fieldPath('subsets')));
  return errs;
}

/**
 * ValidateEndpointsUpdate: metadata update rules, then the full create-time checks. A
 * nodeName may change (node IPs and pod CIDRs get reused).
 */
export function validateEndpointsUpdate(endpoints: Endpoints, oldEndpoints: Endpoints): FieldError[] {
  const errs = validateObjectMetaUpdate(endpoints.metadata, oldEndpoints.metadata, META);
  errs.push(...validateEndpoints(endpoints));
  return errs;
}
