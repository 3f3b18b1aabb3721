// pods/log: the container's log as text/plain, from the node's ContainerRuntime. The options
// are validated first, then the pod is read and the container defaulted and checked; a pod on
// no node has an empty log (LogLocation gives no location and the streamer sends nothing). A
// runtime's refusal is the kubelet's 400, which the apiserver's response checker turns into a
// BadRequest with the kubelet's text. A follow streams until the client goes away.
// upstream (v1.33): pkg/registry/core/pod/rest/log.go (LogREST.Get), pkg/registry/core/pod/strategy.go
//           (LogLocation), staging/src/k8s.io/apiserver/pkg/registry/generic/rest/streamer.go
//           (LocationStreamer: text/plain, flushed when following), .../generic/rest/response_checker.go
//           (GenericHttpResponseChecker), pkg/kubelet/server/server.go (getContainerLogs: 400
//           with the error's text)
import type { ServerResponse } from 'node:http';
import type { Pod } from '@kubesvc/api-types';
import { badRequestError, internalError, type ApiError } from '../../registry/errors.js';
import type { ContainerRuntime, ErrContainerRuntime } from '../container-runtime.js';
import { logOptions, validateContainer, type Checked } from './pod-target.js';

/** The API error the apiserver answers with when the node refused: the kubelet's text as a BadRequest, or an internal error when it could not answer at all. */
export function logRefusal(error: ErrContainerRuntime): ApiError {
  return error.reason === 'Unavailable' ? internalError(error.message) : badRequestError(error.message);
}

/** What serveLog did: an error to answer with, or the response it wrote itself. */
export type LogOutcome = { readonly ok: false; readonly error: ApiError } | { readonly ok: true };

/**
 * Answers a pods/log GET for `pod` (already read; `getPod` is how it is read after the options
 * are checked). Writes `res` itself unless it returns an error.
 */
export async function serveLog(runtime: ContainerRuntime, name: string, query: URLSearchParams, getPod: () => Promise<Checked<Pod>>, res: ServerResponse): Promise<LogOutcome> {
  const options = logOptions(query, name);
  if (!options.ok) return options;
  const pod = await getPod();
  if (!pod.ok) return pod;
  const container = validateContainer(options.value.container, pod.value);
  if (!container.ok) return container;
  const headers = { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private' };
  if ((pod.value.spec?.nodeName ?? '') === '') {
    res.writeHead(200, headers);
    res.end();
    return { ok: true };
  }
  const log = await runtime.logs({ pod: pod.value, container: container.value }, options.value.request);
  if (!log.ok) return { ok: false, error: logRefusal(log.error) };
  const stream = log.value;
  if (res.destroyed) {
    stream.destroy();
    return { ok: true };
  }
  res.writeHead(200, headers);
  if (options.value.request.follow) res.flushHeaders();
  await new Promise<void>((resolve) => {
    const finish = (): void => {
      stream.destroy();
      resolve();
    };
    // The client went away (a follow ends here) or the log ended.
    res.once('close', finish);
    stream.once('error', () => {
      res.destroy();
      finish();
    });
    stream.once('end', () => {
      res.end();
      resolve();
    });
    stream.on('data', (chunk: Buffer | string) => {
      if (!res.write(chunk)) {
        stream.pause();
        res.once('drain', () => stream.resume());
      }
    });
  });
  return { ok: true };
}
