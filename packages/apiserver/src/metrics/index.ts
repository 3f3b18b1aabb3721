// kube-apiserver's metrics (the public surface, re-exported by the package index).
export { createApiServerMetrics, ETCD_REQUEST_DURATION_BUCKETS, REQUEST_DURATION_BUCKETS } from './apiserver-metrics.js';
export type { ApiServerMetrics, ApiServerMetricsOptions, StoreOperation } from './apiserver-metrics.js';
export { groupResourceOfKey, instrumentStore, txnOperation } from './instrumented-store.js';
export { APISERVER_COMPONENT, canonicalVerb, cleanDryRun, cleanScope, cleanVerb, requestLabels } from './request-labels.js';
export type { RequestLabels, ResourceRequest, ScopeInfo, VerbRequest } from './request-labels.js';
