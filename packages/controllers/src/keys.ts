// Controller keys: `namespace/name` for namespaced objects, `name` for cluster-scoped ones,
// as client-go's MetaNamespaceKeyFunc and SplitMetaNamespaceKey write and read them.
// upstream: staging/src/k8s.io/client-go/tools/cache/store.go

export function namespacedKey(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}/${name}`;
}

/** The namespace and name of a key; a key without `/` is cluster-scoped (namespace ''). */
export function splitKey(key: string): { readonly namespace: string; readonly name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
