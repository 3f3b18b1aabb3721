// The userspace mode end to end: a real HTTP server on 127.0.0.1 as the only endpoint of a
// selector-less Service, reached by the real curl through the agent's loopback listener.
//
// EndpointSlice validation refuses loopback addresses, as upstream's does (discovery
// validation runs ValidateNonSpecialIP on every IPv4 and IPv6 address), so the registry
// cannot take an EndpointSlice naming 127.0.0.1. The test shows that refusal, then writes the
// slice under its registry key straight into the store, as a write to etcd would: the informer
// and the agent take it like any other. (proxy-userspace itself dials any ip:port.)
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EndpointSlice } from '@kubesvc/api-types';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { objectKey, RESOURCES, serializeObject } from '@kubesvc/apiserver';
import { systemClock } from '@kubesvc/store';
import { startNodeAgent, type NodeAgent } from './node-agent.js';
import { endpointSlice, must, openTestCluster, poll, runCommand, service, type TestCluster } from './node-agent.fixtures.js';

let cluster: TestCluster | undefined;
let agent: NodeAgent | undefined;
let backend: Server | undefined;

beforeAll(async () => {
  const probe = await runCommand('curl', ['--version']).catch((e: unknown) => ({ code: -1, stdout: String(e), stderr: '' }));
  if (probe.code !== 0) throw new Error('curl is not installed: apt-get install -y curl (.ci/run installs it)');
});

afterEach(async () => {
  await agent?.stop();
  agent = undefined;
  await cluster?.close();
  cluster = undefined;
  await new Promise<void>((resolve) => (backend === undefined ? resolve() : backend.close(() => resolve())));
  backend?.closeAllConnections();
  backend = undefined;
});

async function startBackend(): Promise<number> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end(`hello from the backend, ${req.method} ${req.url}\n`);
  });
  backend = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function putSliceInStore(c: TestCluster, slice: EndpointSlice): Promise<number> {
  const key = objectKey(RESOURCES.endpointslices, slice.metadata.namespace ?? 'default', slice.metadata.name ?? '');
  const written = await c.store.txn([], [{ kind: 'put', key, value: serializeObject(slice) }]);
  return written.revision;
}

const curl = (port: number, path = '/') => runCommand('curl', ['-sS', '--max-time', '5', `http://127.0.0.1:${port}${path}`]);

describe('userspace proxy mode', () => {
  it('proxies a Service port on a loopback port to a local HTTP server, follows the endpoints, and closes the port when the Service goes', async () => {
    const backendPort = await startBackend();
    cluster = await openTestCluster(systemClock);
    const c = cluster;
    const started = await startNodeAgent({ source: c.informer, clock: systemClock, nodeName: 'node-1', nodeIP: '192.0.2.10', proxyMode: 'userspace', dnsPort: false });
    if (!started.ok) throw new Error(started.error.message);
    agent = started.value;
    const a = agent;

    const svc = await must(c.registry.create('services', 'default', service('echo', { ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: backendPort }] })));
    // Without endpoints the port is open and refuses service: the connection is closed at once.
    const open = await poll(async () => a.proxyPorts().find((p) => p.servicePort === 'default/echo:http'), 2_000);
    expect(open).toMatchObject({ namespace: 'default', service: 'echo', portName: 'http', protocol: 'TCP', clusterIP: svc.spec?.clusterIP, port: 80, host: '127.0.0.1', endpoints: [] });
    const listen = open?.listenPort ?? 0;
    expect(listen).toBeGreaterThan(0);
    expect((await curl(listen)).code).not.toBe(0);

    // The registry refuses a loopback endpoint, with upstream's message.
    const slice = endpointSlice('echo', ['127.0.0.1'], [{ name: 'http', port: backendPort, protocol: 'TCP' }]);
    const refused = await c.registry.create('endpointslices', 'default', slice);
    expect(refused.ok).toBe(false);
    expect(refused.ok ? '' : refused.error.message).toContain('endpoints[0].addresses[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)');

    await putSliceInStore(c, slice);
    const withEndpoint = await poll(async () => a.proxyPorts().find((p) => p.endpoints.length === 1), 2_000);
    expect(withEndpoint?.endpoints).toStrictEqual([`127.0.0.1:${backendPort}`]);
    // The listener stayed the same through the endpoint change.
    expect(withEndpoint?.listenPort).toBe(listen);
    const reply = await curl(listen, '/hi');
    expect(reply).toMatchObject({ code: 0, stdout: 'hello from the backend, GET /hi\n' });

    await must(c.registry.delete('services', 'default', 'echo'));
    const closed = await poll(async () => (a.proxyPorts().length === 0 ? true : undefined), 2_000);
    expect(closed).toBe(true);
    // curl's exit code 7: "Failed to connect to host" (connection refused).
    expect((await curl(listen)).code).toBe(7);
  });

  it('opens one port per TCP and UDP service port of Services with a ClusterIP, none for headless or ExternalName ones, and stop closes them all', async () => {
    const backendPort = await startBackend();
    cluster = await openTestCluster(systemClock);
    const c = cluster;
    await must(c.registry.create('services', 'default', service('dns', { clusterIP: '10.96.0.10', ports: [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }] })));
    await must(c.registry.create('services', 'default', service('headless', { clusterIP: 'None', ports: [{ port: 80 }] })));
    await must(c.registry.create('services', 'default', service('ext', { type: 'ExternalName', externalName: 'example.com' })));
    await must(c.registry.create('services', 'default', service('web', { ports: [{ port: 80 }] })));
    await putSliceInStore(c, endpointSlice('web', ['127.0.0.1'], [{ port: backendPort, protocol: 'TCP' }]));
    const last = (await c.store.revision());
    await c.informer.waitFor(last);
    const started = await startNodeAgent({ source: c.informer, clock: systemClock, nodeName: 'node-1', nodeIP: '192.0.2.10', proxyMode: 'userspace', dnsPort: false });
    if (!started.ok) throw new Error(started.error.message);
    agent = started.value;
    const ports = agent.proxyPorts();
    expect(ports.map((p) => [p.servicePort, p.protocol, p.endpoints])).toStrictEqual([
      ['default/dns:dns', 'UDP', []],
      ['default/dns:dns-tcp', 'TCP', []],
      ['default/web', 'TCP', [`127.0.0.1:${backendPort}`]],
    ]);
    const web = ports.find((p) => p.servicePort === 'default/web')?.listenPort ?? 0;
    expect((await curl(web)).stdout).toBe('hello from the backend, GET /\n');
    await agent.stop();
    expect(agent.proxyPorts()).toStrictEqual([]);
    expect((await curl(web)).code).toBe(7);
    agent = undefined;
  });
});
