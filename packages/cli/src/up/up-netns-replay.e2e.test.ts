// `kubesvc up --dataplane netns`: the explorer's model names the pods that are network
// namespaces, and /ui/api/replay sends 20 real requests from a client pod to a Service of 2
// pods (curl through the container runtime's exec) and counts both pods answering; the page
// (Debian's chromium driven by playwright-core) marks the endpoints that are namespaces on the
// trace and replays from the client pod, showing the real share next to each probability.
// Waits poll with a generous bound and print the last state seen.
// @needs-root: kubesvc up --dataplane netns makes network namespaces and loads iptables rules; testkit root-only.ts refuses a run without root that selects it.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { ExplorerModel, ReplayAnswer } from '@kubesvc/explorer';
import { podNetworkPrefix } from '@kubesvc/netlab';
import { chromium } from 'playwright-core';
import { expect, it } from 'vitest';
import { e2eScope, kubectl, startUp, until } from './up.fixtures.js';
import { podNetworkScope } from './netns.fixtures.js';

const exec = promisify(execFile);
const { children, tempDir } = e2eScope('kubesvc-up-replay-');

const { prefixes, ups } = podNetworkScope();

it('replays 20 requests from a client pod to a Service of 2 pods: both answer, and the model marks the namespaces', async () => {
  const dataDir = tempDir();
  const cache = tempDir();
  const prefix = podNetworkPrefix(resolve(dataDir));
  prefixes.add(prefix);
  const up = await startUp(children, dataDir, ['--dataplane', 'netns', '--nodes', '2']);
  ups.add(up);
  const link = /explorer\s+(https:\/\/\S+)/.exec(up.stdout())?.[1] ?? '';
  expect(link).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/ui\/#token=/);
  const base = link.slice(0, link.indexOf('#'));
  const token = decodeURIComponent(link.slice(link.indexOf('#token=') + '#token='.length));
  // The API's certificate is the cluster's own: curl -k, as the browser test does.
  const api = async (path: string): Promise<{ code: number; body: unknown }> => {
    const r = await exec('curl', ['-sk', '-w', '\n%{http_code}', '-H', `Authorization: Bearer ${token}`, `${base}${path}`], { timeout: 120_000 });
    const cut = r.stdout.lastIndexOf('\n');
    return { code: Number(r.stdout.slice(cut + 1)), body: JSON.parse(r.stdout.slice(0, cut)) as unknown };
  };
  const k = (...args: string[]) => kubectl(join(dataDir, 'kubeconfig'), cache, ...args);

  await k('run', 'client', '--image=busybox');
  await k('create', 'deployment', 'web', '--image=nginx', '--replicas=2');
  await k('expose', 'deployment', 'web', '--port=80');
  const names = await until(
    '2 web pods',
    async () => (await k('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}')).split(' ').filter((n) => n !== ''),
    (n) => n.length === 2,
  );
  const clusterIP = (await k('get', 'svc', 'web', '-o', 'jsonpath={.spec.clusterIP}')).trim();

  // The model lists the 3 pods as namespaces, and the Service's endpoints as ones.
  const model = await until(
    'the model: 3 pods that are namespaces, 2 endpoints of web marked',
    async () => (await api('api/model')).body as ExplorerModel,
    (m) => (m.sandboxes ?? []).length === 3 && m.services.find((s) => s.name === 'web')?.endpoints.filter((e) => e.sandbox === true).length === 2,
  );
  expect((model.sandboxes ?? []).map((p) => `${p.namespace}/${p.name}`).sort()).toEqual(['default/client', ...names.map((n) => `default/${n}`)].sort());

  // Both pods answer the 20 requests once kube-proxy has the Service's rules (polled): the
  // query of the README's example, with the Service's ClusterIP.
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const query = /\/ui\/(api\/replay\?[^"]+)"/.exec(readme)?.[1] ?? '';
  expect(query).toBe('api/replay?from=default/client&destination=$IP:80&protocol=tcp&count=20');
  const replayed = await until(
    '20 requests from client to web answered by both pods',
    async () => await api(query.replace('$IP', clusterIP)),
    (r) => {
      const a = r.body as ReplayAnswer;
      return r.code === 200 && a.ok && a.value.failures === 0 && a.value.answers.length === 2;
    },
  );
  const answer = replayed.body as ReplayAnswer;
  if (!answer.ok) throw new Error(answer.error.message);
  expect(answer.value.answers.map((a) => a.pod).sort()).toEqual([...names].sort());
  expect(answer.value.answers.reduce((n, a) => n + a.count, 0)).toBe(20);

  // UDP is refused; a pod that is not a namespace (none by that name) is refused.
  expect((await api(`api/replay?from=default%2Fclient&destination=${clusterIP}%3A80&protocol=udp`)).code).toBe(400);
  expect(await api(`api/replay?from=default%2Fnobody&destination=${clusterIP}%3A80`)).toEqual({
    code: 400,
    body: { ok: false, error: { _tag: 'ErrExplorerReplay', message: 'pod "default/nobody" not found' } },
  });

  // The page: the trace of the ClusterIP marks both DNATs as namespaces; a replay from the
  // client fills the REAL column, whose shares add up to the 20 requests.
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'], timeout: 60_000 });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ignoreHTTPSErrors: true });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    await page.goto(`${base}#/trace?source=10.244.0.2&destination=${clusterIP}%3A80&protocol=tcp&token=${encodeURIComponent(token)}`);
    const rows = page.locator('[data-testid="trace-outcomes"] tbody tr');
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(2);
    expect(await page.locator('[data-testid="trace-outcomes"] [data-testid="sandbox-badge"]').count()).toBe(2);
    await page.locator('[data-testid="replay-form"] select[name="from"]').selectOption('default/client');
    await page.locator('[data-testid="replay-form"] button[type="submit"]').click();
    const shares = page.locator('[data-testid="real-share"]');
    await expect.poll(() => shares.count(), { timeout: 60_000 }).toBe(2);
    const real = await shares.allTextContents();
    expect(real.map((t) => Number(t.split('/')[1]))).toEqual([20, 20]);
    expect(real.reduce((n, t) => n + Number(t.split('/')[0]), 0)).toBe(20);
    expect(await page.locator('[data-testid="replay-result"]').textContent()).toContain('20 real requests from default/client');
    await context.close();
  } finally {
    await browser.close();
  }

  up.child.kill('SIGTERM');
  expect(await up.exited).toBe(0);
  ups.delete(up);
}, 400_000);
