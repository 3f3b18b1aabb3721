// The ContainerRuntime of a node where no container runs (the files data plane): each request
// is answered as the kubelet answers when its runtime has no running instance of the container.
// upstream (v1.33): pkg/kubelet/kubelet_pods.go (GetExec, GetAttach: `container not found (%q)`
//           when findContainer finds no running container; GetPortForward: `pod not found (%q)`
//           with the pod's full name `name_namespace`; validateContainerLogStatus: why a
//           container has no log to show), pkg/kubelet/container/helpers.go (GetPodFullName)
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
 * pod's reported status, or, when the status names a container instance (running, or
 * terminated with an ID), the runtime's own NotFound for that instance, which exists nowhere here.
 */
export function noLogMessage(target: ContainerTarget, previous: boolean): string {
  const { pod, container } = target;
  const podName = pod.metadata.name ?? '';
  const q = (s: string): string => JSON.stringify(s);
  const status = containerStatus(pod, container);
  if (status === undefined) return `container ${q(container)} in pod ${q(podName)} is not available`;
  const state = status.state ?? {};
  const last = status.lastState ?? {};
  let id: string;
  if (previous) {
    if (last.terminated === undefined || (last.terminated.containerID ?? '') === '') return `previous terminated container ${q(container)} in pod ${q(podName)} not found`;
    id = last.terminated.containerID ?? '';
  } else if (state.running !== undefined) {
    id = status.containerID ?? '';
  } else if (state.terminated !== undefined) {
    id = state.terminated.containerID ?? '';
    if (id === '') id = last.terminated?.containerID ?? '';
    if (id === '') return `container ${q(container)} in pod ${q(podName)} is terminated`;
  } else if (last.terminated !== undefined) {
    id = last.terminated.containerID ?? '';
    if (id === '') return `container ${q(container)} in pod ${q(podName)} is terminated`;
  } else if (state.waiting !== undefined) {
    const reason = state.waiting.reason ?? '';
    if (reason === 'ErrImagePull') return `container ${q(container)} in pod ${q(podName)} is waiting to start: image can't be pulled`;
    if (reason === 'ImagePullBackOff') return `container ${q(container)} in pod ${q(podName)} is waiting to start: trying and failing to pull image`;
    return `container ${q(container)} in pod ${q(podName)} is waiting to start: ${reason}`;
  } else {
    return `container ${q(container)} in pod ${q(podName)} is waiting to start - no logs yet`;
  }
  // The CRI's answer for an instance it does not have (containerd's wording).
  const bare = id.replace(/^[a-z0-9]+:\/\//, '');
  return `rpc error: code = NotFound desc = an error occurred when try to find container ${q(bare)}: not found`;
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
    return Promise.resolve(refuse('ContainerNotRunning', noLogMessage(target, request.previous)));
  },
  portForward(pod) {
    return Promise.resolve(refuse('ContainerNotFound', `pod not found (${JSON.stringify(`${pod.metadata.name ?? ''}_${pod.metadata.namespace ?? ''}`)})`));
  },
};
