// The default ServiceCIDR controller against upstream's unit tests, rewritten as vectors (the
// ServiceCIDRs stored, the flags, and the client actions of one sync: create, update, and the
// status apply as a patch), then its logs, events and schedule as its source gives them.
// upstream (v1.33): pkg/controlplane/controller/defaultservicecidr/default_servicecidr_controller_test.go
//           (TestControllerSync, TestControllerSyncConversions), and the texts and timings of
//           default_servicecidr_controller.go (see default-service-cidr.ts for how v1.33's
//           were established).
import type { ServiceCIDR } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVICE_CIDR_CONTROLLER_NAME, defaultServiceCIDRInitialized, stepDefaultServiceCIDR } from './default-service-cidr.js';
import { FakeApiserver, apiError, serviceCIDR } from './default-service-cidr.fixtures.js';

const V4 = '10.16.0.0/16';
const V6 = '2001:db8::/64';
const NOW = Date.UTC(2025, 0, 2, 3, 4, 5);
const NOW_TEXT = '2025-01-02T03:04:05Z';

const ready = (status: string, reason = ''): Partial<ServiceCIDR> => ({
  status: { conditions: [{ type: 'Ready', status, reason, message: '', lastTransitionTime: '2024-01-01T00:00:00Z' }] },
});

/** One sync, as upstream's test runs controller.sync() once: the writes it makes. */
function oneSync(flags: readonly string[], existing: readonly ServiceCIDR[]): { verbs: string[]; api: FakeApiserver } {
  const api = new FakeApiserver(flags, existing);
  api.now = NOW;
  api.send({ type: 'Observed', serviceCIDRs: api.list() });
  // Start, then answer each write as upstream's fake client does, until the first sync is over.
  const r = stepDefaultServiceCIDR(api.state, { type: 'Start', now: NOW });
  api.state = r.state;
  const pending = [...r.actions];
  const verbs: string[] = [];
  while (api.state.syncs === 0) {
    const a = pending.shift();
    if (a === undefined) break;
    if (a.kind !== 'create' && a.kind !== 'update' && a.kind !== 'apply-status') continue;
    verbs.push(a.kind === 'apply-status' ? 'patch' : a.kind);
    if (a.kind === 'create') api.put(a.object);
    const next = stepDefaultServiceCIDR(api.state, { type: 'ActionResult', id: a.id, ...(a.kind === 'create' ? { object: api.objects.get('kubernetes') } : {}) });
    api.state = next.state;
    pending.push(...next.actions);
  }
  return { verbs, api };
}

describe('TestControllerSync (flags 10.16.0.0/16, 2001:db8::/64)', () => {
  const flags = [V4, V6];
  const deleting = serviceCIDR('kubernetes', [V4, V6], { metadata: { name: 'kubernetes', deletionTimestamp: NOW_TEXT, finalizers: ['networking.k8s.io/service-cidr-finalizer'] } });
  const cases: readonly { name: string; cidrs: readonly ServiceCIDR[]; verbs: readonly string[] }[] = [
    { name: 'no existing service CIDRs', cidrs: [], verbs: ['create', 'patch'] },
    { name: 'existing default service CIDR update Ready condition', cidrs: [serviceCIDR('kubernetes', [V4, V6])], verbs: ['patch'] },
    { name: 'existing default service CIDR not matching cidrs', cidrs: [serviceCIDR('kubernetes', ['fd00::/112'])], verbs: [] },
    { name: 'existing default service CIDR not ready', cidrs: [serviceCIDR('kubernetes', [V4, V6], ready('False'))], verbs: [] },
    { name: 'existing default service CIDR being deleted', cidrs: [deleting], verbs: [] },
    { name: 'existing service CIDRs but not default', cidrs: [serviceCIDR('non-default-cidr', [V4, V6])], verbs: ['create', 'patch'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(oneSync(flags, c.cidrs).verbs).toEqual(c.verbs);
    });
  }
});

