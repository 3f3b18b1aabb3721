// The service IP range the apiserver runs with, and the IP of its own "kubernetes" Service.
// The rule (at least 8 addresses, network + 1) is api-types' serviceIPOfRange, which its
// parser of the flag (parseServiceNetworking) applies; this is the allocator's entry to it.
// upstream: pkg/controlplane/apiserver/options/options.go ServiceIPRange (earlier
//           pkg/controlplane/services.go, pkg/master/services.go),
//           pkg/kubeapiserver/options DefaultServiceIPCIDR, k8s.io/utils/net GetIndexedIP
import {
  DEFAULT_SERVICE_IP_CIDR,
  err,
  ok,
  parseCIDR,
  parseCIDRSloppy,
  serviceIPOfRange,
  type AllocatorError,
  type CIDR,
  type IP,
  type Result,
  describeValue,
} from '@kubesvc/api-types';
import { isCIDRValue } from './input-shape.js';

export { DEFAULT_SERVICE_IP_CIDR } from '@kubesvc/api-types';

/** An error of --service-cluster-ip-range (serviceIPRange, newIPAllocators), with upstream's text. */
export type ErrServiceIPRange = AllocatorError<'ErrServiceIPRange'>;

/** The service CIDR and the API server's service IP in it. */
export type ServiceIPRangeResult = Result<{ readonly cidr: CIDR; readonly apiServerServiceIP: IP }, ErrServiceIPRange>;

function rangeError(message: string): Result<never, ErrServiceIPRange> {
  return err({ _tag: 'ErrServiceIPRange', message });
}

function defaultRange(): CIDR {
  const parsed = parseCIDR(DEFAULT_SERVICE_IP_CIDR);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value.cidr;
}

/**
 * The range and the API server's service IP, network + 1. Unset ('' or undefined) means
 * 10.0.0.0/24. A string is read as the flag is (ParseCIDRSloppy). min(RangeSize, 65536) must be
 * at least 8: /29 and /125 are the smallest ranges accepted, and /0 and /1 are refused
 * because RangeSize is 0 for them.
 */
export function serviceIPRange(passed?: CIDR | string): ServiceIPRangeResult {
  let cidr: CIDR;
  if (passed === undefined || passed === '') {
    cidr = defaultRange();
  } else if (typeof passed === 'string') {
    const parsed = parseCIDRSloppy(passed);
    if (!parsed.ok) return rangeError(parsed.error.message);
    cidr = parsed.value.cidr;
  } else if (isCIDRValue(passed)) {
    cidr = passed;
  } else {
    return rangeError(`serviceIPRange: expected a CIDR or its text, got ${describeValue(passed)}`);
  }
  const first = serviceIPOfRange(cidr);
  if (!first.ok) return rangeError(first.error.message);
  return ok({ cidr, apiServerServiceIP: first.value });
}
