// The live explorer source builds its model only when someone reads it. A burst of writes to an
// apiserver with no page open must cost nothing here: the model was rebuilt after every change
// before, which with thousands of Services kept three apiservers on one etcd so busy that their
// informers fell tens of seconds behind and their master leases expired.
import { parseServiceNetworking } from '@kubesvc/api-types';
import { proxierConfig } from '@kubesvc/proxy-iptables';
import { openRegistry, type Registry } from '@kubesvc/apiserver';
import { startInformer, type Informer } from '@kubesvc/runtime';
import { openMemoryStore, systemClock, type Store } from '@kubesvc/store';
import { afterEach, describe, expect, it } from 'vitest';
import { startLiveExplorerSource, type LiveExplorerSource } from './explorer-sources.js';

const config = proxierConfig({ nodeName: 'node-1', nodeIPs: ['192.0.2.10'], localDetector: { kind: 'cidr', cidr: '10.244.0.0/16' } });
if (!config.ok) throw new Error(config.error.message);
const proxier = config.value;

interface Live {
  readonly store: Store;
  readonly registry: Registry;
  readonly informer: Informer;
  readonly source: LiveExplorerSource;
}

const opened: Live[] = [];
afterEach(async () => {
  for (const live of opened.splice(0)) {
    live.source.stop();
    live.informer.stop();
    await live.store.close();
  }
});

async function live(): Promise<Live> {
  const store = await openMemoryStore();
  const serviceNetworking = parseServiceNetworking({ serviceClusterIPRange: '10.96.0.0/24' });
  if (!serviceNetworking.ok) throw new Error(serviceNetworking.error.message);
  const r = await openRegistry({ store, clock: systemClock, seed: 1, serviceNetworking: serviceNetworking.value });
  if (!r.ok) throw new Error(r.error.message);
  const registry = r.value;
  await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  const informer = await startInformer({ store, resources: ['services', 'endpointslices', 'pods', 'namespaces'] });
  const source = await startLiveExplorerSource(informer, store, 'test', { proxier, serviceNetworking: serviceNetworking.value, now: () => Date.now() });
  const l = { store, registry, informer, source };
  opened.push(l);
  return l;
}

async function createServices(l: Live, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const r = await l.registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ port: 80 }] } });
    if (!r.ok) throw new Error(r.error.message);
    await l.informer.waitFor(await l.store.revision());
  }
}

const names = (n: number, prefix = 'svc') => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe('the live explorer source', () => {
  it('builds nothing while nobody reads it: 20 changes, then one read, make one build', async () => {
    const l = await live();
    expect((await l.source.model()).generation).toBe(1);
    await createServices(l, names(20));
    const model = await l.source.model();
    expect(model.generation).toBe(2);
    expect(model.services.map((s) => s.name).filter((n) => n.startsWith('svc-')).sort()).toEqual(names(20).sort());
    // Read again without a change: the same model, no build.
    expect((await l.source.model()).generation).toBe(2);
  });

  it('readers at once share one build, and a trace sees the change', async () => {
    const l = await live();
    await createServices(l, ['web']);
    const [a, b] = await Promise.all([l.source.model(), l.source.model()]);
    expect(a.generation).toBe(2);
    expect(b).toBe(a);
    const web = a.services.find((s) => s.name === 'web');
    expect(web?.clusterIPs[0]).toMatch(/^10\.96\.0\./);
    const traced = async (destination: string) => {
      const answer = await l.source.trace({ source: '10.244.9.9', destination, protocol: 'tcp' });
      return answer.ok ? answer.value.map((o) => o.outcome) : [answer.error.message];
    };
    // web has no endpoints, so kube-proxy's filter table rejects it (INV-IPT-NOEP); an address
    // no Service has matches no rule.
    expect(await traced(`${web?.clusterIPs[0] ?? ''}:80`)).toEqual(['reject']);
    expect(await traced('10.96.0.250:80')).not.toEqual(['reject']);
    expect((await l.source.model()).generation).toBe(2);
  });

  it('tells a subscriber about a change once per burst, and the model it then reads has the whole burst', async () => {
    const l = await live();
    let told = 0;
    const unsubscribe = l.source.subscribe(() => told++);
    await createServices(l, names(10, 'burst'));
    await new Promise((r) => setTimeout(r, 100));
    expect(told).toBeGreaterThanOrEqual(1);
    expect(told).toBeLessThan(10);
    const model = await l.source.model();
    expect(model.services.filter((s) => s.name.startsWith('burst-'))).toHaveLength(10);
    unsubscribe();
  });
});
