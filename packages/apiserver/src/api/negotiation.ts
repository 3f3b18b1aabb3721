// Content negotiation for the API's requests: which body media types a write may have, whether
// an Accept header allows JSON (the only answer this server writes) or asks for a Table, and
// the Table's includeObject.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation/negotiate.go
import type { IncomingMessage } from 'node:http';
import { err, ok } from '@kubesvc/api-types';
import type { BodyMediaType } from '../registry/decode.js';
import { decodesProtobuf } from '../registry/decode.js';
import { unsupportedMediaTypeError } from '../registry/errors.js';
import { PROTOBUF_MEDIA_TYPE } from '../registry/protobuf/envelope.js';
import type { ResourceInfo } from '../registry/resources.js';
import type { Parsed } from './query-options.js';
import type { IncludeObject } from './table-hook.js';

/** Whether the Accept header asks for a meta.k8s.io/v1 Table. */
export function wantsTable(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((part) => {
    const params = part
      .split(';')
      .slice(1)
      .map((p) => p.trim());
    return params.includes('as=Table') && params.includes('g=meta.k8s.io') && params.includes('v=v1');
  });
}

export function includeObjectOf(query: URLSearchParams): IncludeObject | undefined {
  const v = query.get('includeObject');
  return v === 'None' || v === 'Metadata' || v === 'Object' ? v : undefined;
}

/**
 * The media types a create or update body may have: JSON, and Kubernetes' protobuf for the
 * kinds the registry has messages for (kubectl's typed clients send it: `kubectl create
 * service`, `create namespace`). A body in any other type is a 415 naming them, as the
 * apiserver answers for a type it has no serializer for.
 * upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation/negotiate.go
 *           (NegotiateInputSerializerForMediaType)
 */
function bodyMediaTypes(info: ResourceInfo): readonly BodyMediaType[] {
  return decodesProtobuf(info) ? ['application/json', PROTOBUF_MEDIA_TYPE] : ['application/json'];
}

/** The body's media type without parameters, lower-cased; undefined when there is none. */
export function contentMediaType(req: IncomingMessage): string | undefined {
  const header = req.headers['content-type'];
  if (header === undefined || header === '') return undefined;
  const semicolon = header.indexOf(';');
  return (semicolon >= 0 ? header.slice(0, semicolon) : header).trim().toLowerCase();
}

export function bodyMediaType(req: IncomingMessage, info: ResourceInfo): Parsed<BodyMediaType> {
  const media = contentMediaType(req);
  if (media === undefined || media === '*/*') return ok('application/json');
  const accepted = bodyMediaTypes(info);
  return (accepted as readonly string[]).includes(media) ? ok(media as BodyMediaType) : err(unsupportedMediaTypeError(accepted));
}

/** What this server writes: JSON only (a Table is JSON too). */
export const RESPONSE_MEDIA_TYPES = ['application/json'] as const;

/**
 * Whether the Accept header allows a JSON answer: no header, or a clause for application/json,
 * application/* or *\/* whose parameters the server can honour (`stream` other than watch, or a
 * server version `sv`, rule a clause out). Clients that accept protobuf list JSON after it
 * (client-go: `application/vnd.kubernetes.protobuf,application/json`); one that accepts only
 * protobuf gets a 406.
 * upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation/negotiate.go
 *           (NegotiateMediaTypeOptions, acceptMediaTypeOptions)
 */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((clause) => {
    const [media = '', ...params] = clause.split(';').map((p) => p.trim());
    const [type = '', subtype = ''] = media.toLowerCase().split('/');
    const matches = (type === 'application' && (subtype === 'json' || subtype === '*')) || (type === '*' && subtype === '*') || media === '*';
    if (!matches) return false;
    return params.every((p) => {
      const eq = p.indexOf('=');
      const key = (eq < 0 ? p : p.slice(0, eq)).trim().toLowerCase();
      const value = eq < 0 ? '' : p.slice(eq + 1).trim();
      if (key === 'stream') return value === '' || value === 'watch';
      if (key === 'sv') return value === '';
      return true;
    });
  });
}

