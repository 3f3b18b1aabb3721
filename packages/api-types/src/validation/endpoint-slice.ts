// EndpointSlice (discovery.k8s.io/v1) validation on create and update.
// upstream (v1.32): pkg/apis/discovery/validation/validation.go
//   ValidateEndpointSlice, ValidateEndpointSliceCreate, ValidateEndpointSliceUpdate,
//   validateEndpoints, validatePorts, validateAddressType, validateHints
// upstream (v1.32): staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go
//   IsFullyQualifiedDomainName; .../validation/ip.go IsValidIPv4Address, IsValidIPv6Address
//
// Limits are upstream's: 1000 endpoints, 100 addresses per endpoint, 20000 ports (raised
// from 100 in v1.21, kubernetes PR 99795), 16 deprecatedTopology labels, 8 zone hints.
// Port numbers, conditions, zone and targetRef are not validated upstream. The
// kubernetes.io/service-name label is checked only as a label.
import type { DiscoveryEndpoint, DiscoveryEndpointPort, EndpointSlice } from '../objects/endpoint-slice.js';
import { fieldPath, type FieldPath } from './field-path.js';
import {
  duplicate,
  internal,
  invalid,
  notSupported,
  required,
  tooMany,
  type FieldError,
} from './field-errors.js';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidIPv4Address,
  isValidIPv6Address,
  isValidLabelValue,
  validateEndpointSliceName,
  validateNodeName,
} from './names.js';
import { FIELD_IMMUTABLE, validateLabels, validateObjectMeta } from './object-meta.js';
import { validateNonSpecialIP } from './service.js';
import { SUPPORTED_ADDRESS_TYPES, SUPPORTED_PROTOCOLS } from './supported-values.js';

const META = fieldPath('metadata');
const ADDRESS_TYPE = fieldPath('addressType');

// Upstream's sets.String.List() output: sorted.
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;
const MAX_ENDPOINTS = 1000;
const MAX_ZONE_HINTS = 8;
// upstream: corev1.LabelTopologyZone. v1beta1 conversion moves it out of the topology map;
// the v1 conversion does not, so a v1 slice that carries it fails with an internal error.
const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';

/** IsFullyQualifiedDomainName: at least two DNS labels, one trailing dot allowed. */
function isFullyQualifiedDomainName(path: FieldPath, name: string): FieldError[] {
  if (name.length === 0) return [required(path)];
  const trimmed = name.endsWith('.') ? name.slice(0, -1) : name;
  const subdomainErrs = isDNS1123Subdomain(trimmed);
  if (subdomainErrs.length > 0) return [invalid(path, trimmed, subdomainErrs.join(','))];
  const labels = trimmed.split('.');
  if (labels.length < 2) {
    return [invalid(path, trimmed, 'should be a domain with at least two segments separated by dots')];
  }
  for (const label of labels) {
    const labelErrs = isDNS1123Label(label);
    if (labelErrs.length > 0) return [invalid(path, label, labelErrs.join(','))];
  }
  return [];
}

function validateAddress(address: string, addressType: string, path: FieldPath): FieldError[] {
  // Unknown address types were reported by validateAddressType; their addresses are not
  // checked.
  switch (addressType) {
    case 'IPv4':
      return [
        ...isValidIPv4Address(address).map((msg) => invalid(path, address, msg)),
        ...validateNonSpecialIP(address, path),
      ];
    case 'IPv6':
      return [
        ...isValidIPv6Address(address).map((msg) => invalid(path, address, msg)),
        ...validateNonSpecialIP(address, path),
      ];
    case 'FQDN':
      return isFullyQualifiedDomainName(path, address);
    default:
      return [];
  }
}

