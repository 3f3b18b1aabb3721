// `kubesvc up --dataplane netns --nodes 2`: every pod a network namespace, the kube-proxy
// walk-through from inside a pod with the real curl, dig and ping (through `kubectl exec`, and
// `kubectl logs` and `port-forward`), as
// the README's "See it happen" section shows it (the test runs that section's commands): the
// kubernetes Service through kube-proxy's DNAT and the relay, a Deployment of 3 behind a Service
// answered by all three (chi-square) and the DNAT in the node's conntrack table, ClientIP
// affinity, ping failing where curl works, DNS, the Services' variables fixed at a pod's start, the
// namespaces gone after a delete and after a stop, a crash's leftovers removed at start, the
// nftables mode loading into the node's namespace, and the refusal without root.
// Waits poll with a generous bound and print the last state seen.
// @needs-root: kubesvc up --dataplane netns makes network namespaces and loads iptables rules; testkit root-only.ts refuses a run without root that selects it.
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { chiSquareTest, podNetworkPrefix } from '@kubesvc/netlab';
import { describe, expect, it } from 'vitest';
import { e2eScope, kubectl, startUp, until, upArgs, type RunningUp } from './up.fixtures.js';
import { podNetworkScope } from './netns.fixtures.js';

const exec = promisify(execFile);
const PATH = `${process.env['PATH'] ?? ''}:/usr/sbin:/sbin`;
const { children, tempDir } = e2eScope('kubesvc-up-netns-');

/** The `$ ` command lines of the README's "See it happen" section, without the `$ `. */
function readmeSession(): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### See it happen: every pod a network namespace'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .filter((l) => l.startsWith('$ '))
    .map((l) => l.slice('$ '.length));
}

/** The network namespaces whose names start with `prefix`. */
function namespacesWith(prefix: string): string[] {
  const out = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8', env: { ...process.env, PATH } }).stdout ?? '';
  return out
    .split('\n')
    .map((l) => l.split(' ')[0] ?? '')
    .filter((n) => n.startsWith(prefix));
}

