// kube-apiserver's metrics on a prom-client registry: apiserver_request_total and
// apiserver_request_duration_seconds for every routed resource request, etcd_request_duration_seconds
// around the store's calls (instrumented-store.ts), and apiserver_storage_objects counted from
// the store when /metrics is read.
// upstream (v1.33): staging/src/k8s.io/apiserver/pkg/endpoints/metrics/metrics.go (requestCounter,
//           requestLatencies and their buckets, MonitorRequest),
//           staging/src/k8s.io/apiserver/pkg/storage/etcd3/metrics/metrics.go (etcdRequestLatency
//           and its buckets, objectCounts, UpdateStoreStats: -1 when the count fails)
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Store } from '@kubesvc/store';
import { RESOURCES, RESOURCE_NAMES } from '../registry/resources.js';
import type { RequestLabels } from './request-labels.js';

/** apiserver_request_duration_seconds' buckets, in seconds. */
export const REQUEST_DURATION_BUCKETS: readonly number[] = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** etcd_request_duration_seconds' buckets: upstream keeps them equal to the request buckets. */
export const ETCD_REQUEST_DURATION_BUCKETS: readonly number[] = REQUEST_DURATION_BUCKETS;

const REQUEST_LABEL_NAMES = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

/** The etcd operation names the store calls are reported under. */
export type StoreOperation = 'get' | 'list' | 'create' | 'update' | 'delete';

/** What createApiServerMetrics takes. */
export interface ApiServerMetricsOptions {
  /** The registry the metrics are registered on and /metrics serves. Default: a new one. */
  readonly registry?: Registry;
  /** Whose objects apiserver_storage_objects counts at each read of /metrics. Default: none (the gauge stays empty). */
  readonly store?: Store;
  /** A monotonic time in seconds, for the durations. Default: performance.now() / 1000. */
  readonly now?: () => number;
}

/** The control plane's metrics: what the API server and the instrumented store record, and /metrics' text. */
export interface ApiServerMetrics {
  /** The prom-client registry /metrics serves: register other metrics (kube-proxy's) on it to serve them too. */
  readonly registry: Registry;
  /** The monotonic clock the durations are measured on, in seconds. */
  now(): number;
  /** Records one finished request. */
  observeRequest(labels: RequestLabels, code: number, seconds: number): void;
  /** Records one store call. */
  observeStore(operation: StoreOperation, group: string, resource: string, seconds: number): void;
  /**
   * Times `req` from now until its response closes, and records it then, with the labels
   * `label` gave it (a request never labelled, one that reached no resource route, is not
   * recorded, as upstream instruments only the routes it installed).
   */
  track(req: IncomingMessage, res: ServerResponse): void;
  /** Gives a tracked request its labels (the last call wins). */
  label(req: IncomingMessage, labels: RequestLabels): void;
  /**
   * Marks a tracked request whose connection was taken over (a WebSocket upgrade of exec or
   * attach): it is recorded with code 101 when its response closes, as upstream's response
   * delegator records a hijacked connection (fancyResponseWriterDelegator.Hijack).
   */
  switchedProtocols(req: IncomingMessage): void;
  /** The exposition text of the registry, and its Content-Type. */
  exposition(): Promise<{ readonly contentType: string; readonly text: string }>;
}

/** A group and resource as GroupResource.String() prints them: `resource` or `resource.group`. */
function groupResourceString(group: string, resource: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

/** Registers the control plane's metrics on `options.registry` (or a new registry). */
export function createApiServerMetrics(options: ApiServerMetricsOptions = {}): ApiServerMetrics {
  const registry = options.registry ?? new Registry();
  const now = options.now ?? (() => performance.now() / 1000);
  const requests = new Counter({
    name: 'apiserver_request_total',
    help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    labelNames: [...REQUEST_LABEL_NAMES, 'code'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    labelNames: REQUEST_LABEL_NAMES,
    buckets: [...REQUEST_DURATION_BUCKETS],
    registers: [registry],
  });
  const etcd = new Histogram({
    name: 'etcd_request_duration_seconds',
    help: 'Etcd request latency in seconds for each operation and object type.',
    labelNames: ['operation', 'group', 'resource'],
    buckets: [...ETCD_REQUEST_DURATION_BUCKETS],
    registers: [registry],
  });
  const store = options.store;
  new Gauge({
    name: 'apiserver_storage_objects',
    help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
    labelNames: ['resource'],
    registers: [registry],
    // The count is taken at each read, where upstream's is refreshed every minute
    // (--etcd-count-metric-poll-period): no timer to stop, and never stale.
    async collect() {
      if (store === undefined) return;
      for (const name of RESOURCE_NAMES) {
        const info = RESOURCES[name];
        let count: number;
        try {
          count = (await store.range(info.prefix)).kvs.length;
        } catch {
          count = -1;
        }
        this.set({ resource: groupResourceString(info.group, info.resource) }, count);
      }
    },
  });

  const started = new WeakMap<IncomingMessage, number>();
  const labelled = new WeakMap<IncomingMessage, RequestLabels>();
  const switched = new WeakSet<IncomingMessage>();
  const metrics: ApiServerMetrics = {
    registry,
    now,
    observeRequest(labels, code, seconds) {
      requests.inc({ ...labels, code: String(code) });
      durations.observe({ ...labels }, seconds);
    },
    observeStore(operation, group, resource, seconds) {
      etcd.observe({ operation, group, resource }, seconds);
    },
    track(req, res) {
      started.set(req, now());
      res.once('close', () => {
        const labels = labelled.get(req);
        const start = started.get(req);
        if (labels === undefined || start === undefined) return;
        // A response cut before its headers were written has no code: Go's delegator reports 0.
        metrics.observeRequest(labels, switched.has(req) ? 101 : res.headersSent ? res.statusCode : 0, Math.max(0, now() - start));
      });
    },
    label(req, labels) {
      labelled.set(req, labels);
    },
    switchedProtocols(req) {
      switched.add(req);
    },
    async exposition() {
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
  };
  return metrics;
}
