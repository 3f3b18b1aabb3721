// One GET against the API server a kubeconfig names, over HTTPS with its CA and bearer token
// (kubectl sends a token only over TLS, and `kubesvc up` serves only TLS). Bounded in time.
// The failures are the command's: a server that does not answer, and a Status from the server
// worded as kubectl words it (`Error from server (NotFound): pods "web" not found`).
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { ErrApiStatus, ErrInput, usageError, type CliError } from '../cli-error.js';
import type { KubeconfigTarget } from './kubeconfig.js';

const TIMEOUT_MS = 10_000;

/** A failure the server answered with (a Status): its reason and message, and the HTTP code. */
function apiStatusError(status: number, reason: string, message: string): ErrApiStatus {
  return new ErrApiStatus(`Error from server (${reason}): ${message}`, { status, reason });
}

function statusOf(status: number, body: string): ErrApiStatus {
  try {
    const parsed = JSON.parse(body) as { kind?: unknown; reason?: unknown; message?: unknown };
    if (parsed.kind === 'Status' && typeof parsed.message === 'string') {
      return apiStatusError(status, typeof parsed.reason === 'string' && parsed.reason !== '' ? parsed.reason : 'Unknown', parsed.message);
    }
  } catch {
    // Not a Status: described by its code below.
  }
  return apiStatusError(status, 'Unknown', `the server answered ${status}: ${body.slice(0, 200)}`);
}

function unreachable(target: KubeconfigTarget, error: unknown): CliError {
  const code = (error as { code?: unknown }).code;
  const why =
    code === 'ECONNREFUSED'
      ? 'connection refused'
      : code === 'ETIMEDOUT' || code === 'ETIMEOUT'
        ? `no answer within ${TIMEOUT_MS / 1000} s`
        : error instanceof Error
          ? error.message
          : String(error);
  return new ErrInput(`cannot reach the API server at ${target.server}: ${why}; is \`kubesvc up\` running (and is this the kubeconfig it wrote)?`);
}

/** GET `path` (`/api/v1/...`) and its JSON body; throws CliError on any failure. */
export function apiGet(target: KubeconfigTarget, path: string): Promise<unknown> {
  let url: URL;
  try {
    url = new URL(path, `${target.server}/`);
  } catch {
    return Promise.reject(usageError(`the kubeconfig's server "${target.server}" is not a URL`));
  }
  let ca = target.ca;
  if (ca === undefined && target.caFile !== undefined) {
    try {
      ca = readFileSync(target.caFile, 'utf8');
    } catch {
      return Promise.reject(usageError(`the kubeconfig's certificate-authority ${target.caFile} cannot be read`));
    }
  }
  const headers: Record<string, string> = { accept: 'application/json' };
  // As kubectl: the token only over TLS.
  if (target.token !== undefined && url.protocol === 'https:') headers['authorization'] = `Bearer ${target.token}`;
  return new Promise((resolve, reject) => {
    const options = { method: 'GET', headers, timeout: TIMEOUT_MS, ...(url.protocol === 'https:' ? { ...(ca === undefined ? {} : { ca }), rejectUnauthorized: !target.insecureSkipTLSVerify } : {}) };
    const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', (error) => reject(unreachable(target, error)));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          reject(statusOf(status, body));
          return;
        }
        try {
          resolve(JSON.parse(body) as unknown);
        } catch {
          reject(new ErrInput(`the API server at ${target.server} answered ${path} with something that is not JSON`));
        }
      });
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (error) => reject(unreachable(target, error)));
    req.end();
  });
}