describe('TestControllerSyncConversions', () => {
  const cases: readonly { name: string; flags: readonly string[]; existing: ServiceCIDR; verbs: readonly string[] }[] = [
    { name: 'flags match ServiceCIDRs', flags: [V4, V6], existing: serviceCIDR('kubernetes', [V4, V6]), verbs: ['patch'] },
    { name: 'existing Ready=False condition, cidrs match -> no patch', flags: [V4, V6], existing: serviceCIDR('kubernetes', [V4, V6], ready('False', 'SomeReason')), verbs: [] },
    { name: 'existing Ready=True condition -> no patch', flags: [V4, V6], existing: serviceCIDR('kubernetes', [V4, V6], ready('True')), verbs: [] },
    {
      name: 'ServiceCIDR being deleted -> no patch',
      flags: [V4, V6],
      existing: serviceCIDR('kubernetes', [V4, V6], { metadata: { name: 'kubernetes', deletionTimestamp: NOW_TEXT } }),
      verbs: [],
    },
    { name: 'IPv4 to IPv4 IPv6 is ok', flags: [V4, V6], existing: serviceCIDR('kubernetes', [V4]), verbs: ['update'] },
    { name: 'IPv4 to IPv6 IPv4 - switching primary IP family leaves in inconsistent state', flags: [V6, V4], existing: serviceCIDR('kubernetes', [V4]), verbs: [] },
    { name: 'IPv6 to IPv6 IPv4', flags: [V6, V4], existing: serviceCIDR('kubernetes', [V6]), verbs: ['update'] },
    { name: 'IPv6 to IPv4 IPv6 - switching primary IP family leaves in inconsistent state', flags: [V4, V6], existing: serviceCIDR('kubernetes', [V6]), verbs: [] },
    { name: 'IPv6 IPv4 to IPv4 IPv6 - switching primary IP family leaves in inconsistent state', flags: [V4, V6], existing: serviceCIDR('kubernetes', [V6, V4]), verbs: [] },
    { name: 'IPv4 IPv6 to IPv4 - needs operator attention for the IPv6 remaining Services', flags: [V4], existing: serviceCIDR('kubernetes', [V4, V6]), verbs: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(oneSync(c.flags, [c.existing]).verbs).toEqual(c.verbs);
    });
  }
});

