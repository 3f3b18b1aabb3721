// What the pods/exec, pods/attach, pods/log and pods/portforward subresources ask of whatever
// runs a pod's containers: on a real cluster the apiserver forwards these to the kubelet of the
// pod's node, which asks its container runtime. Here the shell that starts the apiserver passes
// one ContainerRuntime for every node: with the files data plane no container runs
// (filesContainerRuntime answers as a kubelet whose container is not running); with
// `--dataplane netns` each pod is a network namespace whose processes this interface reaches.
// upstream (v1.33): pkg/registry/core/pod/rest/subresources.go (ExecREST, AttachREST,
//           PortForwardREST, LogREST: the apiserver side), pkg/kubelet/server/server.go and
//           pkg/kubelet/kubelet_pods.go (GetExec, GetAttach, GetPortForward, GetContainerLogs:
//           the kubelet side)
import type { Readable, Writable, Duplex } from 'node:stream';
import type { Pod } from '@kubesvc/api-types';

/** A container of a pod, as the request named it (the apiserver has already defaulted the container name and checked it against the pod's spec). */
export interface ContainerTarget {
  /** The pod as stored when the request arrived. */
  readonly pod: Pod;
  readonly container: string;
}

export interface ExecRequest {
  /** argv; never empty (the apiserver refuses an exec without a command). */
  readonly command: readonly string[];
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
}

/** How a process ended, as the remote-command protocol reports it on its error channel. */
export type ExitStatus = { readonly exitCode: number } | { readonly signal: string };

/** A running exec (or an attach to the container's main process). */
export interface ContainerProcess {
  /** Present when the request asked for stdin. Ending it closes the process's stdin. */
  readonly stdin?: Writable;
  /** Present when asked for. With a tty, stdout carries both streams and stderr is absent. */
  readonly stdout?: Readable;
  readonly stderr?: Readable;
  /** A terminal's new size (the resize channel); ignored without a tty. */
  resize(size: { readonly width: number; readonly height: number }): void;
  /** Resolves when the process ended and its output streams have ended. */
  readonly exited: Promise<ExitStatus>;
  /** Ends the process (the client went away). Idempotent. */
  kill(): void;
}

export interface LogRequest {
  readonly follow: boolean;
  /** Print the previous instance's log (there never is one here: an error, as the kubelet's for a container that did not restart). */
  readonly previous: boolean;
  readonly timestamps: boolean;
  readonly tailLines?: number;
  readonly sinceSeconds?: number;
  /** RFC 3339. */
  readonly sinceTime?: string;
  readonly limitBytes?: number;
}

/** Why the node could not do what was asked, in the kubelet's words. */
export interface ErrContainerRuntime {
  readonly _tag: 'ErrContainerRuntime';
  /**
   * ContainerNotRunning / ContainerNotFound: as the kubelet answers for a container that is not
   * running or has no instance; PortNotFound: nothing listens on the port in the pod;
   * Unavailable: the node cannot do it at all (no namespace, no root).
   */
  readonly reason: 'ContainerNotRunning' | 'ContainerNotFound' | 'PortNotFound' | 'Unavailable';
  /** The message as the kubelet writes it, e.g. `container not found ("web")`. */
  readonly message: string;
}

export type RuntimeResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ErrContainerRuntime };

/** The node side of exec, attach, logs and port-forward, for every node of the cluster (route by `pod.spec.nodeName`). */
export interface ContainerRuntime {
  exec(target: ContainerTarget, request: ExecRequest): Promise<RuntimeResult<ContainerProcess>>;
  attach(target: ContainerTarget, request: Omit<ExecRequest, 'command'>): Promise<RuntimeResult<ContainerProcess>>;
  /** The container's log: ends at its current end unless `follow`, then goes on until destroyed. */
  logs(target: ContainerTarget, request: LogRequest): Promise<RuntimeResult<Readable>>;
  /** A TCP connection to `port` inside the pod's network namespace (127.0.0.1:port there). */
  portForward(pod: Pod, port: number): Promise<RuntimeResult<Duplex>>;
  /**
   * Whether the node runs the pod at all, asked before a port-forward's upgrade (the kubelet's
   * GetPortForward refuses a pod it has no sandbox for then, `pod not found ("name_namespace")`,
   * before any port is named). Absent: the pod is taken as running.
   */
  podRunning?(pod: Pod): Promise<RuntimeResult<void>>;
}
