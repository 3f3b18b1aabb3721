// The page's only network use: its own server's /ui/api/ paths, with the token from the link's
// fragment as a bearer token. The model arrives as server-sent events over fetch (EventSource
// cannot send an Authorization header).
import type { ExplorerModel, NodeMatrixAnswer, NodeMatrixRequest, ReplayAnswer, ReplayRequest, TraceAnswer, TraceRequest } from '../src/explorer-model.js';

const TOKEN_KEY = 'kubesvc-explorer-token';

/**
 * Takes the token out of the address (into session storage), so it is not left on screen,
 * and keeps the rest of it: `#token=T` opens the Services, `#/rules?service=a&token=T` the rule
 * graph of `a`, as a link to any page may carry the token.
 */
export function readToken(): string {
  const hash = location.hash.replace(/^#/, '');
  const [path = '', query = ''] = hash.startsWith('token=') ? ['', hash] : hash.split('?');
  const params = new URLSearchParams(query);
  const token = params.get('token');
  if (token !== null) {
    sessionStorage.setItem(TOKEN_KEY, token);
    params.delete('token');
    const rest = params.toString();
    history.replaceState(null, '', `${location.pathname}#${path === '' ? '/services' : path}${rest === '' ? '' : `?${rest}`}`);
    return token;
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

function headers(token: string): HeadersInit {
  return token === '' ? {} : { Authorization: `Bearer ${token}` };
}

/** `?node=NAME` for a Node of the source, '' for none. */
function nodeQuery(node: string): string {
  return node === '' ? '' : `?${new URLSearchParams({ node }).toString()}`;
}

/**
 * Calls `onModel` with every model the server sends (as kube-proxy on `node` when not ''), and
 * reconnects after a second when the stream ends.
 */
export function followModel(token: string, node: string, onModel: (model: ExplorerModel) => void, onStatus: (status: string) => void): () => void {
  let stopped = false;
  let controller = new AbortController();
  const run = async (): Promise<void> => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const res = await fetch(`api/events${nodeQuery(node)}`, { headers: headers(token), signal: controller.signal });
        if (res.status === 401) {
          onStatus('unauthorized: open the link printed at startup (it carries the token)');
          return;
        }
        if (res.status === 404) {
          const body = (await res.json()) as { error?: { message?: string } };
          onStatus(body.error?.message ?? `HTTP ${res.status}`);
          return;
        }
        if (!res.ok || res.body === null) throw new Error(`HTTP ${res.status}`);
        onStatus('live');
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end = buffer.indexOf('\n\n');
          while (end >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = event
              .split('\n')
              .filter((line) => line.startsWith('data: '))
              .map((line) => line.slice(6))
              .join('\n');
            if (data !== '') onModel(JSON.parse(data) as ExplorerModel);
            end = buffer.indexOf('\n\n');
          }
        }
      } catch (error) {
        if (stopped) return;
        onStatus(`disconnected (${error instanceof Error ? error.message : String(error)}), retrying`);
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller.abort();
  };
}

export async function runTrace(token: string, request: TraceRequest): Promise<TraceAnswer> {
  const query = new URLSearchParams({ source: request.source, destination: request.destination, protocol: request.protocol });
  if (request.node !== undefined && request.node !== '') query.set('node', request.node);
  const res = await fetch(`api/trace?${query.toString()}`, { headers: headers(token) });
  return (await res.json()) as TraceAnswer;
}

/** One packet traced as sent on each of the source's Nodes. */
export async function runMatrix(token: string, request: NodeMatrixRequest): Promise<NodeMatrixAnswer> {
  const query = new URLSearchParams({ source: request.source, destination: request.destination, protocol: request.protocol, nodePort: String(request.nodePort) });
  const res = await fetch(`api/matrix?${query.toString()}`, { headers: headers(token) });
  return (await res.json()) as NodeMatrixAnswer;
}

/** Real requests from a pod that is a network namespace, counted by the pod that answers each. */
export async function runReplay(token: string, request: ReplayRequest): Promise<ReplayAnswer> {
  const query = new URLSearchParams({ from: request.from, destination: request.destination, protocol: request.protocol, count: String(request.count) });
  const res = await fetch(`api/replay?${query.toString()}`, { headers: headers(token) });
  return (await res.json()) as ReplayAnswer;
}
