// @kubesvc/store/etcd: the etcd backend (etcd3's gRPC clients). A subpath of its own so that a
// consumer of another backend never loads gRPC.
export { openEtcdStore } from './etcd-store.js';
export type { EtcdStoreOptions } from './etcd-store.js';
