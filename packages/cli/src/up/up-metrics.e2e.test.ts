// /metrics of a real `kubesvc up` through the real kubectl, as the README's "Metrics" section
// shows it (the test checks it runs that section's commands): `kubectl get --raw /metrics`
// answers with the kubeconfig's token (and not with another), and after a Service is created for a Deployment's ready
// pods, kube-proxy's network programming histogram and the apiserver's POST services histogram
// have both moved, the store's create of the Service was timed and the objects are counted.
// Waits poll with a generous bound and print the last state seen.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { e2eScope, kubectl, kubectlRun, startUp, until } from './up.fixtures.js';

const exec = promisify(execFile);
const { children, tempDir } = e2eScope('kubesvc-up-metrics-');

/** The `$ ` command lines of the README's Metrics section, without the `$ `. */
function readmeSession(): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### Metrics: `kubectl get --raw /metrics`'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .filter((l) => l.startsWith('$ '))
    .map((l) => l.slice('$ '.length));
}

/** The sum of the values of the exposition's samples on lines that match `line`. */
function total(text: string, line: RegExp): number {
  return text
    .split('\n')
    .filter((l) => line.test(l))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

const NETWORK_PROGRAMMING_COUNT = /^kubeproxy_network_programming_duration_seconds_count\{/;
const POST_SERVICES_COUNT = /^apiserver_request_duration_seconds_count\{(?=.*verb="POST")(?=.*resource="services")(?=.*group="")/;

describe('kubesvc up serves /metrics', () => {
  it("the README session is this test's commands", () => {
    expect(readmeSession()).toEqual([
      'kubectl create deployment web --image=nginx --replicas=2',
      'kubectl expose deployment web --port=80 --target-port=8080',
      "kubectl get --raw /metrics | grep '^kubeproxy_network_programming_duration_seconds_count'",
      `kubectl get --raw /metrics | grep '^apiserver_request_duration_seconds_count{verb="POST",.*resource="services"'`,
    ]);
  });

  it('a Service for ready pods moves kubeproxy_network_programming_duration_seconds and apiserver_request_duration_seconds{verb="POST",resource="services"}', async () => {
    const testStarted = Date.now();
    const dataDir = tempDir();
    const cache = tempDir();
    await startUp(children, dataDir);
    const kubeconfig = join(dataDir, 'kubeconfig');
    const k = (...args: string[]) => kubectl(kubeconfig, cache, ...args);
    /** A README line, run by the shell as a reader would, with the kubeconfig `up` wrote. */
    const sh = async (line: string) => (await exec('/bin/sh', ['-c', line], { env: { ...process.env, KUBECONFIG: kubeconfig, KUBECACHEDIR: cache }, timeout: 60_000 })).stdout;
    const [createDeployment = '', expose = '', grepProgramming = '', grepPost = ''] = readmeSession();

    // Another token is refused as the API refuses it.
    const refused = await kubectlRun(kubeconfig, cache, 'get', '--raw', '/metrics', '--token', 'not-the-token');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Unauthorized/);

    const before = await k('get', '--raw', '/metrics');
    expect(before).toMatch(/^# TYPE kubeproxy_network_programming_duration_seconds histogram$/m);
    expect(before).toMatch(/^# TYPE apiserver_request_duration_seconds histogram$/m);
    const programmedBefore = total(before, NETWORK_PROGRAMMING_COUNT);
    const postsBefore = total(before, POST_SERVICES_COUNT);

    expect(await sh(createDeployment)).toBe('deployment.apps/web created\n');
    const podStates = () => k('get', 'pods', '-l', 'app=web', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name,PHASE:.status.phase,READY:.status.conditions[?(@.type=="Ready")].status');
    await until('2 pods Running and Ready', podStates, (text) => {
      const lines = text.trim().split('\n').filter((l) => l !== '');
      return lines.length === 2 && lines.every((l) => /\sRunning\s+True$/.test(l));
    });
    expect(await sh(expose)).toBe('service/web exposed\n');

    // grep exits 1 while no line matches: the shell's failure is a read that is not done yet.
    const programmed = await until('kubeproxy_network_programming_duration_seconds_count grew', () => sh(grepProgramming), (out) => total(out, NETWORK_PROGRAMMING_COUNT) > programmedBefore).catch(async (error: unknown) => {
      // What the kube-proxies were given to observe: the slices' trigger times (a time at or
      // before a proxier's start is not observed), the Service's creation, and their syncs.
      const slices = await k('get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'yaml').catch((e: unknown) => String(e));
      const service = await k('get', 'service', 'web', '-o', 'jsonpath={.metadata.creationTimestamp}').catch((e: unknown) => String(e));
      const syncs = (await k('get', '--raw', '/metrics').catch((e: unknown) => String(e)))
        .split('\n')
        .filter((l) => /^kubeproxy_(sync_proxy_rules_last_timestamp_seconds|sync_proxy_rules_duration_seconds_count|network_programming_duration_seconds_count)/.test(l))
        .join('\n');
      throw new Error(`${error instanceof Error ? error.message : String(error)}\nService web created ${service}\nits EndpointSlices:\n${slices}\nthe kube-proxies' syncs (the test started ${new Date(testStarted).toISOString()}):\n${syncs}`);
    });
    expect(programmed).toMatch(/^kubeproxy_network_programming_duration_seconds_count\{node="[^"]+"\} \d+$/m);
    const posts = await until('apiserver_request_duration_seconds_count{verb="POST",resource="services"} grew', () => sh(grepPost), (out) => total(out, POST_SERVICES_COUNT) > postsBefore);
    expect(posts).toMatch(/scope="resource"/);
    expect(posts).toMatch(/component="apiserver"/);

    // The store's calls are timed (SQLite here) and the objects counted: default/kubernetes and web.
    const after = await k('get', '--raw', '/metrics');
    expect(total(after, /^etcd_request_duration_seconds_count\{operation="create",group="",resource="services"\}/)).toBeGreaterThan(total(before, /^etcd_request_duration_seconds_count\{operation="create",group="",resource="services"\}/));
    expect(total(after, /^apiserver_storage_objects\{resource="services"\}/)).toBe(2);
    expect(total(after, /^apiserver_storage_objects\{resource="deployments\.apps"\}/)).toBe(1);
    // Three waits in a row, each bounded at two minutes on a loaded machine.
  }, 300_000);
});
