// kube-proxy's sync metrics on a prom-client registry, made once per process and shared by
// every node agent in it: each observation carries a `node` label, where upstream's kube-proxy
// serves its own /metrics per node and the scraper adds the `instance`.
// upstream (v1.33): pkg/proxy/metrics/metrics.go (SyncProxyRulesLatency,
//           SyncProxyRulesLastTimestamp, NetworkProgrammingLatency and their buckets),
//           staging/src/k8s.io/component-base/metrics/buckets.go (MergeBuckets starts with a 0 bucket)
import { Gauge, Histogram, type Registry } from 'prom-client';

/** kubeproxy_sync_proxy_rules_duration_seconds' buckets: 1 ms doubling 15 times. */
export const SYNC_PROXY_RULES_DURATION_BUCKETS: readonly number[] = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);

function linear(start: number, width: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start + i * width);
}

/** kubeproxy_network_programming_duration_seconds' buckets: 0, then 0.25 s to 5 min. */
export const NETWORK_PROGRAMMING_DURATION_BUCKETS: readonly number[] = [0, ...linear(0.25, 0.25, 2), ...linear(1, 1, 59), ...linear(60, 5, 12), ...linear(120, 30, 7)];

/** One node's kube-proxy metrics: what its sync loop records. */
export interface NodeProxyMetrics {
  /** One sync, applied or not, took `seconds`. */
  syncDuration(seconds: number): void;
  /** A sync applied at `nowMs` (milliseconds since the epoch). */
  syncApplied(nowMs: number): void;
  /** A change reached the rules `seconds` after its trigger time. */
  networkProgrammed(seconds: number): void;
}

/** kube-proxy's metrics for every node agent of the process. */
export interface ProxyMetrics {
  /** The handle a node's agent records through. */
  forNode(nodeName: string): NodeProxyMetrics;
}

/** Registers kube-proxy's metrics on `registry` (once per process and registry). */
export function createProxyMetrics(registry: Registry): ProxyMetrics {
  const syncDuration = new Histogram({
    name: 'kubeproxy_sync_proxy_rules_duration_seconds',
    help: 'SyncProxyRules latency in seconds',
    labelNames: ['node'],
    buckets: [...SYNC_PROXY_RULES_DURATION_BUCKETS],
    registers: [registry],
  });
  const lastTimestamp = new Gauge({
    name: 'kubeproxy_sync_proxy_rules_last_timestamp_seconds',
    help: 'The last time proxy rules were successfully synced',
    labelNames: ['node'],
    registers: [registry],
  });
  const networkProgramming = new Histogram({
    name: 'kubeproxy_network_programming_duration_seconds',
    help: 'In Cluster Network Programming Latency in seconds',
    labelNames: ['node'],
    buckets: [...NETWORK_PROGRAMMING_DURATION_BUCKETS],
    registers: [registry],
  });
  return {
    forNode(node) {
      return {
        syncDuration: (seconds) => syncDuration.observe({ node }, seconds),
        syncApplied: (nowMs) => lastTimestamp.set({ node }, nowMs / 1000),
        networkProgrammed: (seconds) => networkProgramming.observe({ node }, seconds),
      };
    },
  };
}
