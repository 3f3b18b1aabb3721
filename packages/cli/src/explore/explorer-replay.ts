// The explorer's replay under `kubesvc up --dataplane netns`: real HTTP requests sent from a pod
// that is a network namespace, through the container runtime's exec (the host's curl run in the
// pod's namespace, as `kubectl exec POD -- curl -s --max-time 3 http://DEST/hostname` would),
// each answer's body naming the pod that served it. A few requests run at a time, and the
// whole replay ends within a bound: what is not sent by then counts as a failure.
import type { Pod } from '@kubesvc/api-types';
import type { ContainerRuntime } from '@kubesvc/apiserver';
import type { ReplayAnswer, ReplayRequest } from '@kubesvc/explorer';

export interface ReplayOptions {
  readonly runtime: Pick<ContainerRuntime, 'exec'>;
  /** The pod as the cluster stores it now. */
  readonly pod: (namespace: string, name: string) => Pod | undefined;
  /** Whether the pod is a running network namespace. */
  readonly isSandbox: (pod: Pod) => boolean;
  /** Requests in flight at once. Default 4. */
  readonly concurrency?: number;
  /** No request starts after this many ms from the replay's start. Default 60 000. */
  readonly boundMs?: number;
}

/** curl's own limit on each request, in seconds. */
const REQUEST_SECONDS = 3;
/** A request's process is killed this long after it started, whatever curl does. */
const KILL_AFTER_MS = (REQUEST_SECONDS + 2) * 1000;
const MAX_REASONS = 5;

/** Why curl failed, for its commonest exits. */
const CURL_EXITS: Readonly<Record<number, string>> = {
  6: 'could not resolve the host',
  7: 'connection refused',
  28: `no answer within ${String(REQUEST_SECONDS)} s`,
  52: 'empty reply',
  56: 'connection reset',
};

type One = { readonly ok: true; readonly pod: string } | { readonly ok: false; readonly reason: string };

async function sendOne(runtime: ReplayOptions['runtime'], pod: Pod, container: string, url: string): Promise<One> {
  const started = await runtime.exec({ pod, container }, { command: ['curl', '-s', '--max-time', String(REQUEST_SECONDS), url], stdin: false, stdout: true, stderr: false, tty: false });
  if (!started.ok) return { ok: false, reason: started.error.message };
  const proc = started.value;
  const killer = setTimeout(() => proc.kill(), KILL_AFTER_MS);
  try {
    let out = '';
    proc.stdout?.setEncoding('utf8');
    proc.stdout?.on('data', (chunk: string) => {
      if (out.length < 4096) out += chunk;
    });
    const status = await proc.exited;
    if ('signal' in status) return { ok: false, reason: `curl killed (${status.signal})` };
    if (status.exitCode !== 0) return { ok: false, reason: `curl exit ${String(status.exitCode)}${CURL_EXITS[status.exitCode] === undefined ? '' : `: ${CURL_EXITS[status.exitCode] ?? ''}`}` };
    const name = out.split('\n')[0]?.trim() ?? '';
    return name === '' ? { ok: false, reason: 'an answer with an empty body' } : { ok: true, pod: name };
  } finally {
    clearTimeout(killer);
  }
}

/** The pod's first container (an exec names one; any of them shares the pod's namespace). */
function firstContainer(pod: Pod): string {
  const list = (pod.spec as Record<string, unknown> | undefined)?.['containers'];
  const first: unknown = Array.isArray(list) ? list[0] : undefined;
  const name = typeof first === 'object' && first !== null ? (first as Record<string, unknown>)['name'] : undefined;
  return typeof name === 'string' ? name : '';
}

/** Sends the request's `count` GETs of /hostname from its pod, and counts the answers by pod. */
export async function replayFromPod(request: ReplayRequest, options: ReplayOptions): Promise<ReplayAnswer> {
  const [namespace = '', name = ''] = request.from.split('/');
  const pod = options.pod(namespace, name);
  if (pod === undefined) return { ok: false, error: { _tag: 'ErrExplorerReplay', message: `pod ${JSON.stringify(request.from)} not found` } };
  if (!options.isSandbox(pod)) return { ok: false, error: { _tag: 'ErrExplorerReplay', message: `pod ${JSON.stringify(request.from)} is not a running network namespace` } };
  const container = firstContainer(pod);
  const url = `http://${request.destination}/hostname`;
  const bound = options.boundMs ?? 60_000;
  const start = performance.now();
  const counts = new Map<string, number>();
  const reasons: string[] = [];
  let failures = 0;
  let next = 0;
  const fail = (reason: string): void => {
    failures++;
    if (reasons.length < MAX_REASONS) reasons.push(reason);
  };
  const worker = async (): Promise<void> => {
    while (next < request.count) {
      next++;
      if (performance.now() - start > bound) {
        fail(`not sent: the replay's bound of ${String(bound / 1000)} s passed`);
        continue;
      }
      const one = await sendOne(options.runtime, pod, container, url);
      if (one.ok) counts.set(one.pod, (counts.get(one.pod) ?? 0) + 1);
      else fail(one.reason);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 4, request.count) }, worker));
  const answers = [...counts].map(([p, count]) => ({ pod: p, count })).sort((a, b) => b.count - a.count || (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0));
  return { ok: true, value: { from: request.from, destination: request.destination, count: request.count, answers, failures, failureReasons: reasons } };
}
