// The service IP range the apiserver runs with, and the IP of its own "kubernetes" Service.
// upstream: pkg/controlplane/services.go ServiceIPRange (earlier pkg/master/services.go),
//           pkg/kubeapiserver/options DefaultServiceIPCIDR, k8s.io/utils/net GetIndexedIP
import { err, getIndexedIP, ok, parseCIDR, parseCIDRSloppy, rangeSize, type AllocatorError, type CIDR, type IP, type Result, describeValue } from '@kubesvc/api-types';
import { isCIDRValue } from './input-shape.js';

/** upstream kubeoptions.DefaultServiceIPCIDR, used when --service-cluster-ip-range is unset. */
export const DEFAULT_SERVICE_IP_CIDR = '10.0.0.0/24';

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
  const size = rangeSize(cidr);
  if ((size < 65536n ? size : 65536n) < 8n) {
    return rangeError('the service cluster IP range must be at least 8 IP addresses');
  }
  const first = getIndexedIP(cidr, 1);
  if (!first.ok) return rangeError(first.error.message);
  return ok({ cidr, apiServerServiceIP: first.value });
}
