// RepackSubsets (upstream: pkg/api/v1/endpoints/util.go; cases in the spirit of util_test.go
// TestPackSubsets, expected values worked out from that code).
import { describe, expect, it } from 'vitest';
import { compareEndpointAddresses, repackSubsets } from './repack-subsets.js';

const p = { name: 'p', port: 111, protocol: 'TCP' as const };
const q = { name: 'q', port: 222, protocol: 'TCP' as const };

describe('repackSubsets', () => {
  it('sorts addresses by IP bytes and removes duplicates', () => {
    expect(repackSubsets([{ addresses: [{ ip: '10.0.0.2' }, { ip: '10.0.0.10' }, { ip: '10.0.0.2' }], ports: [p] }])).toEqual([
      { addresses: [{ ip: '10.0.0.10' }, { ip: '10.0.0.2' }], ports: [p] },
    ]);
  });

  it('the same IP with different targetRef UIDs stays twice, ordered by UID after the one without', () => {
    const a = { ip: '1.1.1.1', targetRef: { uid: 'b' } };
    const b = { ip: '1.1.1.1', targetRef: { uid: 'a' } };
    const c = { ip: '1.1.1.1' };
    expect(repackSubsets([{ addresses: [a, b, c], ports: [p] }])).toEqual([{ addresses: [c, b, a], ports: [p] }]);
  });

  it('not ready trumps ready', () => {
    expect(repackSubsets([{ addresses: [{ ip: '1.1.1.1' }, { ip: '2.2.2.2' }], notReadyAddresses: [{ ip: '1.1.1.1' }], ports: [p] }])).toEqual([
      { addresses: [{ ip: '2.2.2.2' }], notReadyAddresses: [{ ip: '1.1.1.1' }], ports: [p] },
    ]);
  });

  it('addresses without ports stay, in a subset without ports (the sentinel port); empty input gives no subsets', () => {
    expect(repackSubsets([{ addresses: [{ ip: '1.1.1.1' }] }])).toEqual([{ addresses: [{ ip: '1.1.1.1' }] }]);
    expect(repackSubsets([{ addresses: [], ports: [p] }])).toEqual([]);
    expect(repackSubsets([])).toEqual([]);
  });

  it('subsets with the same addresses merge; different address sets stay apart', () => {
    expect(repackSubsets([
      { addresses: [{ ip: '1.1.1.1' }], ports: [p] },
      { addresses: [{ ip: '1.1.1.1' }], ports: [q] },
    ])).toEqual([{ addresses: [{ ip: '1.1.1.1' }], ports: [p, q] }]);
    expect(repackSubsets([
      { addresses: [{ ip: '1.1.1.1' }], ports: [p] },
      { addresses: [{ ip: '2.2.2.2' }], ports: [q] },
    ])).toHaveLength(2);
  });
});

// mapAddressByPort writes a port's ready state only when none is recorded yet or the recorded
// one is ready: "not ready always trumps ready", whichever subset or list comes first.
describe('repackSubsets: not ready wins over ready in either order', () => {
  const a = { ip: '1.1.1.1' };
  const expected = [{ notReadyAddresses: [a], ports: [p] }];

  it('ready first, then not ready (one subset)', () => {
    expect(repackSubsets([{ addresses: [a], notReadyAddresses: [a], ports: [p] }])).toEqual(expected);
  });

  it('not ready first, then ready (two subsets)', () => {
    expect(repackSubsets([
      { notReadyAddresses: [a], ports: [p] },
      { addresses: [a], ports: [p] },
    ])).toEqual(expected);
  });

  it('ready first, then not ready (two subsets)', () => {
    expect(repackSubsets([
      { addresses: [a], ports: [p] },
      { notReadyAddresses: [a], ports: [p] },
    ])).toEqual(expected);
  });

  it('per port: an address not ready on one port stays ready on another', () => {
    expect(repackSubsets([
      { addresses: [a], ports: [p, q] },
      { notReadyAddresses: [a], ports: [q] },
    ])).toEqual([
      { addresses: [a], ports: [p] },
      { notReadyAddresses: [a], ports: [q] },
    ]);
  });
});

