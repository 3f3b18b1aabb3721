export type { ErrAddr, ErrInvalidCIDR, ErrInvalidIP, ErrNotInSubnet, ErrSubnetTooSmall, NetError } from './errors.js';
export type { IP, IPVersion } from './ip.js';
export {
  compareIP,
  familyBits,
  familyName,
  formatIP,
  ipEquals,
  ipFamily,
  ipFromBigInt,
  ipv4FromNumber,
  isIPv4,
  isIPv6,
  MAPPED_BASE,
  parseIP,
  parseIPSloppy,
} from './ip.js';
export {
  isGlobalUnicast,
  isInterfaceLocalMulticast,
  isLinkLocalMulticast,
  isLinkLocalUnicast,
  isLoopback,
  isMulticast,
  isPrivate,
  isUnspecified,
} from './ip-classify.js';
export type { CIDR, ParsedCIDR } from './cidr.js';
export {
  cidrContains,
  cidrEquals,
  cidrFamily,
  cidrFromIP,
  formatCIDR,
  parseCIDR,
  parseCIDRSloppy,
  parseCIDRStrict,
} from './cidr.js';
export { cidrLastValue, cidrSize, cidrSizeCapped, rangeSize } from './cidr-size.js';
export { addressAtOffset, getIndexedIP, offsetOf } from './cidr-offset.js';
export type { HostPort } from './host-port.js';
export { joinHostPort, splitHostPort } from './host-port.js';