describe('what one sync writes, logs and records', () => {
  it('creates the ServiceCIDR from the flags, primary first, then sets Ready=True with the default message', () => {
    const api = new FakeApiserver([V4, V6]);
    api.now = NOW;
    api.start();
    expect(api.objects.get('kubernetes')).toMatchObject({
      metadata: { name: 'kubernetes' },
      spec: { cidrs: [V4, V6] },
      status: { conditions: [{ type: 'Ready', status: 'True', reason: '', message: 'Kubernetes default Service CIDR is ready', lastTransitionTime: NOW_TEXT }] },
    });
    expect(api.logs).toEqual([
      `Starting ${DEFAULT_SERVICE_CIDR_CONTROLLER_NAME}`,
      'Creating default ServiceCIDR with CIDRs: [10.16.0.0/16 2001:db8::/64]',
      'Setting default ServiceCIDR condition Ready to True',
      // Start returns after the first successful sync, running its deferred log.
      `Shutting down ${DEFAULT_SERVICE_CIDR_CONTROLLER_NAME}`,
    ]);
    expect(api.events).toEqual([]);
    expect(defaultServiceCIDRInitialized(api.state)).toBe(true);
  });

  it('sends the apply as server-side apply of the Ready condition by its field manager', () => {
    const api = new FakeApiserver([V4], [serviceCIDR('kubernetes', [V4])]);
    api.now = NOW;
    api.send({ type: 'Observed', serviceCIDRs: api.list() });
    const r = stepDefaultServiceCIDR(api.state, { type: 'Start', now: NOW });
    expect(r.actions).toContainEqual({
      kind: 'apply-status',
      id: 1,
      name: 'kubernetes',
      condition: { type: 'Ready', status: 'True', reason: '', message: 'Kubernetes default Service CIDR is ready', lastTransitionTime: NOW_TEXT },
      fieldManager: 'kubernetes-service-cidr-controller',
    });
  });

  it('upgrades single-stack to dual-stack with an update at the resourceVersion it read, and leaves the status to the next sync', () => {
    const api = new FakeApiserver([V4, V6], [serviceCIDR('kubernetes', [V4], ready('True'))]);
    const rv = api.objects.get('kubernetes')?.metadata.resourceVersion;
    api.send({ type: 'Observed', serviceCIDRs: api.list() });
    const r = stepDefaultServiceCIDR(api.state, { type: 'Start', now: NOW });
    expect(r.actions).toContainEqual({
      kind: 'update',
      id: 1,
      object: { ...serviceCIDR('kubernetes', [V4, V6], ready('True')), metadata: { name: 'kubernetes', resourceVersion: rv } },
      resourceVersion: rv,
    });
    expect(r.actions).toContainEqual({ kind: 'log', level: 'info', message: 'Updating default ServiceCIDR from single-stack ([10.16.0.0/16]) to dual-stack ([10.16.0.0/16 2001:db8::/64])' });
  });

  it('reports a failed upgrade with the error, and the sync still succeeds', () => {
    const api = new FakeApiserver([V4, V6], [serviceCIDR('kubernetes', [V4])]);
    api.failures.set('update', apiError('Invalid', 'ServiceCIDR.networking.k8s.io "kubernetes" is invalid: spec.cidrs: Forbidden'));
    api.start();
    expect(api.logs).toContain('The default ServiceCIDR can not be updated from 10.16.0.0/16 to dual stack [10.16.0.0/16 2001:db8::/64] : ServiceCIDR.networking.k8s.io "kubernetes" is invalid: spec.cidrs: Forbidden');
    expect(api.events).toEqual([
      {
        type: 'Warning',
        reason: 'KubernetesDefaultServiceCIDRError',
        message: 'The default ServiceCIDR can not be upgraded from 10.16.0.0/16 to dual stack [10.16.0.0/16 2001:db8::/64] : ServiceCIDR.networking.k8s.io "kubernetes" is invalid: spec.cidrs: Forbidden',
        component: 'kubernetes-service-cidr-controller',
        regarding: { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', name: 'kubernetes' },
      },
    ]);
    expect(defaultServiceCIDRInitialized(api.state)).toBe(true);
  });

  it('reports CIDRs that differ from the flags once, with upstream\'s log and event, and changes nothing', () => {
    const api = new FakeApiserver([V4], [serviceCIDR('kubernetes', ['fd00::/112'])]);
    api.start();
    api.advanceTo(60_000);
    expect(api.verbs).toEqual([]);
    expect(api.logs.filter((l) => l.startsWith('inconsistent'))).toEqual([
      'inconsistent ServiceCIDR status, global configuration: [fd00::/112] local configuration: [10.16.0.0/16], configure the flags to match current ServiceCIDR or manually delete the default ServiceCIDR',
    ]);
    expect(api.events).toEqual([
      {
        type: 'Warning',
        reason: 'KubernetesDefaultServiceCIDRInconsistent',
        message: 'The default ServiceCIDR [fd00::/112] does not match the flag configurations [10.16.0.0/16]',
        component: 'kubernetes-service-cidr-controller',
        regarding: { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', name: 'kubernetes' },
      },
    ]);
  });

  it('reports a Ready condition that is not True once, with its reason and message as the event, and leaves it', () => {
    const notReady: Partial<ServiceCIDR> = { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'SomeReason', message: 'some message', lastTransitionTime: '2024-01-01T00:00:00Z' }] } };
    const api = new FakeApiserver([V4], [serviceCIDR('kubernetes', [V4], notReady)]);
    api.start();
    api.advanceTo(60_000);
    expect(api.verbs).toEqual([]);
    expect(api.logs.filter((l) => l.includes('not True'))).toEqual([
      '"default ServiceCIDR condition Ready is not True, please validate your cluster\'s network configuration for this ServiceCIDR" status="False" reason="SomeReason" message="some message"',
    ]);
    expect(api.events.map((e) => [e.reason, e.message])).toEqual([['SomeReason', 'some message']]);
  });

  it('treats Ready=Unknown as not True, and Ready=True over other CIDRs as a mismatch', () => {
    const unknown = new FakeApiserver([V4], [serviceCIDR('kubernetes', [V4], ready('Unknown'))]);
    unknown.start();
    expect(unknown.verbs).toEqual([]);
    expect(unknown.events.map((e) => e.reason)).toEqual(['']);
    const other = new FakeApiserver([V4], [serviceCIDR('kubernetes', [V6], ready('True'))]);
    other.start();
    expect(other.verbs).toEqual([]);
    expect(other.events.map((e) => e.reason)).toEqual(['KubernetesDefaultServiceCIDRInconsistent']);
  });

  it('logs and records a failed status apply, and the sync still succeeds', () => {
    const api = new FakeApiserver([V4], [serviceCIDR('kubernetes', [V4])]);
    api.failures.set('apply-status', apiError('Forbidden', 'forbidden'));
    api.start();
    expect(api.logs).toContain('error updating default ServiceCIDR status: forbidden');
    expect(api.events.map((e) => [e.reason, e.message])).toEqual([['KubernetesDefaultServiceCIDRError', 'The default ServiceCIDR Status can not be set to Ready=True']]);
    expect(defaultServiceCIDRInitialized(api.state)).toBe(true);
  });

  it('on a failed create records an event about the empty object the client returned, and polls again 100 ms after the try began', () => {
    const api = new FakeApiserver([V4]);
    api.failures.set('create', apiError('ServiceUnavailable', 'the server is currently unable to handle the request'));
    api.start();
    expect(api.events).toEqual([
      {
        type: 'Warning',
        reason: 'KubernetesDefaultServiceCIDRError',
        message: 'The default ServiceCIDR can not be created',
        component: 'kubernetes-service-cidr-controller',
        regarding: { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', name: '' },
      },
    ]);
    expect(defaultServiceCIDRInitialized(api.state)).toBe(false);
    expect(api.wakeAt).toBe(100);
    api.advanceTo(350);
    expect(api.verbs).toEqual(['create', 'create', 'create', 'create']);
    // The poll logs nothing of its own for a failed try.
    expect(api.logs.filter((l) => l.startsWith('error'))).toEqual([]);
    api.failures.delete('create');
    api.advanceTo(400);
    expect(defaultServiceCIDRInitialized(api.state)).toBe(true);
  });

  it('on AlreadyExists goes on with the empty object, which it reports as a mismatch', () => {
    const api = new FakeApiserver([V4]);
    api.send({ type: 'Observed', serviceCIDRs: [] });
    // Another apiserver created it after this one's informer listed.
    api.put(serviceCIDR('kubernetes', [V4]));
    api.send({ type: 'Start', now: 0 });
    expect(api.verbs[0]).toBe('create');
    expect(api.logs).toContain(
      'inconsistent ServiceCIDR status, global configuration: [] local configuration: [10.16.0.0/16], configure the flags to match current ServiceCIDR or manually delete the default ServiceCIDR',
    );
    expect(api.events.map((e) => [e.reason, e.message, e.regarding.name])).toEqual([
      ['KubernetesDefaultServiceCIDRInconsistent', 'The default ServiceCIDR [] does not match the flag configurations [10.16.0.0/16]', ''],
    ]);
    expect(defaultServiceCIDRInitialized(api.state)).toBe(true);
  });
});

