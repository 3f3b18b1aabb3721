// The explorer in a real browser: Debian's chromium driven by playwright-core, against the
// real `kubesvc up` (a child process on a temp data dir) and the real kubectl. Each scenario
// saves a screenshot under test-results/explorer/. The page is opened at 1280x800. The last
// block compares screenshots of the rule graph, a trace and the per-node matrix to the stored
// ones in __screenshots__/ (docs/explorer.md says how to refresh them).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureUiBuilt } from '@kubesvc/explorer/node';
import { BIN, PACKAGE_ROOT, REPO_ROOT } from '../run-bin.fixtures.js';
import { compareImages, expectScreenshot } from './screenshots.fixtures.js';

const exec = promisify(execFile);
const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(PACKAGE_ROOT, 'test-results', 'explorer');
const VIEWPORT = { width: 1280, height: 800 };
// Generous for a loaded 2-core machine, but bounded.
const STEP_MS = 15_000;

const children = new Set<ChildProcess>();
const dirs: string[] = [];
let browser: Browser | undefined;

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** Starts the bin with `args` and resolves with what it printed once `ready` appears in its output. */
async function startBin(args: readonly string[], ready: RegExp): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (err += c));
  const deadline = Date.now() + 60_000;
  while (!ready.test(out)) {
    if (child.exitCode !== null) throw new Error(`kubesvc ${args[0] ?? ''} exited ${child.exitCode}:\n${err}\n${out}`);
    if (Date.now() > deadline) throw new Error(`kubesvc ${args[0] ?? ''} did not start within 60 s:\n${err}\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, out: () => out };
}

const ipNumber = (ip: string): number => ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  expect(await ensureUiBuilt()).toBe(true);
  // The font flags keep glyphs the same from run to run for the stored screenshots: no
  // hinting, no subpixel (LCD) anti-aliasing, and sRGB whatever the display.
  const stableText = ['--font-render-hinting=none', '--disable-lcd-text', '--force-color-profile=srgb'];
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', ...stableText], timeout: 60_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  for (const child of children) await stop(child);
  children.clear();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}, 60_000);

/** Runs a scenario on a fresh page; on failure the page is saved as failed-<name>.png first. */
function onPage(name: string, scheme: 'light' | 'dark', scenario: (page: Page) => Promise<void>): Promise<void> {
  return onPageOf(() => newPage(scheme), name, scenario);
}

/** Runs a scenario on the page `open` makes, saving it as failed-<name>.png when the scenario fails. */
async function onPageOf(open: () => Promise<{ context: BrowserContext; page: Page }>, name: string, scenario: (page: Page) => Promise<void>): Promise<void> {
  const { context, page } = await open();
  try {
    await scenario(page);
  } catch (error) {
    await page.screenshot({ path: join(SHOTS, `failed-${name}.png`) }).catch(() => undefined);
    throw error;
  } finally {
    await context.close();
  }
}

async function newPage(scheme: 'light' | 'dark' = 'light'): Promise<{ context: BrowserContext; page: Page }> {
  if (browser === undefined) throw new Error('no browser');
  const context = await browser.newContext({ viewport: VIEWPORT, ignoreHTTPSErrors: true, colorScheme: scheme });
  context.setDefaultTimeout(STEP_MS);
  const page = await context.newPage();
  return { context, page };
}

const MANIFEST = `apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: default
spec:
  sessionAffinity: ClientIP
  ports:
  - name: http
    port: 80
    targetPort: 8080
---
apiVersion: v1
kind: Endpoints
metadata:
  name: web
  namespace: default
subsets:
- addresses:
  - ip: 10.244.1.5
  - ip: 10.244.2.7
  - ip: 10.244.3.9
  ports:
  - name: http
    port: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: shop
  namespace: default
spec:
  type: NodePort
  selector:
    app: shop
  ports:
  - port: 8080
    nodePort: 30080
---
apiVersion: v1
kind: Service
metadata:
  name: docs
  namespace: default
spec:
  type: ExternalName
  externalName: docs.example.com
`;

describe('the explorer of kubesvc up', () => {
  let link = '';
  let kubeconfig = '';
  let cacheDir = '';
  let workDir = '';
  const kubectl = async (...args: string[]): Promise<string> =>
    (await exec('/usr/bin/kubectl', ['--kubeconfig', kubeconfig, `--cache-dir=${cacheDir}`, ...args], { timeout: 30_000, env: { ...process.env, KUBECONFIG: kubeconfig } })).stdout;

  beforeAll(async () => {
    const dataDir = tempDir('kubesvc-explorer-');
    cacheDir = tempDir('kubesvc-kubectl-cache-');
    workDir = tempDir('kubesvc-explorer-work-');
    const up = await startBin(['up', '--data-dir', dataDir, '--secure-port', '0', '--dns-port', '0', '--advertise-address', '192.0.2.10'], /Ctrl-C stops it/);
    link = /explorer\s+(https:\/\/\S+)/.exec(up.out())?.[1] ?? '';
    expect(link).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/ui\/#token=/);
    kubeconfig = join(dataDir, 'kubeconfig');
    writeFileSync(join(workDir, 'services.yaml'), MANIFEST);
    await kubectl('apply', '-f', join(workDir, 'services.yaml'));
  }, 120_000);

  it('serves the page without the token, and its data only with it', async () => {
    const base = link.slice(0, link.indexOf('/ui/'));
    const token = decodeURIComponent(link.slice(link.indexOf('#token=') + '#token='.length));
    const curl = async (path: string, auth: boolean): Promise<string> =>
      (await exec('curl', ['-sk', '-o', '/dev/null', '-w', '%{http_code}', ...(auth ? ['-H', `Authorization: Bearer ${token}`] : []), `${base}${path}`], { timeout: 30_000 })).stdout;
    expect(await curl('/ui/', false)).toBe('200');
    expect(await curl('/ui/api/model', false)).toBe('403');
    expect(await curl('/ui/api/model', true)).toBe('200');
    expect(await curl('/ui/api/trace?destination=10.96.0.1:443', false)).toBe('403');
  });

  it("shows the services table with kubectl get svc -o wide's cells", async () => {
    await onPage('services', 'light', async (page) => {
      await page.goto(link);
      await page.locator('[data-testid="services-table"] tr[data-service="default/docs"]').waitFor();
      // Every cell equal, the Age cells too: the server computes kubectl's at some moment of the
      // kubectl call, so each must lie between the page's Age read just before it and the page's
      // Age once it has caught up. The page ticks once a second on a browser timer, which a busy
      // machine delays, so "after" is polled until every row has reached kubectl's Age.
      const readPage = (): Promise<string[][]> =>
        page.locator('[data-testid="services-table"] tr').evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll('th,td')).map((c) => (c.textContent ?? '').trim())));
      const before = await readPage();
      const text = await kubectl('get', 'svc', '-o', 'wide');
      const cliRows = text
        .trimEnd()
        .split('\n')
        .map((line) => line.trim().split(/\s{2,}/));
      const age = cliRows[0]?.indexOf('AGE') ?? -1;
      expect(age).toBe(5);
      // kubectl's HumanDuration forms ("45s", "5m3s", "3h", "2d4h", "2y40d") as seconds.
      const UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, y: 31_536_000 };
      const seconds = (cell: string | undefined): number => {
        const parts = [...(cell ?? '').matchAll(/(\d+)([smhdy])/g)];
        if (parts.length === 0 || parts.map((m) => m[0]).join('') !== cell) return Number.NaN;
        return parts.reduce((sum, m) => sum + Number(m[1]) * (UNIT[m[2] ?? ''] ?? Number.NaN), 0);
      };
      let after = await readPage();
      // The rows whose page Age is still behind kubectl's: none, once the page has caught up
      // (a failure prints the last ones seen, as [name, page, kubectl]).
      await expect
        .poll(
          async () => {
            after = await readPage();
            return cliRows
              .slice(1)
              .map((row, i) => [row[0], after[i + 1]?.[age], row[age]])
              .filter(([, pageAge, cliAge]) => !(seconds(pageAge) >= seconds(cliAge)));
          },
          { timeout: STEP_MS },
        )
        .toEqual([]);
      const withoutAge = (rows: string[][]) => rows.map((r) => r.filter((_, i) => i !== age));
      expect(withoutAge(before)).toEqual(withoutAge(cliRows));
      expect(withoutAge(after)).toEqual(withoutAge(cliRows));
      cliRows.slice(1).forEach((row, i) => {
        const [low, mid, high] = [seconds(before[i + 1]?.[age]), seconds(row[age]), seconds(after[i + 1]?.[age])];
        expect(mid).toBeGreaterThanOrEqual(low);
        expect(mid).toBeLessThanOrEqual(high);
      });
      expect(before[0]).toEqual(cliRows[0]);
      expect(cliRows.map((r) => r[0])).toEqual(['NAME', 'docs', 'kubernetes', 'shop', 'web']);
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(255, 255, 255)');
      await page.screenshot({ path: join(SHOTS, 'services.png') });

      // Keyboard: Tab reaches the row's link, Enter opens the service page.
      await page.locator('tr[data-service="default/web"] a').focus();
      await page.keyboard.press('Enter');
      await page.locator('[data-testid="service-page"]').waitFor();
      await expect.poll(() => page.locator('[data-testid="endpoints"] tbody tr').count(), { timeout: STEP_MS }).toBe(3);
      expect(await page.locator('[data-testid="env"]').textContent()).toContain('WEB_SERVICE_PORT_HTTP=80');
      expect(await page.locator('[data-testid="dns"]').textContent()).toMatch(/web\.default\.svc\.cluster\.local\.\s+\d+\s+IN\s+A\s+10\.\d+\.\d+\.\d+/);
      await page.screenshot({ path: join(SHOTS, 'service-page.png') });
    });
  });

  it('draws the rule graph of the 3-endpoint service with 3 SEP nodes at 0.3333333333, 0.5000000000 and 1', async () => {
    await onPage('rule-graph', 'light', async (page) => {
      await page.goto(link);
      await page.goto(link.replace(/#.*$/, '#/rules?service=default%2Fweb'));
      const seps = page.locator('[data-testid="rule-graph"] [data-testid="graph-node"][data-chain^="KUBE-SEP-"]');
      await expect.poll(() => seps.count(), { timeout: STEP_MS }).toBe(3);
      const labels = await seps.evaluateAll((nodes) => nodes.map((n) => Array.from(n.querySelectorAll('text')).map((t) => t.textContent ?? '')));
      expect(labels.map((l) => l.find((t) => t.startsWith('p '))).sort()).toEqual(['p 0.3333333333', 'p 0.5000000000', 'p 1']);
      // The ClientIP affinity adds the recent-check edges, and every SEP ends in a DNAT to its endpoint.
      const dnats = await page.locator('[data-testid="graph-node"][data-chain^="DNAT "]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-chain') ?? ''));
      expect(dnats.map((d) => d.split(' ')[1]).sort()).toEqual(['10.244.1.5:8080', '10.244.2.7:8080', '10.244.3.9:8080']);
      const edgeTitles = await page.locator('[data-testid="graph-edge"] title').allTextContents();
      expect(edgeTitles.filter((t) => t.includes('--rcheck --seconds 10800'))).toHaveLength(3);
      // Keyboard: focusing a chain lists its rules.
      await seps.first().focus();
      expect(await page.locator('[data-testid="chain-rules"] pre').textContent()).toMatch(/^-A KUBE-SEP-\S+ .*-j /m);
      await page.screenshot({ path: join(SHOTS, 'rule-graph.png') });
    });
  });

  it('shows the allocation map with kubernetes at the first IP and the two allocated IPs', async () => {
    const ips = (await kubectl('get', 'svc', 'web', 'shop', '-o', 'jsonpath={.items[*].spec.clusterIP}')).trim().split(' ');
    expect(ips).toHaveLength(2);
    await onPage('allocation', 'dark', async (page) => {
      await page.goto(link);
      await page.goto(link.replace(/#.*$/, '#/allocation'));
      const rows = page.locator('[data-testid="allocated-ips"] tbody tr');
      await expect.poll(() => rows.count(), { timeout: STEP_MS }).toBe(3);
      const cells = await rows.evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => (td.textContent ?? '').trim())));
      expect(cells[0]).toEqual(['10.96.0.1', 'first', 'default/kubernetes']);
      const byIP = new Map(cells.map((c) => [c[0], c[2]]));
      expect(byIP.get(ips[0] ?? '')).toBe('default/web');
      expect(byIP.get(ips[1] ?? '')).toBe('default/shop');
      // The /12 is drawn as 1024 blocks of 1024; the held ones are marked, and block 0 zooms in.
      expect(await page.locator('[data-testid="allocation-blocks"] button').count()).toBe(1024);
      const blockOf = (ip: string) => Math.floor((ipNumber(ip) - ipNumber('10.96.0.1')) / 1024);
      const usedBlocks = await page.locator('[data-testid="allocation-blocks"] button.used').evaluateAll((bs) => bs.map((b) => Number(b.getAttribute('data-block'))));
      expect(usedBlocks.sort((a, b) => a - b)).toEqual([...new Set([0, ...ips.map(blockOf)])].sort((a, b) => a - b));
      // This page was opened with the system set to dark: the dark theme's colours are in force.
      expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(13, 17, 23)');
      await page.screenshot({ path: join(SHOTS, 'allocation-dark.png') });
      await page.locator('[data-testid="allocation-blocks"] button[data-block="0"]').click();
      const first = page.locator('[data-testid="allocation-cells"] [data-offset="0"]');
      expect(await first.getAttribute('data-ip')).toBe('10.96.0.1');
      expect(await first.getAttribute('aria-label')).toBe('10.96.0.1: default/kubernetes (first IP)');
    });
  });

  it('traces a packet to the ClusterIP to the three endpoints at 1/3 each, and an ICMP ping to no rule', async () => {
    const ip = (await kubectl('get', 'svc', 'web', '-o', 'jsonpath={.spec.clusterIP}')).trim();
    await onPage('trace', 'light', async (page) => {
      await page.goto(link);
      await page.goto(link.replace(/#.*$/, '#/trace'));
      await page.locator('input[name="destination"]').fill(`${ip}:80`);
      await page.locator('select[name="protocol"]').selectOption('tcp');
      await page.locator('input[name="destination"]').press('Enter');
      const rows = page.locator('[data-testid="trace-outcomes"] tbody tr');
      await expect.poll(() => rows.count(), { timeout: STEP_MS }).toBe(3);
      const cells = await rows.evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => (td.textContent ?? '').trim())));
      expect(cells.map((c) => [c[0], c[1], c[2]])).toEqual([
        ['DNAT', '10.244.1.5:8080', '1/3'],
        ['DNAT', '10.244.2.7:8080', '1/3'],
        ['DNAT', '10.244.3.9:8080', '1/3'],
      ]);
      // The path is lit on the graph: the three SEP chains and their service chain.
      expect(await page.locator('[data-testid="graph-node"].lit[data-chain^="KUBE-SEP-"]').count()).toBe(3);
      expect(await page.locator('[data-testid="graph-node"].lit[data-chain^="KUBE-SVC-"]').count()).toBe(1);
      await page.screenshot({ path: join(SHOTS, 'trace.png'), fullPage: true });

      await page.locator('select[name="protocol"]').selectOption('icmp');
      await page.locator('input[name="destination"]').fill(ip);
      await page.locator('button[type="submit"]').click();
      await expect
        .poll(async () => (await page.locator('[data-testid="trace-outcomes"] tbody').textContent()) ?? '', { timeout: STEP_MS })
        .toContain('no rule matches');
      expect(await rows.count()).toBe(1);
      await page.screenshot({ path: join(SHOTS, 'trace-icmp.png') });
    });
  });

  it('keeps its way on a link to a page that carries the token, and a trace is a link that traces the packet again', async () => {
    const ip = (await kubectl('get', 'svc', 'web', '-o', 'jsonpath={.spec.clusterIP}')).trim();
    const token = link.slice(link.indexOf('#token=') + '#token='.length);
    const base = link.replace(/#.*$/, '');
    await onPage('deep-link', 'light', async (page) => {
      // A fresh tab (no token in its session yet) opened on the rule graph of web.
      await page.goto(`${base}#/rules?service=default%2Fweb&token=${token}`);
      await page.locator('[data-testid="graph-node"][data-chain^="KUBE-SEP-"]').first().waitFor({ timeout: STEP_MS });
      expect(await page.evaluate(() => location.hash)).toBe('#/rules?service=default%2Fweb');
      expect(await page.locator('[data-testid="graph-node"][data-chain^="KUBE-SEP-"]').count()).toBe(3);
      // Fitted to its box: every chain lies inside it, every name inside its chain's box, and no
      // edge's label lies on its own edge.
      const drawing = await page.evaluate(() => {
        const box = document.querySelector('[data-testid="graph-box"]')?.getBoundingClientRect();
        const nodes = [...document.querySelectorAll<SVGGElement>('[data-testid="graph-node"]')].map((g) => {
          const r = g.getBoundingClientRect();
          const width = g.querySelector('rect')?.getBBox().width ?? 0;
          const texts = [...g.querySelectorAll<SVGTextElement>('text')].map((t) => (t.x.baseVal.getItem(0)?.value ?? 0) + t.getComputedTextLength());
          return { chain: g.dataset['chain'] ?? '', inside: box !== undefined && r.left >= box.left - 1 && r.right <= box.right + 1, nameFits: Math.max(...texts) <= width };
        });
        const crosses = (a: DOMPoint, b: DOMPoint, r: DOMRect): boolean => {
          // The segment a-b against the rectangle r: sampled finely enough for 10 px tall labels.
          for (let i = 0; i <= 50; i++) {
            const x = a.x + ((b.x - a.x) * i) / 50;
            const y = a.y + ((b.y - a.y) * i) / 50;
            if (x > r.x + 1 && x < r.x + r.width - 1 && y > r.y + 1 && y < r.y + r.height - 1) return true;
          }
          return false;
        };
        const edges = [...document.querySelectorAll<SVGGElement>('[data-testid="graph-edge"]')].flatMap((g) => {
          const line = g.querySelector('polyline');
          const points = line === null ? [] : [...Array(line.points.numberOfItems).keys()].map((i) => line.points.getItem(i));
          return [...g.querySelectorAll<SVGTextElement>('text')].map((t) => {
            const r = t.getBBox();
            return { edge: `${g.dataset['from'] ?? ''}>${g.dataset['to'] ?? ''}`, onItsEdge: points.some((p, i) => i > 0 && crosses(points[i - 1] as DOMPoint, p, r)) };
          });
        });
        return { nodes, edges };
      });
      expect(drawing.nodes.filter((n) => !n.inside || !n.nameFits)).toEqual([]);
      expect(drawing.edges.filter((e) => e.onItsEdge)).toEqual([]);
      await page.screenshot({ path: join(SHOTS, 'rules-fit.png') });
    });
    await onPage('trace-link', 'light', async (page) => {
      await page.goto(`${base}#/trace?source=10.244.0.2&destination=${ip}%3A80&protocol=tcp&token=${token}`);
      const rows = page.locator('[data-testid="trace-outcomes"] tbody tr');
      await expect.poll(() => rows.count(), { timeout: STEP_MS }).toBe(3);
      const href = await page.locator('[data-testid="trace-link"]').getAttribute('href');
      expect(href).toBe(`#/trace?source=10.244.0.2&destination=${ip}%3A80&protocol=tcp`);
      expect(await page.evaluate(() => location.hash)).toBe(href);
      await page.screenshot({ path: join(SHOTS, 'trace-link.png') });
    });
  });

  // The page follows the watch without a reload; how fast is not a test's business on a
  // shared machine, so the wait is generous and only the row's arrival is checked.
  it('shows a Service created with kubectl while the page is open, without a reload', async () => {
    await onPage('live-update', 'light', async (page) => {
      await page.goto(link);
      await page.locator('tr[data-service="default/web"]').waitFor();
      writeFileSync(join(workDir, 'late.yaml'), 'apiVersion: v1\nkind: Service\nmetadata:\n  name: late\nspec:\n  ports:\n  - port: 9090\n');
      await kubectl('apply', '-f', join(workDir, 'late.yaml'));
      await page.locator('tr[data-service="default/late"]').waitFor({ timeout: 30_000 });
      await page.screenshot({ path: join(SHOTS, 'live-update.png') });
    });
  });
});

