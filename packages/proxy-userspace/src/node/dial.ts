// Where an endpoint string can be dialled, checked as Go's Dial checks it before any socket
// exists. upstream: pkg/proxy/userspace/proxysocket.go (TryConnectEndpoints)
import { isValidPortNum, splitHostPort } from '@kubesvc/api-types';

/**
 * The host and port of an endpoint string, or undefined when it cannot be dialled. Go's Dial
 * returns an error for a port outside 1–65535 or not a number, so upstream's proxy counts a
 * failed attempt; Node's connect() throws instead, which inside a socket callback would
 * take the whole proxy down, so the port is checked before any socket exists.
 */
export function endpointAddress(endpoint: string): { readonly host: string; readonly port: number } | undefined {
  const split = splitHostPort(endpoint);
  if (!split.ok || !/^[0-9]{1,5}$/.test(split.value.port)) return undefined;
  const port = Number(split.value.port);
  return isValidPortNum(port).length === 0 ? { host: split.value.host, port } : undefined;
}
