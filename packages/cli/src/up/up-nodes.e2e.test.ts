// `kubesvc up --nodes 3 --node-zones a,b,c` with the real kubectl: three nodes in three zones,
// pods bound round robin, a nodeSelector on the zone honoured, and a pod no node fits left
// Pending with the scheduler's condition and FailedScheduling event: the session the README's
// "Several nodes and zones" section shows. One `up` process for all of it: it is slow.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubectl as kubectlWith, startUp, e2eScope, until } from './up.fixtures.js';

const { children, tempDir } = e2eScope('kubesvc-up-nodes-');

const ZONE = 'topology.kubernetes.io/zone';
const UNSCHEDULABLE =
  "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";

function pod(name: string, nodeSelector?: Record<string, string>): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'web' } },
    spec: { containers: [{ name: 'web', image: 'nginx:1.27' }], ...(nodeSelector === undefined ? {} : { nodeSelector }) },
  };
}

describe('kubesvc up --nodes --node-zones', () => {
  it('runs three nodes in zones a, b, c; binds pods round robin and by nodeSelector; hints the endpoints of a PreferClose Service for their zones; leaves an impossible pod Pending with the scheduler message', async () => {
    const dataDir = tempDir();
    const cache = tempDir();
    const up = await startUp(children, dataDir, ['--nodes', '3', '--node-zones', 'a,b,c', '--node-name', 'node']);
    const kubeconfig = join(dataDir, 'kubeconfig');
    const kubectl = (...args: string[]) => kubectlWith(kubeconfig, cache, ...args);
    expect(up.stderr()).toContain('✓ 3 nodes: node-1 (zone a), node-2 (zone b), node-3 (zone c); the node agent (cluster DNS, kube-proxy) runs for node-1\n');

    // NAME STATUS ROLES AGE VERSION ZONE
    const nodes = await until(
      'three Ready nodes',
      async () => (await kubectl('get', 'nodes', '-L', ZONE, '--no-headers')).trim().split('\n').map((line) => line.split(/\s+/)),
      (rows) => rows.length === 3,
    );
    expect(nodes.map((r) => [r[0], r[1], r.at(-1)])).toEqual([
      ['node-1', 'Ready', 'a'],
      ['node-2', 'Ready', 'b'],
      ['node-3', 'Ready', 'c'],
    ]);
    const cpu = await kubectl('get', 'nodes', '-o', 'jsonpath={range .items[*]}{.metadata.name} {.status.allocatable.cpu} {.metadata.labels.kubernetes\\.io/hostname} {.metadata.labels.kubernetes\\.io/os}{"\\n"}{end}');
    expect(cpu.trim().split('\n')).toEqual(['node-1 4 node-1 linux', 'node-2 4 node-2 linux', 'node-3 4 node-3 linux']);

    // One at a time, as a user types them: each is bound before the next is created.
    const nodeOf = async (name: string) => (await kubectl('get', 'pod', name, '-o', 'jsonpath={.spec.nodeName}')).trim();
    const create = async (name: string, nodeSelector?: Record<string, string>) => {
      const file = join(cache, `${name}.json`);
      writeFileSync(file, JSON.stringify(pod(name, nodeSelector)));
      await kubectl('create', '-f', file);
    };
    const placed: Record<string, string> = {};
    for (const [name, selector] of [['p1'], ['p2'], ['p3'], ['in-b', { [ZONE]: 'b' }], ['p4']] as const) {
      await create(name, selector);
      placed[name] = await until(`pod ${name} bound`, () => nodeOf(name), (n) => n !== '');
    }
    // Round robin over node-1..3; the zone-b pod on node-2 whatever the counts; then the emptiest, first in order.
    expect(placed).toEqual({ p1: 'node-1', p2: 'node-2', p3: 'node-3', 'in-b': 'node-2', p4: 'node-1' });
    const running = await until(
      'the pods Running',
      async () => (await kubectl('get', 'pods', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name,PHASE:.status.phase,HOST:.status.hostIP')).trim(),
      (text) => text.split('\n').every((l) => l.includes('Running')),
    );
    expect(running.split('\n').map((l) => l.split(/\s+/))).toEqual([
      ['in-b', 'Running', '127.0.0.2'],
      ['p1', 'Running', '192.0.2.10'],
      ['p2', 'Running', '127.0.0.2'],
      ['p3', 'Running', '127.0.0.3'],
      ['p4', 'Running', '192.0.2.10'],
    ]);

    // trafficDistribution: PreferClose: the EndpointSlice controller hints every endpoint for
    // its own zone, the zone of the node its pod runs on.
    const svcFile = join(cache, 'web-svc.json');
    writeFileSync(
      svcFile,
      JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }], trafficDistribution: 'PreferClose' } }),
    );
    await kubectl('create', '-f', svcFile);
    const hints = await until(
      'five endpoints of Service web with zone hints',
      async () =>
        (await kubectl('get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={range .items[*].endpoints[*]}{.targetRef.name} {.zone} {.hints.forZones[*].name}{"\\n"}{end}'))
          .trim()
          .split('\n')
          .sort(),
      (lines) => lines.length === 5 && lines.every((l) => l.split(' ').length === 3),
    );
    expect(hints).toEqual(['in-b b b', 'p1 a a', 'p2 b b', 'p3 c c', 'p4 a a']);
    const sliceYaml = await kubectl('get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'yaml');
    expect(sliceYaml).toContain('    hints:\n      forZones:\n      - name: b\n');

    await create('nowhere', { [ZONE]: 'x' });
    const scheduled = await until(
      'the PodScheduled=False condition of pod nowhere',
      async () => (await kubectl('get', 'pod', 'nowhere', '-o', 'jsonpath={.status.phase}|{.spec.nodeName}|{range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{end}')).trim(),
      (text) => text.includes('PodScheduled=False'),
    );
    expect(scheduled).toBe(`Pending||PodScheduled=False Unschedulable: ${UNSCHEDULABLE}`);
    const yaml = await kubectl('get', 'pod', 'nowhere', '-o', 'yaml');
    expect(yaml).toContain('reason: Unschedulable');
    // YAML's single quotes double the apostrophes; the line folds after the first sentence.
    expect(yaml).toContain("    message: '0/3 nodes are available: 3 node(s) didn''t match Pod''s node affinity/selector.\n      preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.'\n");
    const events = await until(
      'the FailedScheduling event',
      async () => (await kubectl('get', 'events', '--field-selector', 'reason=FailedScheduling', '-o', 'jsonpath={range .items[*]}{.type} {.reason} {.involvedObject.kind}/{.involvedObject.name} {.reportingComponent}: {.message}{"\\n"}{end}')).trim(),
      (text) => text !== '',
    );
    expect(events).toBe(`Warning FailedScheduling Pod/nowhere default-scheduler: ${UNSCHEDULABLE}`);
    const described = await kubectl('describe', 'pod', 'nowhere');
    expect(described).toMatch(/Status:\s+Pending/);
    expect(described).toMatch(/Warning\s+FailedScheduling\s+\S+\s+default-scheduler\s+0\/3 nodes are available: 3 node\(s\) didn't match Pod's node affinity\/selector\./);

    up.child.kill('SIGTERM');
    expect(await up.exited).toBe(0);
  }, 300_000);
});
