// INV-IPT-RENDER-SHARED: proxiers of different nodes that share a render cache (render-cache.ts)
// write, at every sync, exactly the restore text each writes alone. A run is a generated cluster
// and a sequence of changes and syncs (sync-gen.fixtures.ts: Services of every type, Local
// traffic policies, external IPs, endpoints on either node), synced by two proxiers (node-a,
// node-b) sharing one cache and by two more, each alone.
import type { EndpointSlice } from '@kubesvc/api-types';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createRenderCache, sync, type SyncConfig, type SyncState } from './index.js';
import type { StateData } from './state.js';
import { buildService, buildSlice, configArb, GenWorld, initialArb, opArb, type ServiceGen } from './sync-gen.fixtures.js';

/** The same settings on another node: its name and addresses differ. */
function onNodeB(config: SyncConfig): SyncConfig {
  return { ...config, nodeName: 'node-b', nodeIPs: ['127.0.0.1', '192.168.0.3'], nodeIP: '192.168.0.3' };
}

test.prop([configArb, initialArb, fc.array(opArb, { maxLength: 30, size: 'medium' })])(
  'INV-IPT-RENDER-SHARED: two nodes\' proxiers sharing a render cache each write exactly the restore text they write alone, at every sync',
  (configA, initial, ops) => {
    const configB = onNodeB(configA);
    const world = new GenWorld(initial);
    let reversed = false;
    const cache = createRenderCache();
    const states: (SyncState | undefined)[] = [undefined, undefined, undefined, undefined];
    let syncs = 0;
    const syncAll = (full: boolean) => {
      const { services: svcs, slices: sls } = world.arrays(reversed);
      const options = full ? { full: true } : {};
      const sharedA = sync(states[0], svcs, sls, configA, { ...options, renderCache: cache });
      const sharedB = sync(states[1], svcs, sls, configB, { ...options, renderCache: cache });
      const aloneA = sync(states[2], svcs, sls, configA, options);
      const aloneB = sync(states[3], svcs, sls, configB, options);
      syncs++;
      expect(sharedA.restoreText, `node-a, sync ${syncs}`).toBe(aloneA.restoreText);
      expect(sharedB.restoreText, `node-b, sync ${syncs}`).toBe(aloneB.restoreText);
      states.splice(0, 4, sharedA.state, sharedB.state, aloneA.state, aloneB.state);
    };
    syncAll(false);
    for (const op of ops) {
      const mine = world.apply(op);
      if (mine?.kind === 'reverse') reversed = !reversed;
      else if (mine?.kind === 'sync') syncAll(mine.full);
    }
    syncAll(false);
  },
);

describe('render cache', () => {
  const gen = (type: ServiceGen['type'], itpLocal = false): ServiceGen => ({ type, ports: [{ name: 'http', protocol: 'TCP', port: 80 }], etpLocal: false, itpLocal, affinity: false, externalIP: false });
  const endpoints = { endpoints: [{ ip: 1, ready: true, terminating: false, local: true }, { ip: 2, ready: true, terminating: false, local: false }], protocol: 'TCP' as const, targetPort: 8080 };

  it('a second node takes a ClusterIP Service\'s text from the cache (the same bytes), and renders a Local or NodePort Service itself', () => {
    const config = fc.sample(configArb, { numRuns: 1, seed: 1 })[0] as SyncConfig;
    const services = [buildService(1, gen('ClusterIP')), buildService(2, gen('ClusterIP', true)), buildService(3, gen('NodePort'))];
    const slices = [buildSlice(1, endpoints), buildSlice(2, endpoints), buildSlice(3, endpoints)];
    const cache = createRenderCache();
    const a = sync(undefined, services, slices, config, { renderCache: cache }).state as StateData;
    expect(cache.stats()).toStrictEqual({ hits: 0, stored: 1 });
    const b = sync(undefined, services, slices, onNodeB(config), { renderCache: cache }).state as StateData;
    expect(cache.stats()).toStrictEqual({ hits: 1, stored: 1 });
    const bytesOf = (s: StateData, name: string) => s.entries.find((e) => e.name === name)?.rendered.bytes;
    expect(bytesOf(b, 'svc1')).toBe(bytesOf(a, 'svc1'));
    expect(bytesOf(b, 'svc2')).not.toBe(bytesOf(a, 'svc2'));
    expect(bytesOf(b, 'svc3')).not.toBe(bytesOf(a, 'svc3'));
    // A third node given a new slice object for svc1 (the same content) renders it itself: the cache keys by identity.
    const configC = { ...config, nodeName: 'node-c', nodeIPs: ['127.0.0.1', '192.168.0.4'], nodeIP: '192.168.0.4' };
    sync(undefined, services, [buildSlice(1, endpoints), slices[1] as EndpointSlice, slices[2] as EndpointSlice], configC, { renderCache: cache });
    expect(cache.stats()).toStrictEqual({ hits: 1, stored: 2 });
  });
});
