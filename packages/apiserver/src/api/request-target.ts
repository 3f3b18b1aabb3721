// The request target as the apiserver routes it: the path as the client wrote it, its percent
// escapes decoded (Go's url.URL.Path), split at `/`, and nothing resolved. A WHATWG URL parser
// (`new URL`) would fold `..`, `.`, `%2e%2e` and friends into their parent before routing, so
// that `DELETE .../namespaces/victim/services/%2e%2e` named the namespace itself and
// `DELETE .../services/web/..` the whole collection. Go's HTTP server hands the path to the
// apiserver's router as written and the REST handlers refuse a name that is `.` or `..` (or
// holds `/` or `%`) with a BadRequest.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go (the path split
//           at `/`, no cleaning), staging/src/k8s.io/apimachinery/pkg/api/validation/path/name.go
//           (IsValidPathSegmentName), staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go
//           (NamespaceKeyFunc, NoNamespaceKeyFunc: "Name parameter invalid: %q: %s")
import { goQuote } from '@kubesvc/api-types';
import { badRequestError, type ApiError } from '../registry/errors.js';

export interface RequestTarget {
  /** The path as written, without the query. */
  readonly rawPath: string;
  /** The path with its percent escapes decoded, as Go's url.URL.Path holds it. */
  readonly path: string;
  /** The decoded path's segments after the leading `/`. */
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
}

const utf8 = new TextDecoder('utf-8');

/**
 * Percent escapes decoded (`%2F` too, as Go's url.PathUnescape does); undefined when a `%` is
 * not followed by two hex digits (Go's url parser refuses the whole request then). Bytes that
 * are not UTF-8 decode to U+FFFD instead of failing: Go keeps them as bytes, which name nothing
 * that exists either.
 */
export function decodePath(text: string): string | undefined {
  if (!/[%\u0080-\uffff]/.test(text)) return text;
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x25) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c < 0x80) {
      bytes.push(c);
    } else {
      // Node hands header text over as latin1: one byte per character.
      bytes.push(c & 0xff);
    }
  }
  return utf8.decode(Uint8Array.from(bytes));
}

/**
 * The target of a request line: origin form (`/path?query`) or absolute form
 * (`http://host/path?query`, which HTTP/1.1 servers must accept); undefined for anything else
 * or for a malformed percent escape in the path.
 */
export function parseRequestTarget(target: string): RequestTarget | undefined {
  let rest = target;
  const absolute = /^https?:\/\/[^/?]*/i.exec(rest);
  if (absolute !== null) {
    rest = rest.slice(absolute[0].length);
    if (rest === '' || rest.startsWith('?')) rest = `/${rest}`;
  }
  if (!rest.startsWith('/')) return undefined;
  const q = rest.indexOf('?');
  const rawPath = q < 0 ? rest : rest.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : rest.slice(q + 1));
  const path = decodePath(rawPath);
  if (path === undefined) return undefined;
  return { rawPath, path, segments: path.slice(1).split('/'), query };
}

/** Why `name` cannot be a path segment, as IsValidPathSegmentName words it; empty when it can. */
export function pathSegmentNameErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errors: string[] = [];
  if (name.includes('/')) errors.push(`may not contain '/'`);
  if (name.includes('%')) errors.push(`may not contain '%'`);
  return errors;
}

/** The registry's refusal of a name from the URL that is not a safe path segment, or undefined. */
export function invalidNameError(name: string): ApiError | undefined {
  const errors = pathSegmentNameErrors(name);
  return errors.length === 0 ? undefined : badRequestError(`Name parameter invalid: ${goQuote(name)}: ${errors.join(';')}`);
}
