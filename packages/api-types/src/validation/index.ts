// The public API of object validation. Named re-exports only, so that what the package
// promises is visible in one place.
export type {
  ApiStatus,
  ApiStatusCause,
  ApiStatusDetails,
  FieldError,
  FieldErrorType,
  GroupKindInput,
} from './field-errors.js';
export {
  GoValue,
  dedupeFieldErrors,
  duplicate,
  errorBody,
  forbidden,
  goQuote,
  goStringSlice,
  goValue,
  internal,
  invalid,
  invalidError,
  notFound,
  notSupported,
  renderAggregate,
  renderBadValue,
  renderFieldError,
  required,
  tooLong,
  tooMany,
} from './field-errors.js';
export { FieldPath, fieldPath } from './field-path.js';
export type { ValidateNameFunc } from './names.js';
export {
  emptyError,
  inclusiveRangeError,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isInRange,
  isQualifiedName,
  isValidCIDR,
  isValidCIDRStrict,
  isValidIP,
  isValidIPStrict,
  isValidIPv4Address,
  isValidIPv6Address,
  isValidLabelValue,
  isValidPortName,
  isValidPortNum,
  maxLenError,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  regexError,
  validateEndpointSliceName,
  validateEndpointsName,
  validateNamespaceName,
  validateNodeName,
  validatePathSegmentName,
  validatePodName,
  validateServiceName,
} from './names.js';
export type { ObjectMetaInput, ObjectMetaOptions } from './object-meta.js';
export { validateAnnotations, validateLabels, validateObjectMeta, validateObjectMetaUpdate } from './object-meta.js';
export {
  isHeadlessService,
  needsHealthCheck,
  normalizeServiceClusterIPs,
  validateLoadBalancerStatus,
  validateNonSpecialIP,
  validateService,
  validateServiceClusterIPsRelatedFields,
  validateServiceStatusUpdate,
  validatePreparedServiceUpdate,
} from './service.js';
export type { ServiceValidationOptions } from './service.js';
export { validateEndpoints, validateEndpointsUpdate } from './endpoints.js';
export { validateEndpointSlice, validateEndpointSliceUpdate } from './endpoint-slice.js';
export { validateNamespace, validateNamespaceStatusUpdate, validateNamespaceUpdate } from './namespace.js';
export { validatePod } from './pod.js';
export { validateNode, validateNodeUpdate } from './node.js';
export {
  validateIPAddress,
  validateIPAddressName,
  validateIPAddressUpdate,
  validateServiceCIDR,
  validateServiceCIDRName,
  validateServiceCIDRStatusUpdate,
  validateServiceCIDRUpdate,
} from './service-cidr.js';
export type { ErrInvalid } from './validate.js';
export { errInvalid, groupKindOf, invalidMessage, invalidStatus, validateObject } from './validate.js';
export type { ServiceClusterConfig, ServiceRequestResult } from './service-request.js';
export { validateServiceCreate, validateServiceUpdate } from './service-request.js';
export { validateDeployment, validateDeploymentStatusUpdate, validateReplicaSet, validateReplicaSetStatusUpdate, goLabelSelector } from './apps.js';