describe('the schedule', () => {
  it('waits for the informer before the first sync', () => {
    const api = new FakeApiserver([V4]);
    api.send({ type: 'Start', now: 0 });
    expect(api.verbs).toEqual([]);
    api.send({ type: 'Observed', serviceCIDRs: [] });
    expect(api.verbs).toEqual(['create', 'patch status']);
  });

  it('syncs again at once when Start returns, then every 10 s after each sync ends', () => {
    const api = new FakeApiserver([V4]);
    api.start();
    expect(api.state.syncs).toBe(2);
    expect(api.wakeAt).toBe(10_000);
    api.advanceTo(35_000);
    expect(api.state.syncs).toBe(5);
    // Nothing left to write: the ServiceCIDR is there and Ready.
    expect(api.verbs).toEqual(['create', 'patch status']);
  });

  it('recreates the ServiceCIDR on the next sync when it is deleted, but records no events after Start returned', () => {
    const api = new FakeApiserver([V4]);
    api.start();
    api.objects.delete('kubernetes');
    api.send({ type: 'Observed', serviceCIDRs: [] });
    api.failures.set('create', apiError('Forbidden', 'forbidden'));
    api.advanceTo(10_000);
    expect(api.logs.at(-1)).toBe('error trying to sync the default ServiceCIDR: forbidden');
    expect(api.events).toEqual([]);
    api.failures.delete('create');
    api.advanceTo(20_000);
    expect(api.objects.get('kubernetes')?.spec?.cidrs).toEqual([V4]);
    expect(api.verbs).toEqual(['create', 'patch status', 'create', 'create', 'patch status']);
  });

  it('logs why Start gave up when stopped before the first sync succeeded, and asks nothing after Stop', () => {
    const api = new FakeApiserver([V4]);
    api.failures.set('create', apiError('Forbidden', 'forbidden'));
    api.start();
    api.send({ type: 'Stop', now: 50 });
    expect(api.logs.slice(-2)).toEqual(['error initializing the default ServiceCIDR: context canceled', `Shutting down ${DEFAULT_SERVICE_CIDR_CONTROLLER_NAME}`]);
    const writes = api.verbs.length;
    api.advanceTo(60_000);
    expect(api.verbs.length).toBe(writes);
    expect(api.state.phase).toBe('stopped');
  });

  it('ignores the result of a write it no longer waits for', () => {
    const api = new FakeApiserver([V4]);
    api.start();
    const before = api.state;
    expect(stepDefaultServiceCIDR(before, { type: 'ActionResult', id: 999 })).toEqual({ state: before, actions: [] });
  });
});
