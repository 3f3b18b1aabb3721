// The dnsmasq comparison refuses cleanly on a machine without dnsperf (CI installs neither
// dnsperf nor dnsmasq: the comparison is run by hand with npm run bench -- discovery).
import type { Service } from '@kubesvc/api-types';
import { buildZone, type Zone } from '@kubesvc/discovery';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compareWithDnsmasq } from './dns-peer.js';

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
});