function validateHints(hints: NonNullable<DiscoveryEndpoint['hints']>, path: FieldPath): FieldError[] {
  const zonesPath = path.child('forZones');
  const zones = hints.forZones ?? [];
  if (zones.length > MAX_ZONE_HINTS) return [tooMany(zonesPath, zones.length, MAX_ZONE_HINTS)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  zones.forEach((zone, i) => {
    const namePath = zonesPath.index(i).child('name');
    if (seen.has(zone.name)) errs.push(duplicate(namePath, zone.name));
    else seen.add(zone.name);
    for (const msg of isValidLabelValue(zone.name)) errs.push(invalid(namePath, zone.name, msg));
  });
  return errs;
}

function validateEndpoints(
  endpoints: readonly DiscoveryEndpoint[],
  addressType: string,
  path: FieldPath,
): FieldError[] {
  if (endpoints.length > MAX_ENDPOINTS) return [tooMany(path, endpoints.length, MAX_ENDPOINTS)];
  const errs: FieldError[] = [];
  endpoints.forEach((endpoint, i) => {
    const idx = path.index(i);
    const addressesPath = idx.child('addresses');
    if (endpoint.addresses.length === 0) {
      errs.push(required(addressesPath, 'must contain at least 1 address'));
    } else if (endpoint.addresses.length > MAX_ADDRESSES) {
      errs.push(tooMany(addressesPath, endpoint.addresses.length, MAX_ADDRESSES));
    }
    endpoint.addresses.forEach((address, j) => {
      errs.push(...validateAddress(address, addressType, addressesPath.index(j)));
    });

    if (endpoint.nodeName !== undefined) {
      const nodeName = endpoint.nodeName;
      for (const msg of validateNodeName(nodeName, false)) errs.push(invalid(idx.child('nodeName'), nodeName, msg));
    }

    const topologyPath = idx.child('deprecatedTopology');
    const topology = endpoint.deprecatedTopology ?? {};
    const topologySize = Object.keys(topology).length;
    if (topologySize > MAX_TOPOLOGY_LABELS) errs.push(tooMany(topologyPath, topologySize, MAX_TOPOLOGY_LABELS));
    errs.push(...validateLabels(topology, topologyPath));
    if (Object.hasOwn(topology, LABEL_TOPOLOGY_ZONE)) {
      errs.push(internal(topologyPath.key(LABEL_TOPOLOGY_ZONE), 'reserved key was not removed in conversion'));
    }

    if (endpoint.hostname !== undefined) {
      const hostname = endpoint.hostname;
      for (const msg of isDNS1123Label(hostname)) errs.push(invalid(idx.child('hostname'), hostname, msg));
    }
    if (endpoint.hints !== undefined) errs.push(...validateHints(endpoint.hints, idx.child('hints')));
  });
  return errs;
}

function validatePorts(ports: readonly DiscoveryEndpointPort[], path: FieldPath): FieldError[] {
  if (ports.length > MAX_PORTS) return [tooMany(path, ports.length, MAX_PORTS)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const idx = path.index(i);
    // Defaulting makes the name "" when absent; upstream dereferences it unconditionally.
    const name = port.name ?? '';
    if (name.length > 0) {
      for (const msg of isDNS1123Label(name)) errs.push(invalid(idx.child('name'), name, msg));
    }
    // Unlike Service ports, an empty name counts: two unnamed ports are duplicates.
    if (names.has(name)) errs.push(duplicate(idx.child('name'), name));
    else names.add(name);
    if (port.protocol === undefined) {
      errs.push(required(idx.child('protocol')));
    } else if (!SUPPORTED_PROTOCOLS.includes(port.protocol)) {
      errs.push(notSupported(idx.child('protocol'), port.protocol, SUPPORTED_PROTOCOLS));
    }
    if (port.appProtocol !== undefined) {
      const appProtocol = port.appProtocol;
      for (const msg of isQualifiedName(appProtocol)) errs.push(invalid(idx.child('appProtocol'), appProtocol, msg));
    }
  });
  return errs;
}

function validateAddressType(addressType: string): FieldError[] {
  if (addressType.length === 0) return [required(ADDRESS_TYPE)];
  if (!SUPPORTED_ADDRESS_TYPES.includes(addressType)) {
    return [notSupported(ADDRESS_TYPE, addressType, SUPPORTED_ADDRESS_TYPES)];
  }
  return [];
}

/** ValidateEndpointSlice (= ValidateEndpointSliceCreate) on a defaulted slice. */
export function validateEndpointSlice(slice: EndpointSlice): FieldError[] {
  const errs = validateObjectMeta(slice.metadata, { namespaced: true, validateName: validateEndpointSliceName }, META);
  errs.push(...validateAddressType(slice.addressType));
  errs.push(...validateEndpoints(slice.endpoints ?? [], slice.addressType, fieldPath('endpoints')));
  errs.push(...validatePorts(slice.ports ?? [], fieldPath('ports')));
  return errs;
}

/**
 * ValidateEndpointSliceUpdate: the full create-time checks on the new slice, then
 * addressType immutability. Unlike the core kinds, upstream does not run the ObjectMeta
 * update rules here; the generic registry's BeforeUpdate (validateCommonFields) runs them
 * for every kind before the strategy, which is outside object validation.
 */
export function validateEndpointSliceUpdate(slice: EndpointSlice, oldSlice: EndpointSlice): FieldError[] {
  const errs = validateEndpointSlice(slice);
  if (slice.addressType !== oldSlice.addressType) {
    errs.push(invalid(ADDRESS_TYPE, slice.addressType, FIELD_IMMUTABLE));
  }
  return errs;
}