describe('kubesvc explore over a dump', () => {
  it('serves the docs example read-only: the dump’s services, graph and trace', async () => {
    // The example of docs/explorer.md, run as written (with a free port).
    const docs = readFileSync(join(REPO_ROOT, 'docs', 'explorer.md'), 'utf8');
    const command = /^npx kubesvc (explore -f \S+)/m.exec(docs)?.[1];
    expect(command).toBeDefined();
    const args = [...(command ?? '').split(' '), '--port', '0'];
    expect(existsSync(join(REPO_ROOT, args[2] ?? ''))).toBe(true);
    const explore = await startBin(args, /Ctrl-C stops it/);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/ui\/#token=\S+)/.exec(explore.out())?.[1] ?? '';
    expect(url).not.toBe('');
    await onPage('explore-dump', 'light', async (page) => {
      await page.goto(url);
      await page.locator('[data-testid="namespace"]').selectOption('');
      await page.locator('tr[data-service="shop/web"]').waitFor();
      expect(await page.locator('[data-testid="status"]').textContent()).toContain('read-only dump');
      await page.screenshot({ path: join(SHOTS, 'explore-dump.png') });
      await page.goto(url.replace(/#.*$/, '#/rules?service=shop%2Fweb'));
      await expect.poll(() => page.locator('[data-testid="graph-node"][data-chain^="KUBE-SEP-"]').count(), { timeout: STEP_MS }).toBe(3);
    }).finally(() => stop(explore.child));
  });

  it("picks a node: the rule graph and a trace as that node's kube-proxy, and the service's matrix from every node (the docs example)", async () => {
    // The node example of docs/explorer.md, run as written (with a free port).
    const docs = readFileSync(join(REPO_ROOT, 'docs', 'explorer.md'), 'utf8');
    const command = /^npx kubesvc (explore -f \S+topology\.yaml)$/m.exec(docs)?.[1];
    expect(command).toBeDefined();
    const explore = await startBin([...(command ?? '').split(' '), '--port', '0'], /Ctrl-C stops it/);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/ui\/#token=\S+)/.exec(explore.out())?.[1] ?? '';
    expect(url).not.toBe('');
    const route = async (page: Page, hash: string): Promise<void> => {
      await page.evaluate((h) => {
        location.hash = h;
      }, hash);
    };
    await onPage('explore-nodes', 'light', async (page) => {
      await page.goto(url);
      const picker = page.locator('[data-testid="node-picker"]');
      // The picker comes with the first model.
      await picker.waitFor();
      expect(await picker.locator('option').allTextContents()).toEqual(['(no node)', 'node-a (zone-a)', 'node-b (zone-b)', 'node-c (zone-c)']);
      expect(await picker.inputValue()).toBe('');
      const dnats = async (): Promise<string[]> =>
        (await page.locator('[data-testid="graph-node"][data-chain^="DNAT "]').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-chain') ?? ''))).map((d) => d.split(' ')[1] ?? '').sort();
      // (no node): the flags' node-1, with no zone label, reaches all six endpoints of shop/web.
      await route(page, '/rules?service=shop%2Fweb');
      await expect.poll(dnats, { timeout: STEP_MS }).toEqual(['10.244.1.11:8080', '10.244.1.12:8080', '10.244.2.11:8080', '10.244.2.12:8080', '10.244.3.11:8080', '10.244.3.12:8080']);
      await picker.selectOption('node-b');
      await expect.poll(async () => (await page.locator('[data-testid="status"]').textContent()) ?? '', { timeout: STEP_MS }).toContain('as node node-b');
      await expect.poll(dnats, { timeout: STEP_MS }).toEqual(['10.244.2.11:8080', '10.244.2.12:8080']);

      await route(page, '/trace');
      await page.locator('input[name="destination"]').fill('10.96.50.10:80');
      await page.locator('input[name="destination"]').press('Enter');
      const outcomes = page.locator('[data-testid="trace-outcomes"] tbody tr');
      await expect.poll(() => outcomes.count(), { timeout: STEP_MS }).toBe(2);
      const traced = await outcomes.evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => (td.textContent ?? '').trim())));
      expect(traced.map((c) => [c[0], c[1], c[2]])).toEqual([
        ['DNAT', '10.244.2.11:8080', '1/2'],
        ['DNAT', '10.244.2.12:8080', '1/2'],
      ]);

      // The matrix of the eTP Local NodePort: each node reaches its own endpoint; node-c drops.
      await route(page, '/service/shop/edge');
      const matrix = page.locator('[data-testid="node-matrix"][data-packet=":30080"]');
      await matrix.waitFor();
      const rows = await matrix.locator('tbody tr').evaluateAll((trs) =>
        trs.map((tr) => [tr.getAttribute('data-node') ?? '', ...Array.from(tr.querySelectorAll('td')).map((td) => td.getAttribute('data-probability') ?? (td.textContent ?? '').trim())]),
      );
      expect(rows).toEqual([
        ['node-a', 'zone-a', '1', '—'],
        ['node-b', 'zone-b', '—', '1'],
        ['node-c', 'zone-c', 'drop: shop/edge:http has no local endpoints'],
      ]);
      expect(await matrix.locator('thead th').allTextContents()).toEqual(['NODE', 'ZONE', '10.244.1.31:8080', '10.244.2.31:8080']);
      // The picked node's row is marked.
      expect(await matrix.locator('tr[aria-current="true"]').getAttribute('data-node')).toBe('node-b');

      // The PreferClose Service: each zone's node reaches its zone's two endpoints at 1/2.
      await route(page, '/service/shop/web');
      const web = page.locator('[data-testid="node-matrix"][data-packet="10.96.50.10:80"]');
      await web.waitFor();
      const reached = await web.locator('tbody tr').evaluateAll((trs) =>
        trs.map((tr) => [tr.getAttribute('data-node') ?? '', ...Array.from(tr.querySelectorAll('td[data-probability]')).map((td) => `${td.getAttribute('data-endpoint') ?? ''} ${td.getAttribute('data-probability') ?? ''}`)]),
      );
      expect(reached).toEqual([
        ['node-a', '10.244.1.11:8080 1/2', '10.244.1.12:8080 1/2'],
        ['node-b', '10.244.2.11:8080 1/2', '10.244.2.12:8080 1/2'],
        ['node-c', '10.244.3.11:8080 1/2', '10.244.3.12:8080 1/2'],
      ]);
      await page.screenshot({ path: join(SHOTS, 'node-matrix.png'), fullPage: true });

      // Back to (no node): the flags' node again.
      await picker.selectOption('');
      await expect.poll(async () => (await page.locator('[data-testid="status"]').textContent()) ?? '', { timeout: STEP_MS }).not.toContain('as node');
    }).finally(() => stop(explore.child));
  });
});

