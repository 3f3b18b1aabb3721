// A dump read from a running API server instead of a file: the lists `kubectl get
// svc,endpoints,endpointslices,pods,nodes -A -o yaml` would print, as the offline commands read
// them. List items carry no apiVersion and kind (as the apiserver writes them): they are filled
// in before decoding.
import { decodeObject, type KubeObject } from '@kubesvc/api-types';
import { inputError } from '../cli-error.js';
import { dumpOf, type Dump } from '../dump/load-dump.js';
import { apiGet } from './api-get.js';
import type { KubeconfigTarget } from './kubeconfig.js';

const LISTS: readonly { readonly path: string; readonly apiVersion: string; readonly kind: string }[] = [
  { path: '/api/v1/services', apiVersion: 'v1', kind: 'Service' },
  { path: '/api/v1/endpoints', apiVersion: 'v1', kind: 'Endpoints' },
  { path: '/apis/discovery.k8s.io/v1/endpointslices', apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice' },
  { path: '/api/v1/pods', apiVersion: 'v1', kind: 'Pod' },
  { path: '/api/v1/nodes', apiVersion: 'v1', kind: 'Node' },
];

/** Every object of the kinds the doctor reads, from the server the kubeconfig names. */
export async function liveDump(target: KubeconfigTarget): Promise<Dump> {
  const objects: KubeObject[] = [];
  for (const list of LISTS) {
    const body = (await apiGet(target, list.path)) as { items?: unknown };
    for (const item of Array.isArray(body.items) ? body.items : []) {
      const filled = item !== null && typeof item === 'object' && !Array.isArray(item) ? { apiVersion: list.apiVersion, kind: list.kind, ...(item as Record<string, unknown>) } : item;
      const decoded = decodeObject(filled);
      if (!decoded.ok) throw inputError(`${target.server}${list.path}: the server's ${list.kind} does not decode: ${decoded.error.message}`);
      objects.push(decoded.value);
    }
  }
  return dumpOf(target.server, objects);
}
