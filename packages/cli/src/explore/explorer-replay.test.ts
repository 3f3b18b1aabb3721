// The replay's counting over a fake container runtime (each exec a scripted curl): answers
// counted by the pod its body names, curl's failures and the runtime's refusals counted with
// their reasons, the exec's argv, and a pod that is missing or not a namespace refused.
import { PassThrough } from 'node:stream';
import type { Pod } from '@kubesvc/api-types';
import type { ContainerProcess, ContainerRuntime, ExecRequest } from '@kubesvc/apiserver';
import { expect, it } from 'vitest';
import { replayFromPod } from './explorer-replay.js';

const client: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'default', name: 'client', uid: 'u1' }, spec: { containers: [{ name: 'c0' }, { name: 'c1' }] } as Pod['spec'] };

/** An exec whose process prints `out` and exits with `code`, per the script's next entry. */
function scripted(script: readonly (string | number | 'refuse')[]): { runtime: Pick<ContainerRuntime, 'exec'>; asked: { container: string; command: readonly string[] }[] } {
  const asked: { container: string; command: readonly string[] }[] = [];
  let i = 0;
  return {
    asked,
    runtime: {
      exec: (target, request: ExecRequest) => {
        asked.push({ container: target.container, command: request.command });
        const step = script[i++ % script.length];
        if (step === 'refuse') return Promise.resolve({ ok: false, error: { _tag: 'ErrContainerRuntime', reason: 'ContainerNotRunning', message: 'no sandbox' } });
        const stdout = new PassThrough();
        const exited = new Promise<{ exitCode: number }>((resolve) => {
          stdout.on('end', () => resolve({ exitCode: typeof step === 'number' ? step : 0 }));
        });
        stdout.end(typeof step === 'string' ? step : '');
        const proc: ContainerProcess = { stdout, exited, resize: () => undefined, kill: () => undefined };
        return Promise.resolve({ ok: true, value: proc });
      },
    },
  };
}

const options = (runtime: Pick<ContainerRuntime, 'exec'>, sandbox = true) => ({
  runtime,
  pod: (ns: string, name: string) => (ns === 'default' && name === 'client' ? client : undefined),
  isSandbox: () => sandbox,
});

it('counts the answers by the pod each body names, most first, and the failures with their reasons', async () => {
  const { runtime, asked } = scripted(['web-b\n', 'web-a\n', 'web-b', 28, 'refuse', 'web-b\n', 7, '']);
  const answer = await replayFromPod({ from: 'default/client', destination: '10.96.0.20:80', protocol: 'tcp', count: 8 }, { ...options(runtime), concurrency: 1 });
  expect(answer).toEqual({
    ok: true,
    value: {
      from: 'default/client',
      destination: '10.96.0.20:80',
      count: 8,
      answers: [
        { pod: 'web-b', count: 3 },
        { pod: 'web-a', count: 1 },
      ],
      failures: 4,
      failureReasons: ['curl exit 28: no answer within 3 s', 'no sandbox', 'curl exit 7: connection refused', 'an answer with an empty body'],
    },
  });
  expect(asked).toHaveLength(8);
  expect(asked[0]).toEqual({ container: 'c0', command: ['curl', '-s', '--max-time', '3', 'http://10.96.0.20:80/hostname'] });
});

it('sends exactly count requests with several in flight', async () => {
  const { runtime, asked } = scripted(['web-a']);
  const answer = await replayFromPod({ from: 'default/client', destination: 'web:80', protocol: 'tcp', count: 13 }, { ...options(runtime), concurrency: 4 });
  expect(answer.ok && answer.value.answers).toEqual([{ pod: 'web-a', count: 13 }]);
  expect(asked).toHaveLength(13);
});

it('refuses a pod that does not exist, or is not a network namespace, without an exec', async () => {
  const { runtime, asked } = scripted(['web-a']);
  expect(await replayFromPod({ from: 'default/nobody', destination: '10.96.0.20:80', protocol: 'tcp', count: 2 }, options(runtime))).toEqual({
    ok: false,
    error: { _tag: 'ErrExplorerReplay', message: 'pod "default/nobody" not found' },
  });
  expect(await replayFromPod({ from: 'default/client', destination: '10.96.0.20:80', protocol: 'tcp', count: 2 }, options(runtime, false))).toEqual({
    ok: false,
    error: { _tag: 'ErrExplorerReplay', message: 'pod "default/client" is not a running network namespace' },
  });
  expect(asked).toEqual([]);
});
