// One TCP dial with a timeout, as Go's net.DialTimeout does for each attempt of upstream's
// TryConnectEndpoints. upstream: pkg/proxy/userspace/proxysocket.go
import { connect, type Socket } from 'node:net';
import { splitHostPort } from '@kubesvc/api-types';

/**
 * Resolves with the connected socket, or undefined when the endpoint refused, failed or did
 * not answer within `timeoutMs`. `track` sees the socket as soon as it exists, so that a
 * shutdown can destroy a dial still in flight.
 */
export function dialTcp(endpoint: string, timeoutMs: number, track: (socket: Socket) => void): Promise<Socket | undefined> {
  const split = splitHostPort(endpoint);
  const port = split.ok ? Number(split.value.port) : NaN;
  if (!split.ok || !Number.isInteger(port)) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let settled = false;
    const socket = connect({ host: split.value.host, port, allowHalfOpen: true });
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
