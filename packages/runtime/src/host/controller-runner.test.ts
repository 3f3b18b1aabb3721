// The keyed-controller runner over the memory store on a virtual clock, with a small controller
// written here: it copies a Service's `team` label onto the Endpoints of the same name.
// What client-go's workqueue promises is checked against the store: a failed write comes back
// after 5 ms, then 10, 20, 40 (DefaultControllerRateLimiter), a requeue-after waits its time,
// a reconcile after a write reads a cache that has the write, and stop() ends all writing.
// The allocator does not matter here: these Services take their ClusterIPs from the bitmap.
import { BITMAP_CLUSTER_IP_ALLOCATION } from '@kubesvc/api-types';
import type { Endpoints, Event, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { createRegistry, type Registry, recordingLogger, type RecordingLogger } from '@kubesvc/apiserver';
import { openMemoryStore, type Store, virtualClock, type VirtualClock } from '@kubesvc/store';
import { startControllerRunner, type ControllerRunner } from './controller-runner.js';
import { startInformer, type Informer } from './informer.js';
import type { CacheChange, CacheView, KeyedController, ReconcileAction } from '@kubesvc/controllers';
import { ControllerRateLimiter } from './workqueue.js';
import { cleanups, must, T0 } from '../runtime.fixtures.js';



interface Fixture {
  clock: VirtualClock;
  store: Store;
  registry: Registry;
  informer: Informer;
  logger: RecordingLogger;
}

async function fixture(): Promise<Fixture> {
  const clock = virtualClock(T0);
  const store = openMemoryStore({ clock });
  cleanups.push(() => store.close());
  const registry = must(createRegistry({ store, clock, seed: 7, serviceClusterIPRanges: ['10.96.0.0/24'], clusterIPAllocation: BITMAP_CLUSTER_IP_ALLOCATION }));
  must(await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }));
  const service: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', labels: { team: 'blue' } }, spec: { ports: [{ port: 80 }] } };
  must(await registry.create('services', 'default', service));
  const endpoints: Endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web' }, subsets: [{ addresses: [{ ip: '10.244.0.5' }], ports: [{ port: 8080 }] }] };
  must(await registry.create('endpoints', 'default', endpoints));
  const informer = await startInformer({ store, resources: ['services', 'endpoints'] });
  cleanups.push(() => informer.stop());
  return { clock, store, registry, informer, logger: recordingLogger() };
}

function start(f: Fixture, controllers: KeyedController[]): ControllerRunner {
  const runner = startControllerRunner({ registry: f.registry, informer: f.informer, clock: f.clock, controllers, logger: f.logger });
  cleanups.push(() => runner.stop());
  return runner;
}

/** Until the caches have every write and no key is queued. */
async function settle(f: Fixture, runner: ControllerRunner): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const revision = await f.store.revision();
    await f.informer.waitFor(revision);
    await runner.idle();
    if ((await f.store.revision()) === revision) return;
  }
  throw new Error('the runner did not settle');
}

function keyOf(change: CacheChange): string {
  return `${change.object.metadata?.namespace ?? ''}/${change.object.metadata?.name ?? ''}`;
}

interface Call {
  readonly at: number;
  readonly key: string;
  /** The Endpoints' resourceVersion the reconcile saw. */
  readonly seen: string | undefined;
}

/** Copies the Service's team label onto its Endpoints; `precondition` can force a stale resourceVersion. */
function labelCopier(calls: Call[], options: { precondition?: () => string | undefined; requeueMs?: number } = {}): KeyedController {
  return {
    name: 'label-copier',
    watches: ['services', 'endpoints'],
    keysFor: (change) => [keyOf(change)],
    reconcile(key: string, cache: CacheView, now: number): readonly ReconcileAction[] {
      const [ns = '', name = ''] = key.split('/');
      const svc = cache.get<Service>('services', ns, name);
      const ep = cache.get<Endpoints>('endpoints', ns, name);
      calls.push({ at: now, key, seen: ep?.metadata.resourceVersion });
      const actions: ReconcileAction[] = [];
      if (options.requeueMs !== undefined) actions.push({ kind: 'requeue-after', key, afterMs: options.requeueMs });
      if (svc === undefined || ep === undefined) return actions;
      const team = svc.metadata.labels?.['team'];
      if (team === undefined || ep.metadata.labels?.['team'] === team) return actions;
      const forced = options.precondition?.();
      const resourceVersion = forced ?? ep.metadata.resourceVersion;
      actions.push({
        kind: 'update',
        resource: 'endpoints',
        namespace: ns,
        object: { ...ep, metadata: { ...ep.metadata, labels: { ...ep.metadata.labels, team }, ...(resourceVersion === undefined ? {} : { resourceVersion }) } },
      });
      return actions;
    },
  };
}

