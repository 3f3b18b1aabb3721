// apps/v1 against a real `kubesvc up`, with the real kubectl as the README's "Deployments and
// ReplicaSets" section shows it (the test checks it runs that section's commands): create a
// Deployment, wait for its three pods to run and be Ready (the deployment and ReplicaSet
// controllers and the simulated kubelet at work), expose it, see the Endpoints list the three
// pod IPs, scale to five through /scale, see five endpoints, roll out a new image, and delete it
// all with the Deployment. Waits poll with a generous
// bound and print the last state seen.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubectl, startUp, e2eScope, until } from './up.fixtures.js';

const { children, tempDir } = e2eScope('kubesvc-up-deploy-');

/** The `$ kubectl ...` lines of the README's Deployments section, without the `$ kubectl `. */
function readmeSession(): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### Deployments and ReplicaSets'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .filter((l) => l.startsWith('$ kubectl '))
    .map((l) => l.slice('$ kubectl '.length));
}

describe('kubesvc up runs Deployments', () => {
  it('the README session is this test\'s commands', () => {
    expect(readmeSession()).toEqual([
      'create deployment web --image=nginx --replicas=3',
      'get deploy,rs,pods',
      'expose deployment web --port=80 --target-port=8080',
      'get endpoints web',
      'scale deployment web --replicas=5',
      'get endpoints web',
      'set image deployment/web nginx=nginx:1.27',
      'rollout status deployment/web',
      'delete deployment web',
    ]);
  });

  it('kubectl create deployment → 3 Ready pods → expose → 3 endpoints → scale to 5 → 5 endpoints', async () => {
    const dataDir = tempDir();
    const cache = tempDir();
    await startUp(children, dataDir);
    const kubeconfig = join(dataDir, 'kubeconfig');
    const k = (...args: string[]) => kubectl(kubeconfig, cache, ...args);

    expect(await k('create', 'deployment', 'web', '--image=nginx', '--replicas=3')).toBe('deployment.apps/web created\n');

    // READY column of each pod, e.g. "1/1 Running".
    const podStates = () => k('get', 'pods', '-l', 'app=web', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name,PHASE:.status.phase,READY:.status.conditions[?(@.type=="Ready")].status');
    const running = (n: number) => (text: string) => {
      const lines = text.trim().split('\n').filter((l) => l !== '');
      return lines.length === n && lines.every((l) => /\sRunning\s+True$/.test(l));
    };
    await until('3 pods Running and Ready', podStates, running(3));

    const table = await until('deployment 3/3 available', () => k('get', 'deploy,rs,pods'), (t) => /deployment\.apps\/web\s+3\/3\s+3\s+3\s/.test(t));
    expect(table).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/m);
    expect(table).toMatch(/^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$/m);
    const rsLine = table.split('\n').find((l) => l.startsWith('replicaset.apps/web-')) ?? '';
    expect(rsLine).toMatch(/^replicaset\.apps\/web-[bcdfghjklmnpqrstvwxz2456789]+\s+3\s+3\s+3\s/);
    const podLines = table.split('\n').filter((l) => l.startsWith('pod/web-'));
    expect(podLines.length).toBe(3);
    expect(podLines.every((l) => /\s1\/1\s+Running\s/.test(l))).toBe(true);

    expect(await k('expose', 'deployment', 'web', '--port=80', '--target-port=8080')).toBe('service/web exposed\n');
    const endpointIPs = () => k('get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[*].addresses[*].ip}');
    const count = (n: number) => (text: string) => text.trim().split(/\s+/).filter((ip) => /^\d+\.\d+\.\d+\.\d+$/.test(ip)).length === n;
    await until('3 endpoints', endpointIPs, count(3));
    expect(await k('get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[0].ports[0].port}')).toBe('8080');
    expect(await k('get', 'endpoints', 'web')).toMatch(/^web\s+(\d+\.\d+\.\d+\.\d+:8080,){2}\d+\.\d+\.\d+\.\d+:8080\s+\d+s$/m);

    expect(await k('scale', 'deployment', 'web', '--replicas=5')).toBe('deployment.apps/web scaled\n');
    await until('5 pods Running and Ready', podStates, running(5));
    await until('5 endpoints', endpointIPs, count(5));
    expect(await k('get', 'endpoints', 'web')).toMatch(/^web\s+(\d+\.\d+\.\d+\.\d+:8080,){2}\d+\.\d+\.\d+\.\d+:8080 \+ 2 more\.\.\.\s+\d+s$/m);
    const d = await until('deployment 5/5', () => k('get', 'deploy', 'web', '--no-headers'), (t) => /^web\s+5\/5\s+5\s+5\s/.test(t));
    expect(d).toMatch(/^web\s+5\/5\s+5\s+5\s/);

    // A rolling update: a second ReplicaSet takes over, the first is left at 0.
    expect(await k('set', 'image', 'deployment/web', 'nginx=nginx:1.27')).toBe('deployment.apps/web image updated\n');
    expect(await k('rollout', 'status', 'deployment/web', '--timeout=120s')).toContain('deployment "web" successfully rolled out\n');
    const sets = await k('get', 'rs', '-l', 'app=web', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name,DESIRED:.spec.replicas,REVISION:.metadata.annotations.deployment\\.kubernetes\\.io/revision');
    expect(sets.trim().split('\n').map((l) => l.split(/\s+/).slice(1)).sort()).toEqual([['0', '1'], ['5', '2']]);
    await until('5 endpoints after the rollout', endpointIPs, count(5));

    // The garbage collector takes the ReplicaSet and its pods with the Deployment.
    expect(await k('delete', 'deployment', 'web')).toBe('deployment.apps "web" deleted\n');
    await until('no ReplicaSet and no pod left', () => k('get', 'rs,pods', '-l', 'app=web', '--no-headers', '-o', 'name'), (t) => t.trim() === '');
  });
});
