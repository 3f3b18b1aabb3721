// "host:port" text as Go's net package writes and reads it (upstream: Go src/net/ipsock.go).
// Endpoints, kube-proxy rule comments and the apiserver's advertise address all print
// IPv6 hosts in brackets this way.

import { ok, type Err, type Result } from '../result.js';
import { netError, type ErrAddr } from './errors.js';

export interface HostPort {
  readonly host: string;
  readonly port: string;
}

/** Go's net.JoinHostPort: brackets the host when it contains a ':' (an IPv6 literal). */
export function joinHostPort(host: string, port: string | number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Go's AddrError text: "address <addr>: <why>", or just <why> for an empty address. */
function addrError(addr: string, why: string): Err<ErrAddr> {
  return netError('ErrAddr', addr === '' ? why : `address ${addr}: ${why}`);
}

/**
 * Go's net.SplitHostPort with its error texts. Like Go it checks only the shape: the host may
 * be a name or carry a zone, the port may be empty or a service name.
 */
export function splitHostPort(hostport: string): Result<HostPort, ErrAddr> {
  const missingPort = 'missing port in address';
  const tooManyColons = 'too many colons in address';
  const colon = hostport.lastIndexOf(':');
  if (colon < 0) return addrError(hostport, missingPort);

  let host: string;
  let noOpenFrom = 0;
  let noCloseFrom = 0;
  if (hostport.startsWith('[')) {
    const end = hostport.indexOf(']');
    if (end < 0) return addrError(hostport, "missing ']' in address");
    if (end + 1 === hostport.length) return addrError(hostport, missingPort);
    if (end + 1 !== colon) {
      return addrError(hostport, hostport[end + 1] === ':' ? tooManyColons : missingPort);
    }
    host = hostport.slice(1, end);
    noOpenFrom = 1;
    noCloseFrom = end + 1;
  } else {
    host = hostport.slice(0, colon);
    if (host.includes(':')) return addrError(hostport, tooManyColons);
  }
  if (hostport.indexOf('[', noOpenFrom) >= 0) return addrError(hostport, "unexpected '[' in address");
  if (hostport.indexOf(']', noCloseFrom) >= 0) return addrError(hostport, "unexpected ']' in address");
  return ok({ host, port: hostport.slice(colon + 1) });
}
