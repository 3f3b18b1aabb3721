// The values validation accepts for each enumerated field, taken from the object modules
// and listed the way upstream reports them in `Unsupported value` errors: built with
// sets.New and printed through sets.List, which sorts them.
// upstream: pkg/apis/core/validation/validation.go (supportedPortProtocols,
//           supportedServiceType, ...), pkg/apis/discovery/validation/validation.go
import { ADDRESS_TYPES } from '../objects/endpoint-slice.js';
import {
  IP_FAMILIES,
  IP_FAMILY_POLICIES,
  LOAD_BALANCER_IP_MODES,
  PROTOCOLS,
  SERVICE_TYPES,
  SESSION_AFFINITIES,
  TRAFFIC_POLICIES,
} from '../objects/service.js';

const sortedList = (values: readonly string[]): readonly string[] => [...values].sort();

export const SUPPORTED_PROTOCOLS = sortedList(PROTOCOLS);
export const SUPPORTED_SERVICE_TYPES = sortedList(SERVICE_TYPES);
export const SUPPORTED_SESSION_AFFINITIES = sortedList(SESSION_AFFINITIES);
export const SUPPORTED_IP_FAMILIES = sortedList(IP_FAMILIES);
export const SUPPORTED_IP_FAMILY_POLICIES = sortedList(IP_FAMILY_POLICIES);
export const SUPPORTED_TRAFFIC_POLICIES = sortedList(TRAFFIC_POLICIES);
export const SUPPORTED_LB_IP_MODES = sortedList(LOAD_BALANCER_IP_MODES);
export const SUPPORTED_ADDRESS_TYPES = sortedList(ADDRESS_TYPES);
