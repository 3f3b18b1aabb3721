// kubeProxyVersion '1.8' in sync and syncChanges: kube-proxy 1.8 had no partial syncs, so every
// sync writes the whole text, generateRules' 1.8 text, and deletes the service chains that the
// previous sync wrote and this one does not (upstream: pkg/proxy/iptables/proxier.go at v1.8.0,
// syncProxyRules: a chain line and `-X` for each KUBE-SVC/SEP/FW/XLB chain no longer in use).
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { generateRules } from '../backend.js';
import { validConfig } from '../proxier-config.fixtures.js';
import { applyRestore, emptyTables, printTables, type TableState } from '../restore-model/index.js';
import { sync, syncChanges, syncedRuleset } from './index.js';

const v18 = validConfig({ nodeName: 'node-1', kubeProxyVersion: '1.8' });
const v131 = validConfig({ nodeName: 'node-1' });

function service(name: string, clusterIP: string, affinity = false): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'default', name },
    spec: {
      clusterIP,
      ports: [{ name: 'https', port: 443, targetPort: 6443, protocol: 'TCP' }],
      ...(affinity ? { sessionAffinity: 'ClientIP' as const, sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } } } : {}),
    },
  };
}
function slice(name: string, ips: readonly string[]): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'default', name, labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4',
    endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
    ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
  };
}

const kubernetes = service('kubernetes', '192.168.255.1', true);
const masters = slice('kubernetes', ['172.16.0.11', '172.16.0.12', '172.16.0.13']);
const web = service('web', '192.168.255.20');
const webPods = slice('web', ['172.16.1.5', '172.16.1.6']);

function applied(tables: TableState, text: string): TableState {
  const r = applyRestore(tables, text, { noflush: true });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe("sync with kubeProxyVersion '1.8'", () => {
  it("writes generateRules' 1.8 text, not v1.31's", () => {
    const r = sync(undefined, [kubernetes, web], [masters, webPods], v18);
    expect(r.restoreText).toBe(generateRules([kubernetes, web], [masters, webPods], v18).restoreText);
    expect(r.restoreText).not.toBe(generateRules([kubernetes, web], [masters, webPods], v131).restoreText);
    expect(r.restoreText).toMatch(/ --probability 0\.33333 /);
    expect(r.stats.full).toBe(true);
    expect(r.stats.lines).toBe(r.restoreText.split('\n').length - 1);
    expect(syncedRuleset(r.state)).toEqual(generateRules([kubernetes, web], [masters, webPods], v18).ruleset);
  });

  it('every later sync is full too, and deletes the chains of a removed service', () => {
    const first = sync(undefined, [kubernetes, web], [masters, webPods], v18);
    const same = sync(first.state, [kubernetes, web], [masters, webPods], v18);
    expect(same.restoreText).toBe(first.restoreText);
    expect(same.stats).toMatchObject({ full: true, servicesChanged: 0, chainsDeleted: 0 });

    const second = sync(same.state, [kubernetes], [masters], v18);
    const expected = generateRules([kubernetes], [masters], v18).restoreText;
    expect(second.stats).toMatchObject({ full: true, servicesChanged: 1, chainsDeleted: 3 });
    const deleted = second.restoreText.split('\n').filter((line) => line.startsWith('-X '));
    expect(deleted).toHaveLength(3);
    // Without its chain lines and `-X` lines for the deleted chains, the text is generateRules'.
    const gone = new Set(deleted.map((line) => line.slice(3)));
    const rest = second.restoreText
      .split('\n')
      .filter((line) => !line.startsWith('-X ') && !gone.has(/^:(\S+)/.exec(line)?.[1] ?? ''))
      .join('\n');
    expect(rest).toBe(expected);
    // Applied one after the other, the tables hold what one sync of the last cluster leaves.
    const after = applied(applied(emptyTables(4), first.restoreText), second.restoreText);
    expect(printTables(after)).toBe(printTables(applied(emptyTables(4), expected)));
  });

  it('syncChanges gives the same text and a state a later sync continues from', () => {
    const viaChanges = syncChanges(
      undefined,
      [
        { kind: 'ServiceAdd', service: kubernetes },
        { kind: 'EndpointSliceAdd', endpointSlice: masters },
      ],
      v18,
    );
    expect(viaChanges.restoreText).toBe(generateRules([kubernetes], [masters], v18).restoreText);
    const more = syncChanges(
      viaChanges.state,
      [
        { kind: 'ServiceAdd', service: web },
        { kind: 'EndpointSliceAdd', endpointSlice: webPods },
      ],
      v18,
    );
    expect(more.restoreText).toBe(generateRules([kubernetes, web], [masters, webPods], v18).restoreText);
    expect(more.stats.servicesChanged).toBe(1);
  });

  it('a switch between 1.8 and 1.31 deletes the chains the other version wrote', () => {
    const old = sync(undefined, [kubernetes, web], [masters, webPods], v18);
    const modern = sync(old.state, [kubernetes, web], [masters, webPods], v131);
    const tables = applied(applied(emptyTables(4), old.restoreText), modern.restoreText);
    expect(printTables(tables)).toBe(printTables(applied(emptyTables(4), generateRules([kubernetes, web], [masters, webPods], v131).restoreText)));
    // Back to 1.8: v1.8 deletes only its own nat service chains, so the newer filter chains stay
    // (as on a real downgrade); the nat table is what one 1.8 sync leaves.
    const back = sync(modern.state, [kubernetes, web], [masters, webPods], v18);
    const again = applied(tables, back.restoreText);
    const nat = (t: TableState): string => printTables(t).split('*nat')[1] ?? '';
    expect(nat(again)).toBe(nat(applied(emptyTables(4), generateRules([kubernetes, web], [masters, webPods], v18).restoreText)));
  });
});
