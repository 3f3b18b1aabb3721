// RepackSubsets (upstream: pkg/api/v1/endpoints/util.go; cases in the spirit of util_test.go
// TestPackSubsets, expected values worked out from that code).
import { describe, expect, it } from 'vitest';
import { repackSubsets } from './repack-subsets.js';

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

  it('addresses without ports vanish; empty input gives no subsets', () => {
    expect(repackSubsets([{ addresses: [{ ip: '1.1.1.1' }] }])).toEqual([]);
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
