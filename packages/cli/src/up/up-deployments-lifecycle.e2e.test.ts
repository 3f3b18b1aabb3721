// A Deployment's pods living and dying against a real `kubesvc up`, with the real kubectl: a
// deleted pod is Terminating for its grace period while its endpoint is serving and
// terminating (not ready) in the EndpointSlice and gone from Endpoints, as v1.33's endpoint
// controllers write it; the ReplicaSet replaces it at once and the replacement becomes an
// endpoint; `rollout undo` goes back to the first template; deleting the Deployment takes its
// ReplicaSets and pods with it. Waits poll with a generous bound and print the last state seen.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubectl, startUp, e2eScope, until } from './up.fixtures.js';

const { children, tempDir } = e2eScope('kubesvc-up-deploy-life-');

const DEPLOYMENT = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      // A short grace period, so the pod's Terminating phase is seen and then ends.
      spec: { terminationGracePeriodSeconds: 8, containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 8080 }] }] },
    },
  },
};

interface PodRow {
  readonly name: string;
  readonly ip: string;
  readonly deleting: boolean;
  readonly ready: boolean;
  readonly image: string;
}

interface SliceEndpoint {
  readonly addresses: string[];
  readonly conditions: { ready?: boolean; serving?: boolean; terminating?: boolean };
  readonly targetRef?: { name: string };
}

describe('a Deployment over its pods\' lives', () => {
  it('replaces a deleted pod while the old one terminates, rolls back with rollout undo, and goes with its ReplicaSets and pods', async () => {
    const dataDir = tempDir();
    const cache = tempDir();
    await startUp(children, dataDir);
    const k = (...args: string[]) => kubectl(join(dataDir, 'kubeconfig'), cache, ...args);
    const file = join(cache, 'web.json');
    writeFileSync(file, JSON.stringify(DEPLOYMENT));
    expect(await k('create', '-f', file)).toBe('deployment.apps/web created\n');
    expect(await k('expose', 'deployment', 'web', '--port=80', '--target-port=8080')).toBe('service/web exposed\n');

    const pods = async (): Promise<PodRow[]> => {
      const list = JSON.parse(await k('get', 'pods', '-l', 'app=web', '-o', 'json')) as { items: { metadata: { name: string; deletionTimestamp?: string }; spec: { containers: { image: string }[] }; status: { podIP?: string; conditions?: { type: string; status: string }[] } }[] };
      return list.items.map((p) => ({
        name: p.metadata.name,
        ip: p.status.podIP ?? '',
        deleting: p.metadata.deletionTimestamp !== undefined,
        ready: p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
        image: p.spec.containers[0]?.image ?? '',
      }));
    };
    const endpointIPs = async (): Promise<string[]> => (await k('get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[*].addresses[*].ip}')).split(' ').filter((s) => s !== '').sort();
    const sliceEndpoints = async (): Promise<SliceEndpoint[]> =>
      (JSON.parse(await k('get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'json')) as { items: { endpoints?: SliceEndpoint[] | null }[] }).items.flatMap((s) => s.endpoints ?? []);

    const first = await until('two Ready pods with IPs', pods, (p) => p.length === 2 && p.every((x) => x.ready && x.ip !== ''));
    await until('two endpoints', endpointIPs, (ips) => ips.length === 2);

    // Delete one pod without waiting: it stays, Terminating, for its 8 s.
    const victim = first[0] as PodRow;
    expect(await k('delete', 'pod', victim.name, '--wait=false')).toBe(`pod "${victim.name}" deleted\n`);
    const table = await until('the pod Terminating in kubectl get pods', () => k('get', 'pod', victim.name, '--no-headers'), (t) => t.includes('Terminating'));
    expect(table.split(/\s+/)[2]).toBe('Terminating');
    const terminating = await until(
      "the victim's endpoint serving and terminating, not ready",
      async () => (await sliceEndpoints()).find((e) => e.targetRef?.name === victim.name),
      (e) => e?.conditions.terminating === true,
    );
    expect(terminating?.conditions).toEqual({ ready: false, serving: true, terminating: true });
    // Endpoints lists only live pods: the terminating one is left out (no publishNotReadyAddresses).
    expect(await endpointIPs()).not.toContain(victim.ip);
    // The ReplicaSet has already made a replacement, which becomes an endpoint.
    const replaced = await until('a Ready replacement', pods, (p) => p.filter((x) => !x.deleting && x.ready).length === 2);
    const replacement = replaced.find((x) => !x.deleting && !first.some((f) => f.name === x.name)) as PodRow;
    await until('the replacement listed in Endpoints', endpointIPs, (ips) => ips.includes(replacement.ip));
    await until('the victim gone after its grace period', pods, (p) => !p.some((x) => x.name === victim.name));

    // A new image, then back.
    expect(await k('set', 'image', 'deployment/web', 'nginx=nginx:1.27')).toBe('deployment.apps/web image updated\n');
    expect(await k('rollout', 'status', 'deployment/web', '--timeout=120s')).toContain('deployment "web" successfully rolled out\n');
    expect(await k('rollout', 'history', 'deployment/web')).toMatch(/REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n/);
    expect(await k('rollout', 'undo', 'deployment/web')).toBe('deployment.apps/web rolled back\n');
    expect(await k('rollout', 'status', 'deployment/web', '--timeout=120s')).toContain('deployment "web" successfully rolled out\n');
    const back = await until('two Ready pods of the first template', pods, (p) => p.filter((x) => !x.deleting && x.ready).length === 2 && p.every((x) => x.deleting || x.image === 'nginx'));
    expect(back.filter((x) => !x.deleting).map((x) => x.image)).toEqual(['nginx', 'nginx']);

    // The Deployment goes, and with it (the garbage collector) its ReplicaSets and pods.
    expect(await k('delete', 'deployment', 'web', '--wait=false')).toBe('deployment.apps "web" deleted\n');
    await until('no ReplicaSet and no pod left', async () => (await k('get', 'rs,pods', '-l', 'app=web', '-o', 'name')).trim(), (t) => t === '');
  }, 300_000);
});
