// Which listen addresses the API may serve on without TLS and a token. A loopback address is
// reachable from this host only; any other address (0.0.0.0 and :: included) is reachable from
// the network, where a token sent in clear text, or no token at all, would hand the cluster to
// anyone on the path.
// upstream: kube-apiserver serves its API on --bind-address:--secure-port over TLS only, with
// authentication; its plain-HTTP port (--insecure-bind-address, default 127.0.0.1) was meant
// for loopback and is gone since 1.20 (staging/src/k8s.io/apiserver/pkg/server/options/serving.go).
import { isIP } from 'node:net';
import { TaggedErrorClass } from '@kubesvc/api-types';

/**
 * What startApiServer throws when insecureBindError refuses its options: switch on `_tag` or
 * `instanceof`, not on the message. `code` stays `EINSECUREBIND` beside the listen errors' codes.
 */
export class ErrInsecureBind extends TaggedErrorClass('ErrInsecureBind')<{ readonly code: 'EINSECUREBIND' }> {}

/** True for 127.0.0.0/8, ::1, the IPv4-mapped 127/8, and the name `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (h.toLowerCase() === 'localhost') return true;
  const family = isIP(h);
  if (family === 4) return h.split('.')[0] === '127';
  if (family === 6) {
    const lower = h.toLowerCase();
    if (lower === '::1' || /^(0{1,4}:){7}0{0,3}1$/.test(lower)) return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    return mapped !== null && (mapped[1] ?? '').split('.')[0] === '127';
  }
  return false;
}

/**
 * The refusal for serving on `host` as configured, or undefined when it may. Off loopback the
 * API needs both TLS and a non-empty token.
 */
export function insecureBindError(host: string, hasTls: boolean, token: string): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  const missing = [...(hasTls ? [] : ['TLS (a serving certificate and key)']), ...(token === '' ? ['a bearer token'] : [])];
  if (missing.length === 0) return undefined;
  return `refusing to serve the API on ${host}, which is not a loopback address, without ${missing.join(' and ')}: bind a loopback address (127.0.0.1) or give both`;
}
