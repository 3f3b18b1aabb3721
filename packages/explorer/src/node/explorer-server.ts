// The standalone server of `kubesvc explore`: the explorer handler alone, over plain HTTP on a
// loopback address, with its own bearer token (the page reads it from the link's fragment).
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EXPLORER_PREFIX, type ExplorerHandler } from './explorer-handler.js';

export interface ExplorerServerOptions {
  readonly handler: ExplorerHandler;
  readonly token: string;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
}

export interface ExplorerServer {
  /** `http://host:port` */
  readonly url: string;
  /** The page, with the token in the fragment (never sent to the server). */
  readonly pageURL: string;
  close(): Promise<void>;
}

function authorized(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice('Bearer '.length).trim());
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** The page link with the token in its fragment, for a server at `baseURL`. */
export function explorerLink(baseURL: string, token: string): string {
  return `${baseURL}${EXPLORER_PREFIX}#token=${encodeURIComponent(token)}`;
}

export async function startExplorerServer(options: ExplorerServerOptions): Promise<ExplorerServer> {
  const { handler, token } = options;
  const host = options.host ?? '127.0.0.1';
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/' || url.pathname === EXPLORER_PREFIX.slice(0, -1)) {
      res.writeHead(302, { Location: EXPLORER_PREFIX });
      res.end();
      return;
    }
    if (!url.pathname.startsWith(EXPLORER_PREFIX)) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('not found: the explorer is at /ui/\n');
      return;
    }
    if (!handler.isPublic(url.pathname) && !authorized(req, token)) {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: 'Unauthorized' }));
      return;
    }
    handler.handle(req, res, url).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: error instanceof Error ? error.message : String(error) }));
    });
  };
  const server = createServer(onRequest);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    pageURL: explorerLink(url, token),
    close: async () => {
      handler.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
