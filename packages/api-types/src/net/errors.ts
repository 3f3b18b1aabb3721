// The errors of the net helpers: Go's net.ParseError and AddrError, and k8s.io/utils/net's
// subnet errors, as tagged values (the Result convention of ../result.ts). `message` is the
// text Go or k8s.io/utils/net prints.
import { err, type Err, type TaggedError } from '../result.js';

/** Go's net.ParseError for an "IP address": `invalid IP address: <s>`. */
export type ErrInvalidIP = TaggedError<'ErrInvalidIP'>;

/** Go's net.ParseError for a "CIDR address": `invalid CIDR address: <s>` (and parseCIDRStrict's host-bits text). */
export type ErrInvalidCIDR = TaggedError<'ErrInvalidCIDR'>;

/** k8s.io/utils/net GetIndexedIP's error: the offset is outside the block. */
export type ErrSubnetTooSmall = TaggedError<'ErrSubnetTooSmall'>;

/** offsetOf: the block does not contain the address. */
export type ErrNotInSubnet = TaggedError<'ErrNotInSubnet'>;

/** Go's net.AddrError, as net.SplitHostPort returns it: `address <addr>: <why>`. */
export type ErrAddr = TaggedError<'ErrAddr'>;

/** Any error of the net helpers. */
export type NetError = ErrInvalidIP | ErrInvalidCIDR | ErrSubnetTooSmall | ErrNotInSubnet | ErrAddr;

export function netError<Tag extends NetError['_tag']>(tag: Tag, message: string): Err<TaggedError<Tag>> {
  return err({ _tag: tag, message });
}