// Screenshots compared to stored ones (screenshots.fixtures.ts: pixelmatch over pngjs), over the
// docs' dumps, whose pages hold no clock or random value. Each page is drawn at the 1280x800
// viewport with a device scale factor of 1, in the light theme, with reduced motion and CSS
// animations off, and its text in the DejaVu fonts (fonts-dejavu-core, which
// tools/system-deps.sh installs) rather than whatever system-ui and monospace resolve to. A page
// is shot once its data is drawn and its status says it is live.
//   KUBESVC_UPDATE_SCREENSHOTS=1 npx vitest run src/explore/explorer.browser.test.ts -t screenshot
// writes the stored images again (never under CI=true, where a missing one fails).
const STORED = join(PACKAGE_ROOT, 'src', 'explore', '__screenshots__');
const SHOT_RESULTS = join(PACKAGE_ROOT, 'test-results', 'explorer-screenshots');
// The share of pixels that may differ from the stored image: 1 in 10,000 (about 100 of the
// 1,024,000 of a 1280x800 page). Runs on one kind of machine draw the same pixels; a chain name
// cut short or a label moved onto its edge changes several times more (the last test shows it).
const MAX_DIFF_RATIO = 0.0001;
const FIXED_FONTS = `body, input, select, button { font-family: 'DejaVu Sans' !important; }
th, td, pre, code, svg text { font-family: 'DejaVu Sans Mono' !important; }`;
const shotOptions = { storedDir: STORED, outputDir: SHOT_RESULTS, maxDiffRatio: MAX_DIFF_RATIO };