describe('the keyed-controller runner', () => {
  it('reconciles every object of the first list, writes through the registry, and reads its own write on the next reconcile', async () => {
    const f = await fixture();
    const calls: Call[] = [];
    const runner = start(f, [labelCopier(calls)]);
    await settle(f, runner);
    const ep = must(await f.registry.get<Endpoints>('endpoints', 'default', 'web'));
    expect(ep.metadata.labels).toEqual({ team: 'blue' });
    // The key came from the Service's ADDED and the Endpoints' ADDED (one reconcile: the queue
    // deduplicates), then from the MODIFIED of its own write, which it saw.
    const web = calls.filter((c) => c.key === 'default/web');
    expect(web.length).toBe(2);
    expect(web[1]?.seen).toBe(ep.metadata.resourceVersion);
    expect(f.logger.lines.filter((l) => l.level === 'error')).toEqual([]);

    // A later change flows through the same way.
    const svc = must(await f.registry.get<Service>('services', 'default', 'web'));
    must(await f.registry.update('services', 'default', 'web', { ...svc, metadata: { ...svc.metadata, labels: { team: 'green' } } }));
    await settle(f, runner);
    expect(must(await f.registry.get<Endpoints>('endpoints', 'default', 'web')).metadata.labels).toEqual({ team: 'green' });
  });

  it('requeues a Conflict after 5, 10, 20 and 40 ms, logs each failure, and resets the backoff on success', async () => {
    const f = await fixture();
    const calls: Call[] = [];
    let stale = 4;
    // The first four updates carry resourceVersion 1, long gone: the registry's Conflict.
    const runner = start(f, [labelCopier(calls, { precondition: () => (stale-- > 0 ? '1' : undefined) })]);
    await settle(f, runner);
    expect(calls.map((c) => c.at - T0)).toEqual([0]);
    expect(runner.numRequeues('label-copier', 'default/web')).toBe(1);
    for (const step of [4, 1, 9, 1, 19, 1, 39, 1]) {
      f.clock.advance(step);
      await settle(f, runner);
    }
    // Tried at 0, 5, 15, 35 and 75 ms; the fifth wrote, and its write's MODIFIED came back at once.
    expect(calls.map((c) => c.at - T0)).toEqual([0, 5, 15, 35, 75, 75]);
    expect(runner.numRequeues('label-copier', 'default/web')).toBe(0);
    const errors = f.logger.lines.filter((l) => l.level === 'error').map((l) => l.message);
    expect(errors).toHaveLength(4);
    expect(errors[0]).toBe(
      'label-copier: error syncing "default/web", requeuing in 5 ms: update endpoints default/web: Conflict: Operation cannot be fulfilled on endpoints "web": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect(errors.map((e) => /requeuing in (\d+) ms/.exec(e)?.[1])).toEqual(['5', '10', '20', '40']);
    expect(must(await f.registry.get<Endpoints>('endpoints', 'default', 'web')).metadata.labels).toEqual({ team: 'blue' });
  });

  it('takes a delete of an object already gone as done: no error logged, no requeue', async () => {
    const f = await fixture();
    const calls: string[] = [];
    // Deletes Endpoints default/gone, which never existed (as when a namespace deletion took
    // it first): upstream's endpoints controller ignores NotFound on delete.
    const deleter: KeyedController = {
      name: 'deleter',
      watches: ['services'],
      keysFor: (change) => [keyOf(change)],
      reconcile(key: string): readonly ReconcileAction[] {
        calls.push(key);
        return [{ kind: 'delete', resource: 'endpoints', namespace: 'default', name: 'gone' }];
      },
    };
    const runner = start(f, [deleter]);
    await settle(f, runner);
    f.clock.advance(1000);
    await settle(f, runner);
    expect(calls).toEqual(['default/web']);
    expect(runner.numRequeues('deleter', 'default/web')).toBe(0);
    expect(f.logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('reconciles a key again after requeue-after, and not before', async () => {
    const f = await fixture();
    const calls: Call[] = [];
    const runner = start(f, [labelCopier(calls, { requeueMs: 30_000 })]);
    await settle(f, runner);
    const before = calls.length;
    f.clock.advance(29_999);
    await settle(f, runner);
    expect(calls.length).toBe(before);
    f.clock.advance(1);
    await settle(f, runner);
    expect(calls.length).toBe(before + 1);
    expect(calls.at(-1)?.at).toBe(T0 + 30_000);
  });

  it('writes a recorded event as the events/v1 recorder does, and a refused one fails nothing', async () => {
    const f = await fixture();
    const recorder: KeyedController = {
      name: 'recorder',
      watches: ['services'],
      keysFor: (change) => [keyOf(change)],
      reconcile: (key) => {
        const [namespace = '', name = ''] = key.split('/');
        const event = (ns: string) => ({
          kind: 'event' as const,
          event: {
            recorder: 'events/v1' as const,
            type: 'Warning' as const,
            reason: 'FailedScheduling',
            action: 'Scheduling',
            message: 'no nodes available to schedule pods',
            reportingController: 'default-scheduler',
            regarding: { apiVersion: 'v1', kind: 'Service', namespace: ns, name, resource: 'services' as const },
          },
        });
        // The second names a namespace that does not exist: the registry refuses its event.
        return [event(namespace), event('gone')];
      },
    };
    const runner = startControllerRunner({ registry: f.registry, informer: f.informer, clock: f.clock, controllers: [recorder], logger: f.logger, hostname: 'host-a' });
    cleanups.push(() => runner.stop());
    await settle(f, runner);
    const events = must(await f.registry.list<Event>('events', 'default')).items;
    expect(events).toHaveLength(1);
    const service = must(await f.registry.get<Service>('services', 'default', 'web'));
    expect(events[0]).toMatchObject({
      type: 'Warning',
      reason: 'FailedScheduling',
      message: 'no nodes available to schedule pods',
      action: 'Scheduling',
      reportingComponent: 'default-scheduler',
      reportingInstance: 'default-scheduler-host-a',
      involvedObject: { kind: 'Service', namespace: 'default', name: 'web', apiVersion: 'v1', uid: service.metadata.uid },
    });
    expect(runner.numRequeues('recorder', 'default/web')).toBe(0);
    expect(f.logger.lines.some((l) => l.level === 'error' && l.message.startsWith('Server rejected event (will not retry!)'))).toBe(true);
  });

  it('counts a repeated core/v1 event on its first record (count, first and last timestamp), as client-go\'s correlator does', async () => {
    const f = await fixture();
    const warner: KeyedController = {
      name: 'warner',
      watches: ['services'],
      keysFor: (change) => [keyOf(change)],
      reconcile: (key) => {
        const [namespace = '', name = ''] = key.split('/');
        return [
          { kind: 'event', event: { recorder: 'core/v1', reportingController: 'warner', type: 'Warning', reason: 'Stuck', message: 'the same thing again', regarding: { resource: 'services', apiVersion: 'v1', kind: 'Service', namespace, name } } },
          { kind: 'requeue-after', key, afterMs: 60_000 },
        ];
      },
    };
    const runner = start(f, [warner]);
    await settle(f, runner);
    for (let i = 0; i < 2; i++) {
      f.clock.advance(60_000);
      await settle(f, runner);
    }
    const events = must(await f.registry.list<Event>('events', 'default')).items;
    expect(events.map((e) => ({ count: e.count, first: e.firstTimestamp, last: e.lastTimestamp, message: e.message }))).toEqual([
      { count: 3, first: new Date(T0).toISOString().replace('.000Z', 'Z'), last: new Date(T0 + 120_000).toISOString().replace('.000Z', 'Z'), message: 'the same thing again' },
    ]);
  });

  it('hands a controller back, per key, what it last asked to remember, and forgets it when asked', async () => {
    const f = await fixture();
    const seen: { key: string; remembered: unknown }[] = [];
    const counter: KeyedController = {
      name: 'counter',
      watches: ['services'],
      keysFor: (change) => [keyOf(change)],
      reconcile(key, cache, _now, remembered) {
        seen.push({ key, remembered });
        const [ns = '', name = ''] = key.split('/');
        if (cache.get<Service>('services', ns, name) === undefined) return [{ kind: 'remember', key, value: undefined }];
        return [{ kind: 'remember', key, value: typeof remembered === 'number' ? remembered + 1 : 1 }];
      },
    };
    const runner = start(f, [counter]);
    await settle(f, runner);
    must(await f.registry.patch('services', 'default', 'web', 'application/merge-patch+json', '{"metadata":{"labels":{"team":"red"}}}'));
    await settle(f, runner);
    must(await f.registry.delete('services', 'default', 'web'));
    await settle(f, runner);
    must(await f.registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } }));
    await settle(f, runner);
    // 1st sync: nothing; 2nd: the 1 it kept; the deletion sees 2 and forgets; the new Service starts over.
    expect(seen.filter((c) => c.key === 'default/web').map((c) => c.remembered)).toEqual([undefined, 1, 2, undefined]);
  });

  it('makes no write once stop() has resolved, even with a write in flight and timers pending', async () => {
    const f = await fixture();
    let writes = 0;
    // Writes the time into a label on every reconcile, and asks to run again every second.
    const ticker: KeyedController = {
      name: 'ticker',
      watches: ['endpoints'],
      keysFor: (change) => [keyOf(change)],
      reconcile(key, cache, now) {
        const [ns = '', name = ''] = key.split('/');
        const ep = cache.get<Endpoints>('endpoints', ns, name);
        if (ep === undefined) return [];
        if (ep.metadata.labels?.['at'] === String(now)) return [{ kind: 'requeue-after', key, afterMs: 1000 }];
        writes++;
        return [
          { kind: 'update', resource: 'endpoints', namespace: ns, object: { ...ep, metadata: { ...ep.metadata, labels: { at: String(now) } } } },
          { kind: 'requeue-after', key, afterMs: 1000 },
        ];
      },
    };
    const runner = start(f, [ticker]);
    await settle(f, runner);
    f.clock.advance(1000);
    await settle(f, runner);
    expect(writes).toBe(2);
    // A change queues the key, and stop() is called while that reconcile's write is in flight.
    const ep = must(await f.registry.get<Endpoints>('endpoints', 'default', 'web'));
    must(await f.registry.update('endpoints', 'default', 'web', { ...ep, metadata: { ...ep.metadata, annotations: { poke: '1' } } }));
    await f.informer.waitFor(await f.store.revision());
    await runner.stop();
    const revision = await f.store.revision();
    f.clock.advance(60_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await f.store.revision()).toBe(revision);
    expect(f.clock.pendingTimers()).toBe(0);
  });
});

describe('the default controller rate limiter', () => {
  it('doubles from 5 ms per key up to 1000 s, and forgetting a key starts it over', () => {
    const limiter = new ControllerRateLimiter({ qps: 1e9 });
    const delays = Array.from({ length: 20 }, () => limiter.when('a', 0));
    expect(delays.slice(0, 4)).toEqual([5, 10, 20, 40]);
    // 5 ms · 2^17 = 655.36 s; 2^18 would pass 1000 s.
    expect(delays[17]).toBe(655_360);
    expect(delays[18]).toBe(1_000_000);
    expect(delays[19]).toBe(1_000_000);
    expect(limiter.when('b', 0)).toBe(5);
    limiter.forget('a');
    expect(limiter.when('a', 0)).toBe(5);
  });

  it('spreads more than 100 retries at once at 10 per second (the overall bucket)', () => {
    const limiter = new ControllerRateLimiter();
    const delays = Array.from({ length: 103 }, (_, i) => limiter.when(`key-${i}`, 0));
    expect(delays.slice(0, 100).every((d) => d === 5)).toBe(true);
    expect(delays.slice(100)).toEqual([100, 200, 300]);
  });
});