/** `ip netns exec <ns> ...`, whatever its exit code. */
async function inPod(netns: string, ...command: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await exec('ip', ['netns', 'exec', netns, ...command], { timeout: 60_000, env: { ...process.env, PATH } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

const { prefixes, ups } = podNetworkScope();

async function startNetnsUp(dataDir: string): Promise<{ up: RunningUp; prefix: string }> {
  const prefix = podNetworkPrefix(resolve(dataDir));
  prefixes.add(prefix);
  const up = await startUp(children, dataDir, ['--dataplane', 'netns', '--nodes', '2']);
  ups.add(up);
  expect(up.stderr()).toContain(`Pod network made: namespaces ${prefix}_host, ${prefix}_node1, ${prefix}_node2`);
  return { up, prefix };
}

async function stopAndCheckNothingLeft(up: RunningUp, prefix: string): Promise<void> {
  up.child.kill('SIGTERM');
  expect(await up.exited).toBe(0);
  ups.delete(up);
  expect(namespacesWith(prefix)).toEqual([]);
  expect(existsSync(`/etc/netns/${prefix}-default.client`)).toBe(false);
  expect(existsSync(join(tmpdir(), `${prefix}-relay`))).toBe(false);
}

describe('kubesvc up --dataplane netns: every pod a network namespace', () => {
  it("the README session is this test's commands", () => {
    expect(readmeSession()).toEqual([
      'kubectl run client --image=busybox',
      'kubectl create deployment web --image=nginx --replicas=3',
      'kubectl expose deployment web --port=80',
      'kubectl exec client -- curl -sk https://10.96.0.1/',
      'kubectl exec client -- curl -s web/hostname',
      'kubectl exec client -- dig +short web.default.svc.cluster.local',
      "kubectl exec client -- ping -c1 -W1 $(kubectl get svc web -o jsonpath='{.spec.clusterIP}')",
      'kubectl logs deployment/web',
      'kubectl port-forward svc/web 8080:80 >/dev/null & sleep 2; curl -s 127.0.0.1:8080/hostname; kill %1',
      'kubectl delete deployment web',
    ]);
  });

  it('the walk-through from a pod: the kubernetes Service, a Deployment of 3 behind a Service (chi-square), ClientIP affinity, ping and curl, DNS, and the namespaces gone after a delete and a stop', async () => {
    const dataDir = tempDir();
    const cache = tempDir();
    const { up, prefix } = await startNetnsUp(dataDir);
    const kubeconfig = join(dataDir, 'kubeconfig');
    const k = (...args: string[]) => kubectl(kubeconfig, cache, ...args);
    const client = `${prefix}-default.client`;
    const sh = async (line: string) => {
      try {
        const r = await exec('/bin/bash', ['-c', line], { env: { ...process.env, PATH, KUBECONFIG: kubeconfig, KUBECACHEDIR: cache, C: client }, timeout: 60_000 });
        return { code: 0, stdout: r.stdout };
      } catch (e) {
        const x = e as { code?: number; stdout?: string };
        return { code: typeof x.code === 'number' ? x.code : -1, stdout: x.stdout ?? '' };
      }
    };
    const [run = '', create = '', expose = '', kubernetes = '', byName = '', dig = '', ping = '', logsOf = '', portForward = '', del = ''] = readmeSession();

    expect((await sh(run)).stdout).toBe('pod/client created\n');
    expect((await sh(create)).stdout).toBe('deployment.apps/web created\n');
    const podStates = () => k('get', 'pods', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name,IP:.status.podIP,NODE:.spec.nodeName,READY:.status.conditions[?(@.type=="Ready")].status');
    const ready = await until('4 pods Ready', podStates, (text) => {
      const lines = text.trim().split('\n').filter((l) => l !== '');
      return lines.length === 4 && lines.every((l) => /\sTrue$/.test(l));
    });
    const webPods = ready
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/))
      .filter(([name]) => name?.startsWith('web-') === true);
    // Both nodes run pods, each from its own pod CIDR.
    expect(new Set(webPods.map(([, , node]) => node)).size).toBe(2);
    expect((await sh(expose)).stdout).toBe('service/web exposed\n');
    const clusterIP = (await k('get', 'svc', 'web', '-o', 'jsonpath={.spec.clusterIP}')).trim();

    await until(`namespace ${client}`, () => Promise.resolve(namespacesWith(client)), (names) => names.includes(client));
    // kubectl exec runs in the pod's namespace: its resolv.conf is the kubelet's.
    expect((await k('exec', 'client', '--', 'cat', '/etc/resolv.conf'))).toBe('search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n');

    // The kubernetes Service: kube-proxy's DNAT to the advertise address, the relay, the API.
    const status = await until('the apiserver\'s Status through https://10.96.0.1/', async () => (await sh(kubernetes)).stdout, (out) => out.startsWith('{'));
    expect(JSON.parse(status)).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'forbidden: User "system:anonymous" cannot get path "/"', reason: 'Forbidden', details: {}, code: 403 });

    // By name, through the cluster DNS at kube-dns's ClusterIP (the search paths of resolv.conf).
    const names = new Set(webPods.map(([name]) => name));
    const answered = await until('web/hostname answered by a web pod', async () => (await sh(byName)).stdout, (out) => names.has(out));
    expect(names.has(answered)).toBe(true);
    expect((await sh(dig)).stdout).toBe(`${clusterIP}\n`);
    // The Services' variables are fixed when a pod's containers start, as the kubelet computes
    // them: the client predates web, a pod started after it has web's.
    expect(await k('exec', 'client', '--', 'env')).not.toMatch(/^WEB_SERVICE_HOST=/m);
    await k('run', 'late', '--image=busybox', '--', 'sleep', '3600');
    const lateEnv = await until('the late pod\'s environment through kubectl exec', () => k('exec', 'late', '--', 'env'), (out) => out.includes('HOSTNAME=late'));
    expect(lateEnv).toMatch(new RegExp(`^WEB_SERVICE_HOST=${clusterIP.replace(/\./g, '\\.')}$`, 'm'));
    expect(lateEnv).toMatch(/^WEB_SERVICE_PORT=80$/m);
    // Its command did not run, and kubectl describe says so.
    const described = await until('the CommandIgnored event in kubectl describe pod late', () => k('describe', 'pod', 'late'), (out) => out.includes('CommandIgnored'));
    expect(described).toMatch(/Normal\s+CommandIgnored\s+\S+\s+kubelet\s+kubesvc runs no image: the command and args of container late are ignored/);

    // A command's exit code comes back through kubectl, as kubectl prints it.
    const failed = await sh('kubectl exec client -- sh -c "exit 3"');
    expect(failed.code).toBe(3);

    // 300 requests to the ClusterIP: each of the three answers, with shares a fair choice gives.
    const loop = (n: number) => `for i in $(seq ${n}); do curl -s --max-time 5 http://${clusterIP}/hostname; echo; done`;
    const counts: Record<string, number> = {};
    for (const line of (await inPod(client, 'sh', '-c', loop(300))).stdout.split('\n').filter((l) => l !== '')) counts[line] = (counts[line] ?? 0) + 1;
    expect(Object.keys(counts).sort()).toEqual([...names].sort());
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(300);
    const fair = Object.fromEntries([...names].map((n) => [n, 1 / 3]));
    expect(chiSquareTest(counts, fair).pValue).toBeGreaterThan(0.001);

    // The kernel's own record of the DNAT: the client node's conntrack table holds connections to
    // the ClusterIP whose replies came from a web pod's address.
    const webIPs = new Set(webPods.map(([, ip]) => ip));
    const tracked = (await Promise.all([1, 2].map((i) => inPod(`${prefix}_node${i}`, 'conntrack', '-L', '-p', 'tcp', '-d', clusterIP)))).map((r) => r.stdout).join('');
    const translated = tracked.split('\n').filter((l) => l.includes(`dst=${clusterIP} `)).map((l) => /src=(\S+) dst=\S+ sport=\d+ dport=\d+(?: \[UNREPLIED\])? src=(\S+)/.exec(l)?.[2]);
    expect(translated.length, tracked).toBeGreaterThan(0);
    expect(translated.every((ip) => ip !== undefined && webIPs.has(ip)), tracked).toBe(true);

    // ping gets no answer from a ClusterIP (no rule answers ICMP), while curl gets through.
    const pinged = await sh(ping);
    expect(pinged.code).not.toBe(0);
    expect(pinged.stdout).toMatch(/1 packets transmitted, 0 received/);
    expect(names.has((await inPod(client, 'curl', '-s', '--max-time', '5', `http://${clusterIP}:80/hostname`)).stdout)).toBe(true);

    // ClientIP affinity: once the rules have it, one pod answers every request.
    await k('patch', 'svc', 'web', '-p', '{"spec":{"sessionAffinity":"ClientIP"}}');
    await until('one pod answers 20 requests in a row', async () => new Set((await inPod(client, 'sh', '-c', loop(20))).stdout.split('\n').filter((l) => l !== '')), (seen) => seen.size === 1);
    const sticky = new Set((await inPod(client, 'sh', '-c', loop(50))).stdout.split('\n').filter((l) => l !== ''));
    expect(sticky.size).toBe(1);

    // The container log holds the requests: on disk, and through kubectl logs.
    const logs = spawnSync('sh', ['-c', `cat ${join(dataDir, 'pods')}/default_web-*/nginx.log`], { encoding: 'utf8' }).stdout;
    expect(logs).toMatch(/GET \/hostname from 10\.244\.0\.2:\d+: 200/);
    expect((await sh(logsOf)).stdout).toMatch(/^GET \/hostname from 10\.244\.0\.2:\d+: 200$/m);

    // port-forward from this host (127.0.0.1:8080) to a pod behind the Service.
    const forwarded = await until('an answer through kubectl port-forward svc/web', async () => (await sh(portForward)).stdout, (out) => names.has(out));
    expect(names.has(forwarded)).toBe(true);

    // After the delete, the pods' namespaces go (once the pods are gone, past their grace period).
    expect((await sh(del)).stdout).toBe('deployment.apps "web" deleted\n');
    await until('the web pods\' namespaces gone', () => Promise.resolve(namespacesWith(`${prefix}-default.web-`)), (left) => left.length === 0);
    expect(namespacesWith(prefix)).toContain(client);

    await stopAndCheckNothingLeft(up, prefix);
  }, 400_000);

  it('a crash\'s leftovers (a pod namespace, its /etc/netns folder) are removed when kubesvc up starts again on the same data dir', async () => {
    const dataDir = tempDir();
    const prefix = podNetworkPrefix(resolve(dataDir));
    prefixes.add(prefix);
    const ghost = `${prefix}-default.ghost`;
    spawnSync('ip', ['netns', 'add', ghost], { env: { ...process.env, PATH } });
    mkdirSync(`/etc/netns/${ghost}`, { recursive: true });
    writeFileSync(`/etc/netns/${ghost}/resolv.conf`, 'nameserver 10.96.0.10\n');
    expect(namespacesWith(prefix)).toEqual([ghost]);
    const { up } = await startNetnsUp(dataDir);
    expect(namespacesWith(prefix).sort()).toEqual([`${prefix}_host`, `${prefix}_node1`, `${prefix}_node2`]);
    expect(existsSync(`/etc/netns/${ghost}`)).toBe(false);
    await stopAndCheckNothingLeft(up, prefix);
  }, 120_000);

  it('--proxy-mode nftables: each sync goes to nft -f in the node\'s namespace, and a pod reaches a Service by name through it', async () => {
    const dataDir = tempDir();
    const cache = tempDir();
    const prefix = podNetworkPrefix(resolve(dataDir));
    prefixes.add(prefix);
    const up = await startUp(children, dataDir, ['--dataplane', 'netns', '--proxy-mode', 'nftables']);
    ups.add(up);
    const k = (...args: string[]) => kubectl(join(dataDir, 'kubeconfig'), cache, ...args);
    await k('run', 'client', '--image=busybox');
    await k('create', 'deployment', 'web', '--image=nginx', '--replicas=2');
    await k('expose', 'deployment', 'web', '--port=80');
    const names = await until('2 web pods with addresses', async () => (await k('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].metadata.name}')).split(' ').filter((n) => n !== ''), (n) => n.length === 2);
    const client = `${prefix}-default.client`;
    const answered = await until('web/hostname answered by a web pod', async () => (await inPod(client, 'curl', '-s', '--max-time', '5', 'web/hostname')).stdout, (out) => names.includes(out));
    expect(names).toContain(answered);
    const table = await inPod(`${prefix}_node1`, 'nft', 'list', 'table', 'ip', 'kube-proxy');
    expect(table.stdout).toMatch(/chain service-[A-Z0-9]+-default\/web\/tcp\/ \{/);
    await stopAndCheckNothingLeft(up, prefix);
  }, 200_000);

  it('without root it exits 2 before making anything, saying root is needed', () => {
    const dir = tempDir();
    chmodSync(dir, 0o777);
    const dataDir = join(dir, 'data');
    // setpriv (util-linux) runs the bin as nobody: no CAP_NET_ADMIN.
    const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...upArgs(dataDir, ['--dataplane', 'netns'])], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, PATH, HOME: dir } });
    expect(r.stderr).toContain('--dataplane netns needs root');
    expect(r.status).toBe(2);
    expect(namespacesWith(podNetworkPrefix(resolve(dataDir)))).toEqual([]);
  });
});
