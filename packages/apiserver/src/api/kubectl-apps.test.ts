// Real kubectl (/usr/bin/kubectl, 1.33) against the API server for apps/v1: `api-resources`,
// `create deployment`, `get deploy` as a Table, `scale` through the /scale subresource,
// `set image` (a strategic merge patch of the pod template's containers), `expose deployment`
// reading the selector and the template's ports, and the refusals of a changed selector. No
// controllers run here, so status stays as the test writes it.
// The expected output is what kubectl prints against a v1.33 cluster (column headers from
// pkg/printers/internalversion/printers.go; api-resources from pkg/registry/apps/*/storage).
import { describe, expect, it } from 'vitest';
import { kubectlHarness } from './kubectl.fixtures.js';

const harness = kubectlHarness('apps', 13);
const kubectl = harness.kubectl;

/** Output lines cut into cells (kubectl pads columns with 3+ spaces), ages replaced by `AGE`. */
function rows(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.trimEnd().split(/ {3,}/).map((cell) => (/^\d+s$/.test(cell) ? 'AGE' : cell)));
}


describe('kubectl and apps/v1', () => {
  it('api-resources lists deployments and replicasets with their short names', async () => {
    const r = await kubectl('api-resources', '--api-group=apps');
    expect(r.code).toBe(0);
    expect(rows(r.stdout)).toEqual([
      ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND'],
      ['deployments', 'deploy', 'apps/v1', 'true', 'Deployment'],
      ['replicasets', 'rs', 'apps/v1', 'true', 'ReplicaSet'],
    ]);
  });

  it('create deployment stores a defaulted Deployment with generation 1 and prints it as a Table', async () => {
    const created = await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=3', '--port=8080');
    expect(created.stderr).toBe('');
    expect(created.stdout).toBe('deployment.apps/web created\n');
    const got = await harness.registry().get('deployments', 'default', 'web');
    if (!got.ok || got.value.kind !== 'Deployment') throw new Error('no deployment');
    expect(got.value.metadata.generation).toBe(1);
    expect(got.value.spec?.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    expect(got.value.spec?.revisionHistoryLimit).toBe(10);
    expect(got.value.spec?.progressDeadlineSeconds).toBe(600);
    const table = await kubectl('get', 'deploy', '-o', 'wide');
    expect(rows(table.stdout)).toEqual([
      ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR'],
      ['web', '0/3', '0', '0', 'AGE', 'nginx', 'nginx', 'app=web'],
    ]);
  });

  it('get rs prints DESIRED CURRENT READY from spec and status', async () => {
    const rs = await harness.registry().create('replicasets', 'default', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-5d4b8c7f9' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web', 'pod-template-hash': '5d4b8c7f9' } }, template: { metadata: { labels: { app: 'web', 'pod-template-hash': '5d4b8c7f9' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
    });
    if (!rs.ok) throw new Error(rs.error.message);
    const status = await harness.registry().updateStatus('replicasets', 'default', 'web-5d4b8c7f9', { ...rs.value, status: { replicas: 2, readyReplicas: 1 } });
    if (!status.ok) throw new Error(status.error.message);
    const table = await kubectl('get', 'rs', '-o', 'wide');
    expect(rows(table.stdout)).toEqual([
      ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR'],
      ['web-5d4b8c7f9', '3', '2', '1', 'AGE', 'nginx', 'nginx', 'app=web,pod-template-hash=5d4b8c7f9'],
    ]);
  });

  it('scale goes through /scale: replicas and generation move, the Scale reads back', async () => {
    await kubectl('create', 'deployment', 'web', '--image=nginx', '--replicas=3');
    const scaled = await kubectl('scale', 'deployment', 'web', '--replicas=5');
    expect(scaled.stderr).toBe('');
    expect(scaled.stdout).toBe('deployment.apps/web scaled\n');
    const got = await harness.registry().get('deployments', 'default', 'web');
    if (!got.ok || got.value.kind !== 'Deployment') throw new Error('no deployment');
    expect(got.value.spec?.replicas).toBe(5);
    expect(got.value.metadata.generation).toBe(2);
    const scale = await kubectl('get', '--raw', '/apis/apps/v1/namespaces/default/deployments/web/scale');
    const body = JSON.parse(scale.stdout) as Record<string, unknown>;
    expect(body['kind']).toBe('Scale');
    expect(body['apiVersion']).toBe('autoscaling/v1');
    expect(body['spec']).toEqual({ replicas: 5 });
    expect(body['status']).toEqual({ replicas: 0, selector: 'app=web' });
  });

  it('set image patches the one container by name and moves the generation', async () => {
    await kubectl('create', 'deployment', 'web', '--image=nginx');
    const set = await kubectl('set', 'image', 'deployment/web', 'nginx=nginx:1.27');
    expect(set.stderr).toBe('');
    expect(set.stdout).toBe('deployment.apps/web image updated\n');
    const got = await harness.registry().get('deployments', 'default', 'web');
    if (!got.ok || got.value.kind !== 'Deployment') throw new Error('no deployment');
    expect(got.value.spec?.template?.spec?.['containers']).toEqual([{ name: 'nginx', image: 'nginx:1.27', resources: {} }]);
    expect(got.value.metadata.generation).toBe(2);
  });

  it('expose deployment makes a Service from the selector and the target port', async () => {
    await kubectl('create', 'deployment', 'web', '--image=nginx', '--port=8080');
    const exposed = await kubectl('expose', 'deployment', 'web', '--port=80', '--target-port=8080');
    expect(exposed.stderr).toBe('');
    expect(exposed.stdout).toBe('service/web exposed\n');
    const svc = await harness.registry().get('services', 'default', 'web');
    if (!svc.ok || svc.value.kind !== 'Service') throw new Error('no service');
    expect(svc.value.spec?.selector).toEqual({ app: 'web' });
    expect(svc.value.spec?.ports).toEqual([{ port: 80, protocol: 'TCP', targetPort: 8080 }]);
  });

  it('refuses a template whose labels the selector does not match, with upstream\'s 422 text', async () => {
    const file = await harness.file('bad.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: bad}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: db}}\n    spec: {containers: [{name: c, image: nginx}]}\n');
    const r = await kubectl('create', '-f', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'The Deployment "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"db"}: `selector` does not match template `labels`\n',
    );
  });
});
