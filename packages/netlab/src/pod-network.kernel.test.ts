// The pod network of `kubesvc up --dataplane netns`: pods made and removed while it runs, each
// on its node's bridge with its servers (agents/netexec.mjs), routed between two nodes, the
// relay of the host side carrying TCP and DNS-over-UDP to Unix sockets, and a run's leftovers
// removed by the next with the same prefix. Needs root and iproute2, like every lab test.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { must, run } from './commands.js';
import { leftovers } from './netns.js';
import { PodNetwork, podNetworkPrefix, removePodNetworkLeftovers } from './pod-network.js';

const PREFIX = podNetworkPrefix(`pod-network.kernel.test ${process.pid}`);

describe('a pod network of two nodes', () => {
  let network: PodNetwork | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'podnet-'));
  const servers: Server[] = [];
  const net = (): PodNetwork => {
    if (network === undefined) throw new Error('the network was not made (see the beforeAll error)');
    return network;
  };

  beforeAll(async () => {
    network = await PodNetwork.create({
      prefix: PREFIX,
      nodes: [
        { name: 'node-1', podCIDR: '10.244.0.0/24' },
        { name: 'node-2', podCIDR: '10.244.1.0/24' },
      ],
      hostAddresses: ['192.0.2.10'],
    });
    await network.addPod({ namespace: 'default', name: 'client', uid: 'u-client', node: 'node-1', ip: '10.244.0.2', resolvConf: 'nameserver 10.96.0.10\n', containers: [] });
    await network.addPod({
      namespace: 'default',
      name: 'web-0',
      uid: 'u-web-0',
      node: 'node-2',
      ip: '10.244.1.2',
      containers: [{ name: 'web', log: join(dir, 'web.log'), ports: [{ port: 80, protocol: 'TCP', http: true }, { port: 9000, protocol: 'UDP', http: false }] }],
    });
  }, 60_000);

  afterEach(() => {
    for (const s of servers.splice(0)) s.close();
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (network !== undefined) expect(await network.teardownAndCheck()).toEqual({ namespaces: [], links: [], processes: [] });
    expect(existsSync(`/etc/netns/${PREFIX}-default.client`)).toBe(false);
  });

  const inPod = (pod: string, command: string[]): { status: number | null; stdout: string } => {
    const sandbox = net().pod(`default/${pod}`);
    if (sandbox === undefined) throw new Error(`no pod ${pod}`);
    return run(['ip', 'netns', 'exec', sandbox.netns, ...command]);
  };

  test('a pod on one node reaches a pod on the other: /hostname, /clientip, /echo and /healthz, each request in the container log', () => {
    expect(inPod('client', ['curl', '-sS', '--max-time', '5', 'http://10.244.1.2/hostname']).stdout).toBe('web-0');
    expect(inPod('client', ['curl', '-sS', '--max-time', '5', 'http://10.244.1.2/clientip']).stdout).toMatch(/^10\.244\.0\.2:\d+$/);
    expect(inPod('client', ['curl', '-sS', '--max-time', '5', 'http://10.244.1.2/echo?msg=hello']).stdout).toBe('hello');
    expect(inPod('client', ['curl', '-sS', '-o', '/dev/null', '-w', '%{http_code}', '--max-time', '5', 'http://10.244.1.2/healthz']).stdout).toBe('200');
    expect(readFileSync(join(dir, 'web.log'), 'utf8')).toMatch(/GET \/echo\?msg=hello from 10\.244\.0\.2:\d+: 200/);
  });

  test('the pod\'s resolv.conf is the one `ip netns exec` shows it', () => {
    expect(inPod('client', ['cat', '/etc/resolv.conf']).stdout).toBe('nameserver 10.96.0.10\n');
  });

  test('the relay carries TCP from a pod to the host address, through a Unix socket', async () => {
    const path = join(dir, 'api.sock');
    const server = createServer((s) => s.end('from the unix side\n'));
    servers.push(server);
    await new Promise<void>((r) => server.listen(path, r));
    await net().startRelay([{ protocol: 'tcp', host: '192.0.2.10', port: 6443, unix: path }]);
    // Not spawnSync: the Unix side answers from this process's event loop.
    const sandbox = net().pod('default/client');
    const { stdout } = await promisify(execFile)('ip', ['netns', 'exec', sandbox?.netns ?? '', 'bash', '-c', 'exec 3<>/dev/tcp/192.0.2.10/6443; cat <&3'], { timeout: 10_000 });
    expect(stdout).toBe('from the unix side\n');
  });

  test('removePod deletes the pod\'s namespace and its veth, and kills its servers', async () => {
    const pid = net().pod('default/web-0')?.pid;
    expect(pid).toBeGreaterThan(0);
    await net().removePod('default/web-0');
    expect(must(['ip', 'netns', 'list'])).not.toContain(`${PREFIX}-default.web-0`);
    expect(run(['ip', '-n', `${PREFIX}_node2`, '-o', 'link', 'show']).stdout).not.toMatch(new RegExp(`${PREFIX}[0-9a-f]{7}`));
    expect(run(['kill', '-0', String(pid)]).status).not.toBe(0);
  });
});

test('a run\'s leftovers (namespaces with its prefix, their processes, their /etc/netns) are removed by the next', () => {
  const prefix = podNetworkPrefix(`leftovers ${process.pid}`);
  const name = `${prefix}-default.ghost`;
  must(['ip', 'netns', 'add', name]);
  must(['ip', 'netns', 'add', `${prefix}_node1`]);
  try {
    expect(removePodNetworkLeftovers(prefix)).toEqual(expect.arrayContaining([name, `${prefix}_node1`]));
    expect(leftovers(prefix).namespaces).toEqual([]);
  } finally {
    run(['ip', 'netns', 'del', name]);
    run(['ip', 'netns', 'del', `${prefix}_node1`]);
  }
});
