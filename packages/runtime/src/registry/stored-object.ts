// How an object sits in the store, shared by the registry, the informers and the API's watch:
// the value is the object's JSON without its resourceVersion, and the resourceVersion a reader
// sees is the key's modRevision.
// upstream: staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go (PrepareObjectForStorage on
//           write; UpdateObject with the KeyValue's ModRevision on read)
import type { KubeObject, ObjectMeta } from '@kubesvc/api-types';
import type { KeyValue } from '../store/types.js';

function metaOf(object: KubeObject): ObjectMeta {
  return (object as { metadata?: ObjectMeta }).metadata ?? {};
}

/** The stored value: the object's JSON without metadata.resourceVersion. */
export function serializeObject(object: KubeObject): string {
  const { resourceVersion: _rv, ...meta } = metaOf(object);
  return JSON.stringify({ ...object, metadata: meta });
}

/** The object a reader sees: the stored JSON with resourceVersion set to the key's modRevision. */
export function deserializeObject<T extends KubeObject>(kv: Pick<KeyValue, 'value' | 'modRevision'>): T {
  const object = JSON.parse(kv.value) as T;
  return { ...object, metadata: { ...metaOf(object), resourceVersion: String(kv.modRevision) } } as T;
}
