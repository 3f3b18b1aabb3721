// The packet `kubesvc trace` builds from its flags.
import { describe, expect, test } from 'vitest';
import { packetOf } from './trace.js';

describe('packetOf', () => {
  test('tcp to IP:PORT from a pod by default', () => {
    const p = packetOf({ to: '10.96.0.1:443', proto: 'tcp', nodePort: false, nodeIPs: ['192.168.0.10'] });
    expect(p).toEqual({ ok: true, value: { packet: { protocol: 'tcp', source: '10.244.0.2', destination: '10.96.0.1', destinationPort: 443, entry: 'pod' }, localAddresses: ['192.168.0.10'] } });
  });

  test('a node port: the first node IP for :PORT, from outside, and the address is local', () => {
    const p = packetOf({ to: ':30080', proto: 'tcp', nodePort: true, nodeIPs: ['192.168.0.10'] });
    expect(p.ok && p.value.packet).toEqual({ protocol: 'tcp', source: '203.0.113.10', destination: '192.168.0.10', destinationPort: 30080, entry: 'outside' });
    const other = packetOf({ to: '192.168.0.11:30080', proto: 'udp', nodePort: true, nodeIPs: ['192.168.0.10'] });
    expect(other.ok && other.value.localAddresses).toEqual(['192.168.0.10', '192.168.0.11']);
  });

  test('IPv6 in brackets; ICMP has no port; bad values name the flag', () => {
    expect(packetOf({ to: '[fd00::1]:53', proto: 'udp', nodePort: false, nodeIPs: [], from: 'fd00:10::2' }).ok).toBe(true);
    expect(packetOf({ to: '10.96.0.1', proto: 'icmp', nodePort: false, nodeIPs: [] })).toMatchObject({ ok: true, value: { packet: { protocol: 'icmp' } } });
    const messages = [
      packetOf({ to: '10.96.0.1:0', proto: 'tcp', nodePort: false, nodeIPs: [] }),
      packetOf({ to: '10.96.0.1:http', proto: 'tcp', nodePort: false, nodeIPs: [] }),
      packetOf({ to: '10.96.0.1:80', proto: 'tcp', nodePort: false, nodeIPs: [], from: 'pod-a' }),
    ].map((r) => (r.ok ? '' : r.error.message));
    expect(messages).toEqual([
      '--to "10.96.0.1:0": the port must be a number from 1 to 65535',
      '--to "10.96.0.1:http": the port must be a number from 1 to 65535',
      '--from "pod-a": invalid IP address: pod-a',
    ]);
  });
});
