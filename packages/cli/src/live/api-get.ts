// One GET against the API server a kubeconfig names, over HTTPS with its CA and bearer token
// (kubectl sends a token only over TLS, and `kubesvc up` serves only TLS). Bounded in time.
// The failures are the command's: a server that does not answer, and a Status from the server
// worded as kubectl words it (`Error from server (NotFound): pods "web" not found`).
import { spawnSync } from 'node:child_process';
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
  const credentials = credentialsOf(target);
  if (!credentials.ok) return Promise.reject(credentials.error);
  const { ca, cert, key, token } = credentials.value;
  const headers: Record<string, string> = { accept: 'application/json' };
  // As kubectl: the token only over TLS.
  if (token !== undefined && url.protocol === 'https:') headers['authorization'] = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const tls = url.protocol === 'https:' ? { ...(ca === undefined ? {} : { ca }), ...(cert === undefined ? {} : { cert }), ...(key === undefined ? {} : { key }), rejectUnauthorized: !target.insecureSkipTLSVerify } : {};
    const options = { method: 'GET', headers, timeout: TIMEOUT_MS, ...tls };
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

interface Credentials {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
}

function readPem(file: string, what: string): { ok: true; value: string } | { ok: false; error: CliError } {
  try {
    return { ok: true, value: readFileSync(file, 'utf8') };
  } catch {
    return { ok: false, error: usageError(`the kubeconfig's ${what} ${file} cannot be read`) };
  }
}

/** How long an exec credential plugin may run. */
const EXEC_TIMEOUT_MS = 30_000;

/**
 * An exec plugin's ExecCredential: its token, or its client certificate and key. Run with
 * KUBERNETES_EXEC_INFO as client-go sets it (not interactive).
 * upstream (v1.33): staging/src/k8s.io/client-go/plugin/pkg/client/auth/exec/exec.go
 */
function execCredential(plugin: NonNullable<KubeconfigTarget['exec']>): { ok: true; value: Credentials } | { ok: false; error: CliError } {
  const info = JSON.stringify({ apiVersion: plugin.apiVersion, kind: 'ExecCredential', spec: { interactive: false } });
  const r = spawnSync(plugin.command, [...plugin.args], { encoding: 'utf8', timeout: EXEC_TIMEOUT_MS, env: { ...process.env, ...plugin.env, KUBERNETES_EXEC_INFO: info }, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error !== undefined || r.status !== 0) {
    const why = r.error !== undefined ? r.error.message : `exit status ${String(r.status)}: ${r.stderr.trim()}`;
    return { ok: false, error: new ErrInput(`getting credentials: exec: executable ${plugin.command} failed: ${why}`) };
  }
  try {
    const status = (JSON.parse(r.stdout) as { status?: { token?: string; clientCertificateData?: string; clientKeyData?: string } }).status ?? {};
    if (status.token === undefined && (status.clientCertificateData === undefined || status.clientKeyData === undefined)) {
      return { ok: false, error: new ErrInput(`getting credentials: exec plugin ${plugin.command} returned neither a token nor a client certificate and key`) };
    }
    return {
      ok: true,
      value: {
        ...(status.token === undefined ? {} : { token: status.token }),
        ...(status.clientCertificateData === undefined ? {} : { cert: status.clientCertificateData }),
        ...(status.clientKeyData === undefined ? {} : { key: status.clientKeyData }),
      },
    };
  } catch {
    return { ok: false, error: new ErrInput(`getting credentials: exec plugin ${plugin.command} did not print an ExecCredential`) };
  }
}

/** The CA, client certificate and key, and token a request uses, read from the files they name. */
function credentialsOf(target: KubeconfigTarget): { ok: true; value: Credentials } | { ok: false; error: CliError } {
  const read = (inline: string | undefined, file: string | undefined, what: string): { ok: true; value: string | undefined } | { ok: false; error: CliError } =>
    inline !== undefined || file === undefined ? { ok: true, value: inline } : readPem(file, what);
  const ca = read(target.ca, target.caFile, 'certificate-authority');
  if (!ca.ok) return ca;
  const cert = read(target.clientCert, target.clientCertFile, 'client-certificate');
  if (!cert.ok) return cert;
  const key = read(target.clientKey, target.clientKeyFile, 'client-key');
  if (!key.ok) return key;
  const tokenFromFile = read(target.token, target.tokenFile, 'tokenFile');
  if (!tokenFromFile.ok) return tokenFromFile;
  let out: Credentials = {
    ...(ca.value === undefined ? {} : { ca: ca.value }),
    ...(cert.value === undefined ? {} : { cert: cert.value }),
    ...(key.value === undefined ? {} : { key: key.value }),
    ...(tokenFromFile.value === undefined ? {} : { token: tokenFromFile.value.trim() }),
  };
  if (target.exec !== undefined && out.token === undefined && out.cert === undefined) {
    const exec = execCredential(target.exec);
    if (!exec.ok) return exec;
    out = { ...out, ...exec.value };
  }
  return { ok: true, value: out };
}
