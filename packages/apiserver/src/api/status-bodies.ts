// The Status bodies the HTTP layer answers with itself, outside the registry: a missing or
// wrong token, a path no route serves and a method a route does not take.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go
//           (Unauthorized: reason Unauthorized, message "Unauthorized"),
//           staging/src/k8s.io/apiserver/pkg/server/mux/pathrecorder.go and
//           staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go NewGenericServerResponse
//           (404 "the server could not find the requested resource", 405 "the server does not
//           allow this method on the requested resource" with go-restful's text as cause),
import type { ApiStatus } from '@kubesvc/api-types';
import { methodNotAllowedError } from '../registry/errors.js';

export function unauthorizedStatus(): ApiStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
}

export function pathNotFoundStatus(): ApiStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 };
}

/** The 405 body: the same Status the registry's methodNotAllowedError carries. */
export function methodNotAllowedStatus(): ApiStatus {
  return methodNotAllowedError().status;
}
