// Errors of the round-robin balancer, as values with upstream's exact text.
// upstream: pkg/proxy/userspace/roundrobin.go (ErrMissingServiceEntry, ErrMissingEndpoints,
// the "malformed source address" error of NextEndpoint), pkg/proxy/userspace/proxysocket.go
// (the error of TryConnectEndpoints after the last attempt)

export interface ErrMissingServiceEntry {
  readonly _tag: 'ErrMissingServiceEntry';
  readonly message: 'missing service entry';
}

export interface ErrMissingEndpoints {
  readonly _tag: 'ErrMissingEndpoints';
  readonly message: 'missing endpoints';
}

export interface ErrMalformedSourceAddress {
  readonly _tag: 'ErrMalformedSourceAddress';
  readonly message: string;
}

/**
 * An argument of the wrong shape (from JavaScript or unchecked JSON): not upstream's, whose Go
 * types rule it out; the message names the part.
 */
export interface ErrUserspaceInput {
  readonly _tag: 'ErrUserspaceInput';
  readonly message: string;
}

export type NextEndpointError = ErrMissingServiceEntry | ErrMissingEndpoints | ErrMalformedSourceAddress | ErrUserspaceInput;

export const errMissingServiceEntry: ErrMissingServiceEntry = { _tag: 'ErrMissingServiceEntry', message: 'missing service entry' };
export const errMissingEndpoints: ErrMissingEndpoints = { _tag: 'ErrMissingEndpoints', message: 'missing endpoints' };

export function errMalformedSourceAddress(addr: string, why: string): ErrMalformedSourceAddress {
  return { _tag: 'ErrMalformedSourceAddress', message: `malformed source address ${JSON.stringify(addr)}: ${why}` };
}

/**
 * The text TryConnectEndpoints returns when every attempt failed. Versions up to about v1.18
 * ended it with a period; the structured-logging rewrite (v1.21+, so v1.25) dropped it.
 */
export const FAILED_TO_CONNECT_MESSAGE = 'failed to connect to an endpoint';
