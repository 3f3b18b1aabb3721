// The ContainerRuntime of a node where no container runs (the files data plane): each request
// is answered as the kubelet answers when its runtime has no running instance of the container.
// upstream (v1.33): pkg/kubelet/kubelet_pods.go (GetExec, GetAttach: `container not found (%q)`
//           when findContainer finds no running container; GetPortForward: `pod not found (%q)`
//           with the pod's full name `name_namespace`; validateContainerLogStatus: why a
//           container has no log to show; GetKubeletContainerLogs: the empty write that sends
//           the 200 before the runtime is asked), pkg/kubelet/server/server.go (getContainerLogs:
//           the runtime's error written after it), pkg/kubelet/kuberuntime/kuberuntime_container.go
//           (GetContainerLogs: `unable to retrieve container logs for %v`),
//           pkg/kubelet/container/helpers.go (GetPodFullName), pkg/kubelet/container/runtime.go
//           (ContainerID.String: `type://id`, `://` for an empty one)
import { Readable } from 'node:stream';
import type { Pod } from '@kubesvc/api-types';
import type { ContainerRuntime, ContainerTarget, ErrContainerRuntime, RuntimeResult } from '../container-runtime.js';

function refuse(reason: ErrContainerRuntime['reason'], message: string): RuntimeResult<never> {
  return { ok: false, error: { _tag: 'ErrContainerRuntime', reason, message } };
}

interface ContainerStateLike {
  readonly running?: object;
  readonly terminated?: { readonly containerID?: string };
  readonly waiting?: { readonly reason?: string };
}

interface ContainerStatusLike {
  readonly name: string;
  readonly containerID?: string;
  readonly state?: ContainerStateLike;
  readonly lastState?: ContainerStateLike;
}

/** The status the pod reports for `name`: containers, then init containers, then ephemeral ones. */
function containerStatus(pod: Pod, name: string): ContainerStatusLike | undefined {
  const status = (pod.status ?? {}) as { containerStatuses?: readonly ContainerStatusLike[]; initContainerStatuses?: readonly ContainerStatusLike[]; ephemeralContainerStatuses?: readonly ContainerStatusLike[] };
  for (const list of [status.containerStatuses, status.initContainerStatuses, status.ephemeralContainerStatuses]) {
    const found = list?.find((s) => s.name === name);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Why the kubelet shows no log of the container: validateContainerLogStatus's refusal from the
 * pod's reported status (`refused`, the kubelet's 400), or, when the status names a container
 * instance (running, or terminated with an ID), the runtime's failure to find that instance,
 * which the kubelet writes as the body of a 200 it has already sent (`refused: false`).
 */
export function noLogMessage(target: ContainerTarget, previous: boolean): { readonly refused: boolean; readonly message: string } {
  const no = (message: string): { refused: boolean; message: string } => ({ refused: true, message });
  const { pod, container } = target;
  const podName = pod.metadata.name ?? '';
  const q = (s: string): string => JSON.stringify(s);
  const status = containerStatus(pod, container);
  if (status === undefined) return no(`container ${q(container)} in pod ${q(podName)} is not available`);
  const state = status.state ?? {};
  const last = status.lastState ?? {};
  let id: string;
  if (previous) {
    if (last.terminated === undefined || (last.terminated.containerID ?? '') === '') return no(`previous terminated container ${q(container)} in pod ${q(podName)} not found`);
    id = last.terminated.containerID ?? '';
  } else if (state.running !== undefined) {
    id = status.containerID ?? '';
  } else if (state.terminated !== undefined) {
    id = state.terminated.containerID ?? '';
    if (id === '') id = last.terminated?.containerID ?? '';
    if (id === '') return no(`container ${q(container)} in pod ${q(podName)} is terminated`);
  } else if (last.terminated !== undefined) {
    id = last.terminated.containerID ?? '';
    if (id === '') return no(`container ${q(container)} in pod ${q(podName)} is terminated`);
  } else if (state.waiting !== undefined) {
    const reason = state.waiting.reason ?? '';
    if (reason === 'ErrImagePull') return no(`container ${q(container)} in pod ${q(podName)} is waiting to start: image can't be pulled`);
    if (reason === 'ImagePullBackOff') return no(`container ${q(container)} in pod ${q(podName)} is waiting to start: trying and failing to pull image`);
    return no(`container ${q(container)} in pod ${q(podName)} is waiting to start: ${reason}`);
  } else {
    return no(`container ${q(container)} in pod ${q(podName)} is waiting to start - no logs yet`);
  }
  // The instance the status names is nowhere: ContainerStatus fails, and the ID prints as
  // ContainerID.String() does (`://` when the status gave none).
  return { refused: false, message: `unable to retrieve container logs for ${id === '' ? '://' : id}` };
}

/** The kubelet's GetPortForward refusal, with the pod's full name. */
function podNotFound(pod: Pod): string {
  return `pod not found (${JSON.stringify(`${pod.metadata.name ?? ''}_${pod.metadata.namespace ?? ''}`)})`;
}

/** A node with no containers: every exec, attach, log and port-forward is refused as the kubelet refuses it there. */
export const filesContainerRuntime: ContainerRuntime = {
  exec(target) {
    return Promise.resolve(refuse('ContainerNotFound', `container not found (${JSON.stringify(target.container)})`));
  },
  attach(target) {
    return Promise.resolve(refuse('ContainerNotFound', `container not found (${JSON.stringify(target.container)})`));
  },
  logs(target, request) {
    const { refused, message } = noLogMessage(target, request.previous);
    return Promise.resolve(refused ? refuse('ContainerNotRunning', message) : { ok: true, value: Readable.from([Buffer.from(message)]) });
  },
  portForward(pod) {
    return Promise.resolve(refuse('ContainerNotFound', podNotFound(pod)));
  },
  podRunning(pod) {
    return Promise.resolve(refuse('ContainerNotFound', podNotFound(pod)));
  },
};
