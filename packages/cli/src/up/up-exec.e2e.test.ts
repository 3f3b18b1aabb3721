// `kubesvc up` with the files data plane (no container runs) and the real kubectl's exec and
// logs: the API server's default ContainerRuntime answers as the kubelet answers for a
// container that has no running instance.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { e2eScope, kubectl, kubectlRun, startUp, until } from './up.fixtures.js';

const { children, tempDir } = e2eScope('kubesvc-up-exec-');

interface PodList {
  readonly items: readonly { metadata: { name: string }; spec: { nodeName?: string }; status?: { phase?: string } }[];
}

describe('kubesvc up (files data plane): kubectl exec, logs and port-forward', () => {
  it('kubectl run and create deployment make pods that kubectl exec and logs reach, answered with the kubelet`s refusals', { timeout: 180_000 }, async () => {
    const dataDir = tempDir();
    const cache = tempDir();
    await startUp(children, dataDir);
    const kubeconfig = join(dataDir, 'kubeconfig');
    await kubectl(kubeconfig, cache, 'run', 'web', '--image=nginx');
    await kubectl(kubeconfig, cache, 'create', 'deployment', 'app', '--image=registry.k8s.io/pause:3.10');
    const pods = await until(
      'the pods web and app-* running on a node',
      async () => JSON.parse(await kubectl(kubeconfig, cache, 'get', 'pods', '-o', 'json')) as PodList,
      (list) => list.items.length === 2 && list.items.every((p) => p.status?.phase === 'Running' && (p.spec.nodeName ?? '') !== ''),
    );
    const app = pods.items.find((p) => p.metadata.name.startsWith('app-'))?.metadata.name ?? '';

    const execWeb = await kubectlRun(kubeconfig, cache, 'exec', 'web', '--', 'true');
    expect(execWeb).toMatchObject({ code: 1, stdout: '', stderr: 'error: unable to upgrade connection: container not found ("web")\n' });
    const execApp = await kubectlRun(kubeconfig, cache, 'exec', app, '--', 'true');
    expect(execApp).toMatchObject({ code: 1, stdout: '', stderr: 'error: unable to upgrade connection: container not found ("pause")\n' });

    // The pod reports its container running with no container ID: the kubelet has sent its 200
    // when the runtime fails to find the instance, so its error is the log kubectl prints.
    const logs = await kubectlRun(kubeconfig, cache, 'logs', 'web');
    expect(logs).toMatchObject({ code: 0, stdout: 'unable to retrieve container logs for ://', stderr: '' });

    // The kubelet has no sandbox for the pod: port-forward is refused before any port is named.
    const forward = await kubectlRun(kubeconfig, cache, 'port-forward', 'pod/web', ':80');
    expect(forward).toMatchObject({ code: 1, stderr: 'error: error upgrading connection: unable to upgrade connection: pod not found ("web_default")\n' });
  });
});