async function fixedPage(): Promise<{ context: BrowserContext; page: Page }> {
  if (browser === undefined) throw new Error('no browser');
  const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, colorScheme: 'light', reducedMotion: 'reduce', locale: 'en-US', timezoneId: 'UTC' });
  context.setDefaultTimeout(STEP_MS);
  // The fonts are set before the page's own script runs, so nothing is ever drawn in another.
  await context.addInitScript((css: string) => {
    const style = document.createElement('style');
    style.textContent = css;
    const add = (): void => void (document.head ?? document.documentElement).append(style);
    if (document.documentElement === null) document.addEventListener('readystatechange', add, { once: true });
    else add();
  }, FIXED_FONTS);
  return { context, page: await context.newPage() };
}

/** The whole page as a PNG, once its fonts are loaded and its status says live. */
async function shoot(page: Page): Promise<Buffer> {
  await expect.poll(async () => (await page.locator('[data-testid="status"]').textContent()) ?? '', { timeout: STEP_MS }).toMatch(/ · live$/);
  const fonts = await page.evaluate(async () => {
    await document.fonts.ready;
    const text = document.querySelector('svg text, td');
    return { body: getComputedStyle(document.body).fontFamily, text: text === null ? '' : getComputedStyle(text).fontFamily };
  });
  expect(fonts).toEqual({ body: '"DejaVu Sans"', text: '"DejaVu Sans Mono"' });
  return page.screenshot({ fullPage: true, animations: 'disabled', caret: 'hide', scale: 'css' });
}

