// RepackSubsets on v1 Endpoints, by the rules of upstream's pkg/api/v1/endpoints/util.go:
// merging by port and by address set, not-ready trumping ready, the port-less sentinel, and
// LessEndpointAddress's order. Orders that upstream takes from md5 hashes are not asserted.
import { describe, expect, it } from 'vitest';
import { repackSubsets } from './repack-subsets.js';

const ref = (uid: string) => ({ kind: 'Pod', uid });

describe('repackSubsets', () => {
  it('gives nothing for nothing', () => {
    expect(repackSubsets([])).toEqual([]);
  });

  it('keeps addresses of a subset without ports, in a subset without ports', () => {
    expect(repackSubsets([{ addresses: [{ ip: '1.2.3.4' }] }])).toEqual([{ addresses: [{ ip: '1.2.3.4' }] }]);
  });

  it('merges subsets with the same addresses and different ports', () => {
    expect(
      repackSubsets([
        { addresses: [{ ip: '1.2.3.4' }], ports: [{ name: 'a', port: 111 }] },
        { addresses: [{ ip: '1.2.3.4' }], ports: [{ name: 'b', port: 222 }] },
      ]),
    ).toEqual([{ addresses: [{ ip: '1.2.3.4' }], ports: [{ name: 'a', port: 111 }, { name: 'b', port: 222 }] }]);
  });

  it('merges subsets with the same port and different addresses, sorted by IP then UID', () => {
    expect(
      repackSubsets([
        { addresses: [{ ip: '5.6.7.8', targetRef: ref('uid-2') }], ports: [{ port: 111 }] },
        { addresses: [{ ip: '1.2.3.4', targetRef: ref('uid-9') }], ports: [{ port: 111 }] },
        { addresses: [{ ip: '1.2.3.4', targetRef: ref('uid-1') }], ports: [{ port: 111 }] },
      ]),
    ).toEqual([
      {
        addresses: [
          { ip: '1.2.3.4', targetRef: ref('uid-1') },
          { ip: '1.2.3.4', targetRef: ref('uid-9') },
          { ip: '5.6.7.8', targetRef: ref('uid-2') },
        ],
        ports: [{ port: 111 }],
      },
    ]);
  });

  it('makes an address listed ready and not ready not ready', () => {
    expect(
      repackSubsets([
        { addresses: [{ ip: '1.2.3.4' }], ports: [{ port: 111 }] },
        { notReadyAddresses: [{ ip: '1.2.3.4' }], ports: [{ port: 111 }] },
      ]),
    ).toEqual([{ notReadyAddresses: [{ ip: '1.2.3.4' }], ports: [{ port: 111 }] }]);
  });

  it('keeps an address apart per port when its readiness differs by port', () => {
    expect(
      repackSubsets([
        { addresses: [{ ip: '1.2.3.4' }], ports: [{ port: 111 }] },
        { notReadyAddresses: [{ ip: '1.2.3.4' }], ports: [{ port: 222 }] },
      ]),
    ).toEqual([
      { addresses: [{ ip: '1.2.3.4' }], ports: [{ port: 111 }] },
      { notReadyAddresses: [{ ip: '1.2.3.4' }], ports: [{ port: 222 }] },
    ]);
  });

  it('gives the same result whatever the order of its input', () => {
    const subsets = [
      { addresses: [{ ip: '10.0.0.2' }], ports: [{ port: 80, protocol: 'TCP' as const }] },
      { notReadyAddresses: [{ ip: '10.0.0.3' }], ports: [{ port: 80, protocol: 'TCP' as const }] },
      { addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 53, protocol: 'UDP' as const }] },
    ];
    expect(repackSubsets([...subsets].reverse())).toEqual(repackSubsets(subsets));
  });
});
