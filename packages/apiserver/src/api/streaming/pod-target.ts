// What the apiserver checks before it hands a pod's log, exec, attach or port-forward to the
// node: the pod exists, the container is named or can be defaulted and belongs to the pod, the
// pod has a node; and the options as the query carries them (PodLogOptions, PodExecOptions,
// PodAttachOptions, PodPortForwardOptions).
// upstream (v1.33): pkg/registry/core/pod/strategy.go (LogLocation, ExecLocation,
//           AttachLocation, PortForwardLocation, streamLocation, validateContainer),
//           pkg/apis/core/validation/validation.go (ValidatePodLogOptions),
//           staging/src/k8s.io/apimachinery/pkg/runtime/conversion.go (Convert_Slice_string_To_bool,
//           Convert_Slice_string_To_int64: how a query value becomes an option)
import type { Pod } from '@kubesvc/api-types';
import { badRequestError, invalidError, type ApiError } from '../../registry/errors.js';
import type { ExecRequest, LogRequest } from '../container-runtime.js';

export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ApiError };

const good = <T>(value: T): Checked<T> => ({ ok: true, value });
const bad = (error: ApiError): Checked<never> => ({ ok: false, error });

interface ContainerLike {
  readonly name: string;
}

/** Every container of the pod by name, as VisitContainers visits them: init containers, containers, ephemeral containers. */
export function containerNames(pod: Pod): string[] {
  const spec = (pod.spec ?? {}) as { initContainers?: readonly ContainerLike[]; containers?: readonly ContainerLike[]; ephemeralContainers?: readonly ContainerLike[] };
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])].map((c) => c.name);
}

/**
 * The container a request names, or the pod's only one when it names none. The errors are
 * upstream's BadRequests: no container to default to, several to choose from (init and
 * ephemeral containers listed too, Go's `[a b]`), or a name the pod does not have.
 */
export function validateContainer(container: string, pod: Pod): Checked<string> {
  const name = pod.metadata.name ?? '';
  if (container === '') {
    const containers = (pod.spec as { containers?: readonly ContainerLike[] } | undefined)?.containers ?? [];
    if (containers.length === 1) return good(containers[0]?.name ?? '');
    if (containers.length === 0) return bad(badRequestError(`a container name must be specified for pod ${name}`));
    return bad(badRequestError(`a container name must be specified for pod ${name}, choose one of: [${containerNames(pod).join(' ')}]`));
  }
  if (!containerNames(pod).includes(container)) return bad(badRequestError(`container ${container} is not valid for pod ${name}`));
  return good(container);
}

/** The refusal of a stream (exec, attach, port-forward) to a pod that no node runs. */
export function noHostError(name: string): ApiError {
  return badRequestError(`pod ${name} does not have a host assigned`);
}

/** A query flag as the parameter codec reads it: absent is false; the first value is true unless it is `0` or `false` (any case). */
export function queryBool(query: URLSearchParams, key: string): boolean {
  const values = query.getAll(key);
  if (values.length === 0) return false;
  const v = (values[0] ?? '').toLowerCase();
  return v !== '0' && v !== 'false';
}

/** A query integer as the parameter codec reads it (Go's ParseInt text when it is none); undefined when absent or empty. */
function queryInt(query: URLSearchParams, key: string): Checked<number | undefined> {
  const values = query.getAll(key);
  const v = values[0];
  if (v === undefined || v === '') return good(undefined);
  if (!/^[+-]?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) return bad(badRequestError(`strconv.ParseInt: parsing "${v}": ${/^[+-]?\d+$/.test(v) ? 'value out of range' : 'invalid syntax'}`));
  return good(Number(v));
}

/** PodLogOptions from the query, validated as ValidatePodLogOptions does (a 422 `PodLogOptions "x" is invalid`). */
export function logOptions(query: URLSearchParams, podName: string): Checked<{ container: string; request: LogRequest }> {
  const tailLines = queryInt(query, 'tailLines');
  if (!tailLines.ok) return tailLines;
  const sinceSeconds = queryInt(query, 'sinceSeconds');
  if (!sinceSeconds.ok) return sinceSeconds;
  const limitBytes = queryInt(query, 'limitBytes');
  if (!limitBytes.ok) return limitBytes;
  const sinceTime = query.get('sinceTime') ?? '';
  if (sinceTime !== '' && Number.isNaN(Date.parse(sinceTime))) return bad(badRequestError(`parsing time "${sinceTime}" as "2006-01-02T15:04:05Z07:00": cannot parse "${sinceTime}" as "2006"`));
  const errors: { type: 'FieldValueInvalid' | 'FieldValueForbidden'; field: string; badValue?: number; detail: string }[] = [];
  if (tailLines.value !== undefined && tailLines.value < 0) errors.push({ type: 'FieldValueInvalid', field: 'tailLines', badValue: tailLines.value, detail: 'must be greater than or equal to 0' });
  if (limitBytes.value !== undefined && limitBytes.value < 1) errors.push({ type: 'FieldValueInvalid', field: 'limitBytes', badValue: limitBytes.value, detail: 'must be greater than 0' });
  if (sinceSeconds.value !== undefined && sinceTime !== '') errors.push({ type: 'FieldValueForbidden', field: '', detail: 'at most one of `sinceTime` or `sinceSeconds` may be specified' });
  else if (sinceSeconds.value !== undefined && sinceSeconds.value < 1) errors.push({ type: 'FieldValueInvalid', field: 'sinceSeconds', badValue: sinceSeconds.value, detail: 'must be greater than 0' });
  if (errors.length > 0) return bad(invalidError('PodLogOptions', podName, errors));
  return good({
    container: query.get('container') ?? '',
    request: {
      follow: queryBool(query, 'follow'),
      previous: queryBool(query, 'previous'),
      timestamps: queryBool(query, 'timestamps'),
      ...(tailLines.value === undefined ? {} : { tailLines: tailLines.value }),
      ...(sinceSeconds.value === undefined ? {} : { sinceSeconds: sinceSeconds.value }),
      ...(sinceTime === '' ? {} : { sinceTime }),
      ...(limitBytes.value === undefined ? {} : { limitBytes: limitBytes.value }),
    },
  });
}

/** PodExecOptions (`command` given) or PodAttachOptions from the query. */
export function streamOptions(query: URLSearchParams): { container: string; request: ExecRequest } {
  return {
    container: query.get('container') ?? '',
    request: {
      command: query.getAll('command'),
      stdin: queryBool(query, 'stdin'),
      stdout: queryBool(query, 'stdout'),
      stderr: queryBool(query, 'stderr'),
      tty: queryBool(query, 'tty'),
    },
  };
}