describe('screenshots of the explorer compared to stored ones', () => {
  const links = { cluster: '', topology: '' };
  const withToken = (url: string, route: string): string => `${url.replace(/#.*$/, '')}#${route}&token=${url.slice(url.indexOf('#token=') + '#token='.length)}`;

  beforeAll(async () => {
    for (const fixture of ['cluster', 'topology'] as const) {
      const explore = await startBin(['explore', '-f', `packages/cli/src/fixtures/${fixture}.yaml`, '--port', '0'], /Ctrl-C stops it/);
      links[fixture] = /(http:\/\/127\.0\.0\.1:\d+\/ui\/#token=\S+)/.exec(explore.out())?.[1] ?? '';
      expect(links[fixture]).not.toBe('');
    }
  }, 120_000);

  const onFixedPage = (name: string, scenario: (page: Page) => Promise<void>): Promise<void> => onPageOf(fixedPage, name, scenario);

  const openRuleGraph = async (page: Page): Promise<void> => {
    await page.goto(withToken(links.cluster, '/rules?service=shop%2Fweb'));
    await expect.poll(() => page.locator('[data-testid="graph-node"][data-chain^="KUBE-SEP-"]').count(), { timeout: STEP_MS }).toBe(3);
  };

  it('screenshot: the rule graph of shop/web (three endpoints) matches the stored one', async () => {
    await onFixedPage('shot-rule-graph', async (page) => {
      await openRuleGraph(page);
      expectScreenshot('rule-graph', await shoot(page), shotOptions);
    });
  });

  it('screenshot: a trace to shop/web at 1/3 each, lit on the graph, matches the stored one', async () => {
    await onFixedPage('shot-trace', async (page) => {
      await page.goto(withToken(links.cluster, '/trace?source=10.244.0.2&destination=10.96.100.10%3A80&protocol=tcp'));
      await expect.poll(() => page.locator('[data-testid="trace-outcomes"] tbody tr').count(), { timeout: STEP_MS }).toBe(3);
      await expect.poll(() => page.locator('[data-testid="graph-node"].lit[data-chain^="KUBE-SEP-"]').count(), { timeout: STEP_MS }).toBe(3);
      expectScreenshot('trace', await shoot(page), shotOptions);
    });
  });

  it("screenshot: shop/web's per-node matrix as node-b matches the stored one", async () => {
    await onFixedPage('shot-node-matrix', async (page) => {
      await page.goto(withToken(links.topology, '/service/shop/web?'));
      await page.locator('[data-testid="node-picker"]').selectOption('node-b');
      await expect.poll(async () => (await page.locator('[data-testid="status"]').textContent()) ?? '', { timeout: STEP_MS }).toContain('as node node-b');
      const matrix = page.locator('[data-testid="node-matrix"][data-packet="10.96.50.10:80"]');
      await matrix.waitFor();
      await expect.poll(() => matrix.locator('tr[aria-current="true"]').getAttribute('data-node'), { timeout: STEP_MS }).toBe('node-b');
      expect(await matrix.locator('tbody tr').count()).toBe(3);
      expectScreenshot('node-matrix', await shoot(page), shotOptions);
    });
  });

  it('screenshot: the tolerance fails a rule graph with a chain name cut short, or an edge label moved onto its edge', async () => {
    await onFixedPage('shot-altered', async (page) => {
      await openRuleGraph(page);
      const stored = readFileSync(join(STORED, 'rule-graph.png'));
      // As drawn, the page matches: what follows fails because of the change alone.
      expect(compareImages(stored, await shoot(page)).ratio).toBeLessThanOrEqual(MAX_DIFF_RATIO);
      const local = { CI: undefined, KUBESVC_UPDATE_SCREENSHOTS: undefined };

      // One SEP chain's name cut to its prefix.
      const cut = await page.locator('[data-testid="graph-node"][data-chain^="KUBE-SEP-"] text.node-title').first().evaluate((t) => {
        const was = t.textContent ?? '';
        t.textContent = 'KUBE-SEP-';
        return was;
      });
      expect(cut).toMatch(/^KUBE-SEP-[A-Z0-9]{16}$/);
      const shortened = await shoot(page);
      const outputDir = join(SHOT_RESULTS, 'altered');
      expect(() => expectScreenshot('rule-graph', shortened, { ...shotOptions, outputDir, env: local })).toThrow(/does not match .*rule-graph\.png: \d+ of 1024000 pixels \(ratio 0\.\d+\) differ, over the tolerance 0\.0001; actual .*rule-graph-actual\.png; diff .*rule-graph-diff\.png/);
      expect(existsSync(join(outputDir, 'rule-graph-diff.png'))).toBe(true);
      expect(compareImages(stored, shortened).ratio, `${cut} cut to KUBE-SEP-`).toBeGreaterThan(MAX_DIFF_RATIO);

      // The name back, and the first edge's label moved onto the middle of its edge.
      await page.locator('[data-testid="graph-node"][data-chain^="KUBE-SEP-"] text.node-title').first().evaluate((t, name) => void (t.textContent = name), cut);
      expect(compareImages(stored, await shoot(page)).ratio).toBeLessThanOrEqual(MAX_DIFF_RATIO);
      const moved = await page.locator('[data-testid="graph-edge"]').evaluateAll((edges) => {
        for (const g of edges) {
          const line = g.querySelector('polyline');
          const label = g.querySelector('text');
          if (line === null || label === null || (label.textContent ?? '').trim() === '' || line.points.numberOfItems < 2) continue;
          const a = line.points.getItem(0);
          const b = line.points.getItem(line.points.numberOfItems - 1);
          const box = label.getBBox();
          label.setAttribute('transform', `translate(${(a.x + b.x) / 2 - (box.x + box.width / 2)} ${(a.y + b.y) / 2 - (box.y + box.height / 2)})`);
          return label.textContent ?? '';
        }
        return '';
      });
      expect(moved).not.toBe('');
      const movedRatio = compareImages(stored, await shoot(page)).ratio;
      expect(movedRatio, `the label ${moved} moved onto its edge`).toBeGreaterThan(MAX_DIFF_RATIO);
    });
  });
});
