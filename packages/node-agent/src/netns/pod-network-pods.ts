// The pod side of `kubesvc up --dataplane netns`: follows the pods the simulated kubelet runs
// (an informer's pods) and keeps a namespace for each in the pod network: made once the pod has
// its node and address, with its servers, its container logs and its resolv.conf; removed when
// the pod object is finally deleted (after its grace period, by the kubelet), as a node's
// sandbox goes. One change at a time, in the order they came.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Pod } from '@kubesvc/api-types';
import type { Logger } from '@kubesvc/apiserver';
import type { CacheChange, CacheView } from '@kubesvc/controllers';
import type { PodNetwork } from '@kubesvc/netlab';
import { logLine } from '../logger.js';
import { podLogDir, resolvConf, sandboxContainers, wantsSandbox, type ClusterDnsSettings } from './pod-sandbox-spec.js';

export interface PodNetworkPodsOptions {
  readonly network: PodNetwork;
  /** An informer that watches pods. */
  readonly source: CacheView & { onChange(listener: (change: CacheChange) => void): () => void };
  /** Container logs go to `<dataDir>/pods/<namespace>_<pod>_<uid>/<container>.log`. */
  readonly dataDir: string;
  /** The cluster DNS pods resolve with (ClusterFirst); absent: no resolv.conf is written. */
  readonly dns?: ClusterDnsSettings;
  readonly logger: Logger;
  /** Told when a pod's sandbox is made (its containers start) and when it is removed. */
  readonly sandboxMade?: (pod: Pod) => void;
  readonly sandboxRemoved?: (uid: string) => void;
}

export interface PodNetworkPods {
  /** Resolves once every change seen so far is carried out. */
  idle(): Promise<void>;
  /** Stops following the pods (the network, with the namespaces, is torn down by its owner). */
  stop(): Promise<void>;
}

const keyOf = (pod: Pod): string => `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`;

export function startPodNetworkPods(options: PodNetworkPodsOptions): PodNetworkPods {
  const { network, source, logger } = options;
  const nodes = new Set(network.nodes.map((n) => n.name));
  let queue: Promise<void> = Promise.resolve();
  let stopped = false;
  const logDirs = new Map<string, string>();

  const reconcile = async (key: string): Promise<void> => {
    if (stopped) return;
    const [namespace = '', name = ''] = key.split('/');
    const pod = source.get<Pod>('pods', namespace, name);
    const held = network.pod(key);
    if (held !== undefined && (pod === undefined || pod.metadata.uid !== held.uid)) {
      await network.removePod(key);
      const dir = logDirs.get(key);
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      logDirs.delete(key);
      options.sandboxRemoved?.(held.uid);
      logger.log('info', logLine('pod sandbox removed', { pod: key, netns: held.netns }));
    }
    if (pod === undefined || network.pod(key) !== undefined || !wantsSandbox(pod, nodes)) return;
    const dir = podLogDir(options.dataDir, pod);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    logDirs.set(key, dir);
    const conf = options.dns === undefined ? undefined : resolvConf(pod, options.dns);
    const sandbox = await network.addPod({
      namespace,
      name,
      uid: pod.metadata.uid ?? '',
      node: pod.spec?.nodeName ?? '',
      ip: pod.status?.podIP ?? '',
      ...(conf === undefined ? {} : { resolvConf: conf }),
      containers: sandboxContainers(pod).map((c) => ({ ...c, log: join(dir, `${c.name}.log`) })),
    });
    if (sandbox.error !== undefined) logger.log('warning', logLine('pod servers did not start', { pod: key, netns: sandbox.netns, error: sandbox.error }));
    else logger.log('info', logLine('pod sandbox made', { pod: key, netns: sandbox.netns, ip: sandbox.ip, node: sandbox.node }));
    options.sandboxMade?.(pod);
  };

  const enqueue = (key: string): void => {
    queue = queue.then(
      () => reconcile(key),
      () => reconcile(key),
    ).catch((error: unknown) => {
      logger.log('error', logLine('pod sandbox failed', { pod: key, error: error instanceof Error ? error.message : String(error) }));
    });
  };

  const unsubscribe = source.onChange((change) => {
    if (change.resource === 'pods') enqueue(keyOf(change.object as Pod));
  });
  for (const pod of source.list<Pod>('pods')) enqueue(keyOf(pod));

  return {
    idle: () => queue,
    async stop() {
      stopped = true;
      unsubscribe();
      await queue;
    },
  };
}
