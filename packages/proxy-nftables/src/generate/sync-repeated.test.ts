// upstream TestSyncProxyRulesRepeated (pkg/proxy/nftables/proxier_test.go): a first full sync,
// then partial syncs as services and endpoints come and go. After each, the table (every
// transaction applied) is dumped as knftables' fake dumps it and compared with upstream's
// ruleset after helpers_test.go's sort; where upstream counts the operations of the sync's
// transaction (nft.LastTransaction.NumOperations()), so does this test. upstream's
// ageStaleChains (stale chains made two seconds older) is the clock moved on two seconds.
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { dumpTransaction } from '../model/dump.js';
import { printTransaction } from '../model/print.js';
import { INITIAL_NFTABLES_SYNC_STATE, syncNftables, type NftablesSync, type NftablesSyncState } from './sync.js';
import { fakeNftablesConfig, repeated as r, sortNFTablesTransaction, SYNC_PROXY_RULES_REPEATED as expected } from './upstream.fixtures.js';

const config = fakeNftablesConfig();

class Proxier {
  state: NftablesSyncState = INITIAL_NFTABLES_SYNC_STATE;
  now = 1_000_000;
  last: NftablesSync | undefined;

  sync(services: readonly Service[], slices: readonly EndpointSlice[]): NftablesSync {
    const result = syncNftables(this.state, services, slices, config, { now: this.now });
    if (!result.ok) throw new Error(result.error.message);
    this.state = result.value.state;
    this.last = result.value;
    return result.value;
  }

  ageStaleChains(): void {
    this.now += 2000;
  }

  dump(): string {
    const table = this.state.table;
    if (table === undefined) throw new Error('no table');
    const printed = printTransaction(dumpTransaction(table));
    if (!printed.ok) throw new Error(printed.error.message);
    return sortNFTablesTransaction(printed.value);
  }
}

const sorted = sortNFTablesTransaction;

describe('TestSyncProxyRulesRepeated', () => {
  it('keeps the table as upstream does through partial syncs', () => {
    const p = new Proxier();
    let services: Service[] = [r.svc1, r.svc2];
    let slices: EndpointSlice[] = [r.eps1, r.eps2];
    expect(p.sync(services, slices).full).toBe(true);
    expect(p.dump()).toBe(sorted(expected.initial));

    // Add a new service and its endpoints: 1 element each to cluster-ips and service-ips,
    // add+flush of the service and endpoint chains and 2 rules in each.
    services = [...services, r.svc3];
    slices = [...slices, r.eps3];
    const added = p.sync(services, slices);
    expect(added.full).toBe(false);
    expect(p.dump()).toBe(sorted(expected.addService));
    expect(added.transaction.operations).toHaveLength(10);

    // Delete a service: its elements deleted, its chains flushed but not yet deleted.
    services = [r.svc1, r.svc3];
    const deleted = p.sync(services, slices);
    expect(p.dump()).toBe(sorted(expected.deleteService));
    expect(deleted.transaction.operations).toHaveLength(4);

    // Once they are stale long enough, the chains go, in a transaction of their own.
    p.ageStaleChains();
    const aged = p.sync(services, slices);
    expect(p.dump()).toBe(sorted(expected.staleDeleted));
    expect(aged.transaction.operations).toHaveLength(0);
    expect(aged.staleDeletion?.operations).toHaveLength(2);

    // Add a service, sync, then add its endpoints.
    services = [...services, r.svc4];
    const noEndpoints = p.sync(services, slices);
    expect(p.dump()).toBe(sorted(expected.addServiceWithoutEndpoints));
    expect(noEndpoints.transaction.operations).toHaveLength(2);
    slices = [...slices, r.eps4];
    const withEndpoints = p.sync(services, slices);
    expect(p.dump()).toBe(sorted(expected.addEndpoints));
    expect(withEndpoints.transaction.operations).toHaveLength(10);

    // Change an endpoint of an existing service: the old endpoint chain is flushed, not deleted.
    slices = slices.map((s) => (s === r.eps3 ? r.eps3update : s));
    const changed = p.sync(services, slices);
    expect(p.dump()).toBe(sorted(expected.changeEndpoint));
    expect(changed.transaction.operations).toHaveLength(9);

    // Add an endpoint to a service (the old endpoint chain aged, so deleted first).
    p.ageStaleChains();
    slices = slices.map((s) => (s === r.eps3update ? r.eps3update2 : s));
    const addedEndpoint = p.sync(services, slices);
    expect(p.dump()).toBe(sorted(expected.addEndpoint));
    expect(addedEndpoint.transaction.operations).toHaveLength(12);

    // Empty a service's endpoints: its chains flushed, not yet deleted.
    slices = slices.map((s) => (s === r.eps3update2 ? r.eps3update3 : s));
    const emptied = p.sync(services, slices);
    expect(p.dump()).toBe(sorted(expected.emptyEndpoints));
    expect(emptied.transaction.operations).toHaveLength(5);
    expect([...p.state.staleChains.keys()].sort()).toEqual([
      'endpoint-SWWHDC7X-ns3/svc3/tcp/p80__10.0.3.2/80',
      'endpoint-TQ2QKHCZ-ns3/svc3/tcp/p80__10.0.3.3/80',
      'service-4AT6LBPK-ns3/svc3/tcp/p80',
    ]);

    // Restore the endpoints at once: the chains are rewritten and no longer stale.
    slices = slices.map((s) => (s === r.eps3update3 ? r.eps3update2 : s));
    const restored = p.sync(services, slices);
    expect(p.dump()).toBe(sorted(expected.addEndpoint));
    expect(restored.transaction.operations).toHaveLength(14);
    expect(p.state.staleChains.size).toBe(0);

    // Empty them and restore them after the chains aged: deleted first, then made again.
    slices = slices.map((s) => (s === r.eps3update2 ? r.eps3update3 : s));
    p.sync(services, slices);
    p.ageStaleChains();
    slices = slices.map((s) => (s === r.eps3update3 ? r.eps3update2 : s));
    const recreated = p.sync(services, slices);
    expect(recreated.staleDeletion?.operations).toHaveLength(3);
    expect(p.dump()).toBe(sorted(expected.addEndpoint));

    // A sync with nothing changed writes nothing.
    const unchanged = p.sync(services, slices);
    expect(p.dump()).toBe(sorted(expected.addEndpoint));
    expect(unchanged.transaction.operations).toHaveLength(0);
  });
});
