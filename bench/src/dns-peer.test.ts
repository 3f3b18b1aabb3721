// The dnsmasq comparison refuses cleanly on a machine without dnsperf (CI installs neither
// dnsperf nor dnsmasq: the comparison is run by hand with npm run bench -- discovery), and its
// shared-socket floor answers from two processes, which are gone when it returns.
import { createSocket } from 'node:dgram';
import type { Service } from '@kubesvc/api-types';
import { buildZone, type Zone } from '@kubesvc/discovery';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compareWithDnsmasq, dnsQuery, withSharedEchoFloor } from './dns-peer.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const service: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { clusterIP: '10.96.0.20', ports: [{ port: 80, protocol: 'TCP' }] } };
const built = buildZone([service], []);
if (!built.ok) throw new Error(built.error.message);
const zone: Zone = built.value;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('dns-peer', () => {
  it('without dnsperf, skips the comparison with one line instead of failing', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    expect(await compareWithDnsmasq(zone, [{ name: 'web.default.svc.cluster.local', addresses: ['10.96.0.20'] }], { dnsperf: undefined, dnsmasq: '/usr/sbin/dnsmasq' })).toStrictEqual({});
    expect(log).toHaveBeenCalledWith('discovery: dnsperf not installed (apt-get install dnsperf); no dnsmasq comparison');
  });

  it('the shared-socket floor answers each query as a response with its ID, from processes that are gone afterwards', async () => {
    const QUERIES = 200;
    const pids: number[] = [];
    const answered = await withSharedEchoFloor(async (port, cpuNs, workerPids) => {
      pids.push(...workerPids);
      expect(workerPids.filter(alive), 'two worker processes while it runs').toHaveLength(2);
      const client = createSocket('udp4');
      const ids = new Set<number>();
      try {
        const done = new Promise<void>((resolve) => {
          client.on('message', (message) => {
            // QR set, the ID one of ours.
            if ((message[2] ?? 0) & 0x80) ids.add(message.readUInt16BE(0));
            if (ids.size === QUERIES) resolve();
          });
        });
        await new Promise<void>((r) => client.bind(0, '127.0.0.1', () => r()));
        for (let id = 0; id < QUERIES; id++) client.send(dnsQuery('web.default.svc.cluster.local', id), port, '127.0.0.1');
        // Loopback drops nothing at this count; the bound is for a broken worker, not a budget.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([done, new Promise((r) => (timer = setTimeout(r, 20_000)))]);
        clearTimeout(timer);
        const cpu = cpuNs();
        expect(cpu, 'both workers have a CPU time').toBeGreaterThan(0);
        return ids;
      } finally {
        client.close();
      }
    });
    expect(answered.size, `answered IDs: ${answered.size} of ${QUERIES}`).toBe(QUERIES);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });
});
