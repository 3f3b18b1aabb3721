// The API off loopback: refused without TLS and a token, before it binds anything.
import { afterEach, describe, expect, it } from 'vitest';
import { openMemoryStore, virtualClock } from '@kubesvc/store';
import { openRegistry } from '../registry/registry.js';
import { insecureBindError, isLoopbackHost } from './bind-security.js';
import { startApiServer, type ApiServer } from './server.js';
import { generateServingCertificate } from './serving-cert.js';

const servers: ApiServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function registry() {
  const opened = await openRegistry({ store: openMemoryStore(), clock: virtualClock(Date.UTC(2025, 0, 1)), seed: 1, serviceClusterIPRanges: ['10.96.0.0/24'] });
  if (!opened.ok) throw new Error(opened.error.message);
  return opened.value;
}

describe('isLoopbackHost', () => {
  it('is true for all of 127.0.0.0/8 (Linux routes it to lo), ::1 and localhost, and false for wildcard and routable addresses', () => {
    for (const h of ['127.0.0.1', '127.0.0.2', '127.255.255.254', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.3', 'localhost']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.0.2.10', '10.0.0.1', '128.0.0.1', '::ffff:192.0.2.1', 'fe80::1', 'example.com']) expect(isLoopbackHost(h), h).toBe(false);
  });
});

describe('startApiServer off loopback', () => {
  it('refuses plain HTTP on a non-loopback address, naming what is missing, and binds nothing', async () => {
    const r = await registry();
    await expect(startApiServer({ registry: r, host: '0.0.0.0', port: 0, token: 't' })).rejects.toThrow(
      'refusing to serve the API on 0.0.0.0, which is not a loopback address, without TLS (a serving certificate and key): bind a loopback address (127.0.0.1) or give both',
    );
  });

  it('refuses TLS with an empty token on a non-loopback address', async () => {
    const r = await registry();
    const cert = await generateServingCertificate({ ips: ['192.0.2.10'] });
    await expect(startApiServer({ registry: r, host: '192.0.2.10', port: 0, token: '', tls: cert })).rejects.toThrow('without a bearer token');
    expect(insecureBindError('192.0.2.10', false, '')).toContain('without TLS (a serving certificate and key) and a bearer token');
  });

  it('still serves plain HTTP on any loopback address, as the tests and the examples do', async () => {
    const r = await registry();
    const server = await startApiServer({ registry: r, host: '127.0.0.2', port: 0, token: 't' });
    servers.push(server);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
  });
});
