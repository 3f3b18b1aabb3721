// The continue token of a paged list: upstream's encoding, and where a page resumes.
// upstream: staging/src/k8s.io/apiserver/pkg/storage/continue.go
import { isRecord } from './common.js';

/**
 * upstream storage.EncodeContinue: unpadded base64url of {"v":"meta.k8s.io/v1","rv":N,"start":K},
 * K the next key relative to the list's key prefix.
 */
export function encodeContinue(rv: number, key: string, prefix: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: key.slice(prefix.length) })).toString('base64url');
}

/**
 * upstream storage.DecodeContinue: the absolute start key and revision, or undefined for a
 * token that is not one; a start key that path.Clean would change (one that climbs out of
 * the prefix with `..`) is refused.
 */
export function decodeContinue(token: string, prefix: string): { readonly rv: number; readonly start: string } | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (!isRecord(parsed) || parsed['v'] !== 'meta.k8s.io/v1') return undefined;
    const { rv, start } = parsed;
    if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv <= 0 || typeof start !== 'string' || start === '') return undefined;
    const key = start.startsWith('/') ? start : `/${start}`;
    if (!isCleanPath(key)) return undefined;
    return { rv, start: prefix + key.slice(1) };
  } catch {
    return undefined;
  }
}

/** Whether Go's path.Clean leaves an absolute path as it is: no empty, `.` or `..` segments, no trailing slash. */
function isCleanPath(key: string): boolean {
  if (key === '/') return true;
  return key
    .slice(1)
    .split('/')
    .every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/** Where a list page starts: the revision and key a continue token names, nothing for a first page, or 'invalid'. */
export function resumePoint(token: string | undefined, prefix: string): { revision: number | undefined; start: string | undefined } | 'invalid' {
  if (token === undefined || token === '') return { revision: undefined, start: undefined };
  const decoded = decodeContinue(token, prefix);
  return decoded === undefined ? 'invalid' : { revision: decoded.rv, start: decoded.start };
}
