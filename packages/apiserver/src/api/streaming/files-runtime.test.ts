// filesContainerRuntime: each request refused as the kubelet refuses it for a container with
// no running instance; the log's refusal follows the pod's reported status as
// validateContainerLogStatus reads it (pkg/kubelet/kubelet_pods.go).
import { describe, expect, it } from 'vitest';
import type { Pod } from '@kubesvc/api-types';
import { filesContainerRuntime, noLogMessage } from './files-runtime.js';

const pod = (statuses: unknown[]): Pod =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec: { nodeName: 'n', containers: [{ name: 'c', image: 'i' }] }, status: { containerStatuses: statuses } }) as Pod;

const cases: { name: string; statuses: unknown[]; previous?: boolean; want: string; refused?: false }[] = [
  { name: 'no status for the container', statuses: [], want: 'container "c" in pod "p" is not available' },
  { name: 'previous without a last terminated state', statuses: [{ name: 'c', state: { running: {} } }], previous: true, want: 'previous terminated container "c" in pod "p" not found' },
  { name: 'running, with an instance that is nowhere here', statuses: [{ name: 'c', containerID: 'containerd://abc', state: { running: {} } }], want: 'unable to retrieve container logs for containerd://abc', refused: false },
  { name: 'running, with no container ID', statuses: [{ name: 'c', state: { running: {} } }], want: 'unable to retrieve container logs for ://', refused: false },
  { name: 'terminated, the last instance`s ID', statuses: [{ name: 'c', state: { terminated: {} }, lastState: { terminated: { containerID: 'containerd://old' } } }], want: 'unable to retrieve container logs for containerd://old', refused: false },
  { name: 'terminated with no ID and no last state', statuses: [{ name: 'c', state: { terminated: {} } }], want: 'container "c" in pod "p" is terminated' },
  { name: 'waiting on ErrImagePull', statuses: [{ name: 'c', state: { waiting: { reason: 'ErrImagePull' } } }], want: `container "c" in pod "p" is waiting to start: image can't be pulled` },
  { name: 'waiting on ImagePullBackOff', statuses: [{ name: 'c', state: { waiting: { reason: 'ImagePullBackOff' } } }], want: 'container "c" in pod "p" is waiting to start: trying and failing to pull image' },
  { name: 'waiting on ContainerCreating', statuses: [{ name: 'c', state: { waiting: { reason: 'ContainerCreating' } } }], want: 'container "c" in pod "p" is waiting to start: ContainerCreating' },
  { name: 'no state at all', statuses: [{ name: 'c', state: {} }], want: 'container "c" in pod "p" is waiting to start - no logs yet' },
];

describe('noLogMessage (validateContainerLogStatus)', () => {
  it.each(cases)('$name', ({ statuses, previous, want, refused }) => {
    expect(noLogMessage({ pod: pod(statuses), container: 'c' }, previous ?? false)).toEqual({ refused: refused ?? true, message: want });
  });
});

describe('filesContainerRuntime', () => {
  it('answers a running container`s log with the kubelet`s text as the log, a waiting one`s with a refusal', async () => {
    const running = await filesContainerRuntime.logs({ pod: pod([{ name: 'c', state: { running: {} } }]), container: 'c' }, { follow: false, previous: false, timestamps: false });
    if (!running.ok) throw new Error(running.error.message);
    expect(Buffer.concat(await running.value.toArray()).toString()).toBe('unable to retrieve container logs for ://');
    const waiting = await filesContainerRuntime.logs({ pod: pod([{ name: 'c', state: { waiting: { reason: 'ContainerCreating' } } }]), container: 'c' }, { follow: false, previous: false, timestamps: false });
    expect(waiting).toEqual({ ok: false, error: { _tag: 'ErrContainerRuntime', reason: 'ContainerNotRunning', message: 'container "c" in pod "p" is waiting to start: ContainerCreating' } });
  });

  it('refuses exec and attach with `container not found`, port-forward with the pod`s full name', async () => {
    const target = { pod: pod([]), container: 'c' };
    const request = { stdin: false, stdout: true, stderr: false, tty: false };
    expect(await filesContainerRuntime.exec(target, { ...request, command: ['true'] })).toEqual({ ok: false, error: { _tag: 'ErrContainerRuntime', reason: 'ContainerNotFound', message: 'container not found ("c")' } });
    expect(await filesContainerRuntime.attach(target, request)).toEqual({ ok: false, error: { _tag: 'ErrContainerRuntime', reason: 'ContainerNotFound', message: 'container not found ("c")' } });
    expect(await filesContainerRuntime.portForward(pod([]), 80)).toEqual({ ok: false, error: { _tag: 'ErrContainerRuntime', reason: 'ContainerNotFound', message: 'pod not found ("p_ns")' } });
    expect(await filesContainerRuntime.podRunning?.(pod([]))).toEqual({ ok: false, error: { _tag: 'ErrContainerRuntime', reason: 'ContainerNotFound', message: 'pod not found ("p_ns")' } });
  });
});
