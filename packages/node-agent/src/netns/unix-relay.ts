// The kubesvc side of the pod network's relay: Unix socket paths, reachable from the relay in
// the pod network's host namespace (filesystem Unix sockets cross network namespaces), each
// piping every connection to a TCP port of this process on the loopback (the API, the cluster
// DNS's TCP side). No server of kubesvc binds an address outside 127.0.0.1 for it.
import { mkdirSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

export interface UnixRelayTarget {
  /** The socket's file name in the relay folder. */
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

export interface UnixRelays {
  /** The socket path of each target, by name. */
  readonly paths: Readonly<Record<string, string>>;
  close(): Promise<void>;
}

/** Listens on `<dir>/<name>` for each target (the folder made owner-only, emptied first). */
export async function startUnixRelays(dir: string, targets: readonly UnixRelayTarget[]): Promise<UnixRelays> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const paths: Record<string, string> = {};
  const closeAll = async (): Promise<void> => {
    for (const s of sockets) s.destroy();
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const target of targets) {
      const path = join(dir, target.name);
      const server = createServer((inbound) => {
        const outbound = connect({ host: target.host, port: target.port });
        sockets.add(inbound);
        sockets.add(outbound);
        const close = (): void => {
          inbound.destroy();
          outbound.destroy();
          sockets.delete(inbound);
          sockets.delete(outbound);
        };
        inbound.on('error', close).on('close', close);
        outbound.on('error', close).on('close', close);
        inbound.pipe(outbound);
        outbound.pipe(inbound);
      });
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(path, () => resolve());
      });
      paths[target.name] = path;
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return { paths, close: () => (closing ??= closeAll()) };
}