// upstream keys the port map by the whole EndpointPort and the address map by IP and
// targetRef UID, keeps the first address seen under a key, hashes each port's addresses
// sorted, and sorts both address lists with LessEndpointAddress.
describe('repackSubsets: keys, first-seen addresses and ordering', () => {
  it('ports that differ only by name, protocol or appProtocol stay apart, sorted by (port, protocol, name, appProtocol)', () => {
    const a = { ip: '1.1.1.1' };
    const ports = [
      { name: 'a', port: 53, protocol: 'UDP' as const },
      { name: 'b', port: 53, protocol: 'UDP' as const },
      { name: 'b', port: 53, protocol: 'TCP' as const },
      { name: 'b', port: 53, protocol: 'TCP' as const, appProtocol: 'dns' },
    ];
    const [aUdp, bUdp, bTcp, bTcpDns] = ports;
    expect(repackSubsets([{ addresses: [a], ports }])).toEqual([{ addresses: [a], ports: [bTcp, bTcpDns, aUdp, bUdp] }]);
  });

  it('a port without a name and one named "" are one port (core/v1 EndpointPort.Name is a plain string)', () => {
    expect(repackSubsets([{ addresses: [{ ip: '1.1.1.1' }], ports: [{ port: 80, protocol: 'TCP' }, { name: '', port: 80, protocol: 'TCP' }] }])).toHaveLength(1);
    expect(repackSubsets([{ addresses: [{ ip: '1.1.1.1' }], ports: [{ port: 80, protocol: 'TCP' }, { name: '', port: 80, protocol: 'TCP' }] }])[0]?.ports).toHaveLength(1);
  });

  it('the first of two addresses with the same key is kept', () => {
    const first = { ip: '1.1.1.1', nodeName: 'n1' };
    const second = { ip: '1.1.1.1', nodeName: 'n2' };
    expect(repackSubsets([{ addresses: [first, second], ports: [p] }])).toEqual([{ addresses: [first], ports: [p] }]);
  });

  it('ports offered by the same addresses merge whatever order the addresses came in', () => {
    const a = { ip: '1.1.1.1' };
    const b = { ip: '2.2.2.2' };
    expect(repackSubsets([
      { addresses: [a, b], ports: [p] },
      { addresses: [b, a], ports: [q] },
    ])).toEqual([{ addresses: [a, b], ports: [p, q] }]);
  });

  it('not-ready addresses are sorted too', () => {
    expect(repackSubsets([{ notReadyAddresses: [{ ip: '2.2.2.2' }, { ip: '1.1.1.1' }], ports: [p] }])).toEqual([
      { notReadyAddresses: [{ ip: '1.1.1.1' }, { ip: '2.2.2.2' }], ports: [p] },
    ]);
  });

  it('one IP: without a targetRef first, then by UID, from every input order', () => {
    const none = { ip: '1.1.1.1' };
    const uidA = { ip: '1.1.1.1', targetRef: { uid: 'a' } };
    const uidB = { ip: '1.1.1.1', targetRef: { uid: 'b' } };
    const orders = [
      [none, uidA, uidB], [none, uidB, uidA], [uidA, none, uidB],
      [uidA, uidB, none], [uidB, none, uidA], [uidB, uidA, none],
    ];
    for (const addresses of orders) expect(repackSubsets([{ addresses, ports: [p] }])).toEqual([{ addresses: [none, uidA, uidB], ports: [p] }]);
  });
});

describe('compareEndpointAddresses (LessEndpointAddress)', () => {
  it('orders by IP bytes, then no targetRef before one, then by UID', () => {
    expect(compareEndpointAddresses({ ip: '10.0.0.10' }, { ip: '10.0.0.2' })).toBeLessThan(0);
    expect(compareEndpointAddresses({ ip: '1.1.1.1' }, { ip: '1.1.1.1', targetRef: { uid: 'a' } })).toBeLessThan(0);
    expect(compareEndpointAddresses({ ip: '1.1.1.1', targetRef: { uid: 'a' } }, { ip: '1.1.1.1' })).toBeGreaterThan(0);
    expect(compareEndpointAddresses({ ip: '1.1.1.1' }, { ip: '1.1.1.1' })).toBe(0);
    expect(compareEndpointAddresses({ ip: '1.1.1.1', targetRef: { uid: 'b' } }, { ip: '1.1.1.1', targetRef: { uid: 'a' } })).toBeGreaterThan(0);
    expect(compareEndpointAddresses({ ip: '1.1.1.1', targetRef: {} }, { ip: '1.1.1.1', targetRef: { uid: 'a' } })).toBeLessThan(0);
    expect(compareEndpointAddresses({ ip: '1.1.1.1', targetRef: { uid: 'a' } }, { ip: '1.1.1.1', targetRef: {} })).toBeGreaterThan(0);
    // A targetRef without a UID still sorts after no targetRef, and its UID "" before any other.
    expect(compareEndpointAddresses({ ip: '1.1.1.1', targetRef: {} }, { ip: '1.1.1.1' })).toBeGreaterThan(0);
    expect(compareEndpointAddresses({ ip: '1.1.1.1', targetRef: {} }, { ip: '1.1.1.1', targetRef: { uid: '0' } })).toBeLessThan(0);
    expect(compareEndpointAddresses({ ip: '1.1.1.1', targetRef: { uid: '0' } }, { ip: '1.1.1.1', targetRef: {} })).toBeGreaterThan(0);
  });
});
