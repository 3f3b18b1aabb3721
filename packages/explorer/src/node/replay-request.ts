// The replay's query (`from=NAMESPACE/POD&destination=IP:PORT&protocol=tcp&count=N`), checked
// before the source is asked: the source only sees a request it can send.
import { err, ok, type Result } from '@kubesvc/api-types';
import type { ErrExplorerReplay, ReplayRequest } from '../explorer-model.js';

export const REPLAY_DEFAULT_COUNT = 20;
export const REPLAY_MAX_COUNT = 200;

const bad = (message: string): Result<never, ErrExplorerReplay> => err({ _tag: 'ErrExplorerReplay', message });

/** A host (an IP, `[IPv6]`, or a DNS name) and a port from 1 to 65535. */
const DESTINATION = /^(\[[0-9A-Fa-f:.]+\]|[0-9A-Za-z.-]+):([0-9]{1,5})$/;

export function replayRequestOf(q: URLSearchParams): Result<ReplayRequest, ErrExplorerReplay> {
  const from = q.get('from') ?? '';
  const parts = from.split('/');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return bad(`from ${JSON.stringify(from)}: NAMESPACE/POD`);
  const protocol = q.get('protocol') ?? 'tcp';
  // Each request is an HTTP GET whose answer names the pod: UDP has no such answer to count.
  if (protocol !== 'tcp') return bad(`protocol ${JSON.stringify(protocol)}: a replay sends HTTP requests over tcp only`);
  const destination = q.get('destination') ?? '';
  const m = DESTINATION.exec(destination);
  const port = Number(m?.[2] ?? '0');
  if (m === null || port < 1 || port > 65535) return bad(`destination ${JSON.stringify(destination)}: IP:PORT`);
  const countText = q.get('count');
  const count = countText === null || countText === '' ? REPLAY_DEFAULT_COUNT : /^[0-9]{1,4}$/.test(countText) ? Number(countText) : Number.NaN;
  if (!(count >= 1 && count <= REPLAY_MAX_COUNT)) return bad(`count ${JSON.stringify(countText)}: 1 to ${String(REPLAY_MAX_COUNT)}`);
  return ok({ from, destination, protocol: 'tcp', count });
}
