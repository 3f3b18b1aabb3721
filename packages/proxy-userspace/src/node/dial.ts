// One TCP dial with a timeout, as Go's net.DialTimeout does for each attempt of upstream's
// TryConnectEndpoints. upstream: pkg/proxy/userspace/proxysocket.go
import { connect, type Socket } from 'node:net';
import { isValidPortNum, splitHostPort } from '@kubesvc/api-types';
import type { BackendReader } from './splice.js';

/**
 * Resolves with the connected socket, or undefined when the endpoint refused, failed or did
 * not answer within `timeoutMs`. `track` sees the socket as soon as it exists, so that a
 * shutdown can destroy a dial still in flight. The socket's reads go to `reader` (splice.ts).
 */
export function dialTcp(endpoint: string, timeoutMs: number, track: (socket: Socket) => void, reader: BackendReader): Promise<Socket | undefined> {
  const address = endpointAddress(endpoint);
  if (address === undefined) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let settled = false;
    const socket = connect({ host: address.host, port: address.port, allowHalfOpen: true, onread: reader.onread });
    track(socket);
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    const onError = (): void => undefined;
    socket.on('error', onError);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeListener('error', onError);
      settled = true;
      resolve(socket);
    });
    socket.once('close', () => {
      clearTimeout(timer);
      if (!settled) {
        settled = true;
        resolve(undefined);
      }
    });
  });
}

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
