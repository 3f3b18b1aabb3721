// Strategic merge patch against upstream's behaviour: each expectation follows from
// staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch.go (v1.32) and the struct
// tags of core/v1 and meta/v1, worked out by hand, and the error texts are mergepatch's
// (the missing-merge-key one is what kubectl prints in kubernetes/kubernetes#57834).
import { describe, expect, it } from 'vitest';
import { patchSchemaFor } from './patch-strategy.js';
import { applyStrategicMergePatch, type StrategicMergeError } from './strategic-merge-patch.js';
import type { JsonMap } from './strategic-merge-patch-go-format.js';

const KINDS = {
  Service: ['v1', 'Service'],
  Pod: ['v1', 'Pod'],
  Node: ['v1', 'Node'],
  Endpoints: ['v1', 'Endpoints'],
  EndpointSlice: ['discovery.k8s.io/v1', 'EndpointSlice'],
  Namespace: ['v1', 'Namespace'],
} as const;

function schemaOf(kind: keyof typeof KINDS) {
  const [apiVersion, k] = KINDS[kind];
  return patchSchemaFor(apiVersion, k);
}

function smp(original: JsonMap, patch: JsonMap, kind: keyof typeof KINDS = 'Service'): JsonMap {
  const r = applyStrategicMergePatch(original, patch, schemaOf(kind));
  if (!r.ok) throw new Error(`${r.error._tag}: ${r.error.message}`);
  return r.value;
}

function smpError(original: JsonMap, patch: JsonMap, kind: keyof typeof KINDS = 'Service'): StrategicMergeError {
  const r = applyStrategicMergePatch(original, patch, schemaOf(kind));
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.value)}`);
  return r.error;
}

const ports = (...list: JsonMap[]): JsonMap => ({ spec: { ports: list } });
const portNumbers = (o: JsonMap): unknown => ((o['spec'] as JsonMap)['ports'] as JsonMap[]).map((p) => p['port']);

const WEB: JsonMap = ports({ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }, { name: 'https', port: 443, protocol: 'TCP', targetPort: 8443 });

describe('maps', () => {
  it('merge key by key; null deletes a key, and a null for a key the object lacks adds nothing', () => {
    const out = smp({ metadata: { name: 'web', labels: { a: '1', b: '2' } } }, { metadata: { labels: { b: null, c: '3' }, annotations: { gone: null, kept: 'x' } } });
    expect(out).toEqual({ metadata: { name: 'web', labels: { a: '1', c: '3' }, annotations: { kept: 'x' } } });
  });

  it('`$patch: replace` takes the patch map as it is; `$patch: delete` empties the map', () => {
    const original = { metadata: { labels: { a: '1' } }, spec: { selector: { app: 'web', tier: 'front' } } };
    expect(smp(original, { spec: { selector: { $patch: 'replace', app: 'api' } } })).toEqual({ metadata: { labels: { a: '1' } }, spec: { selector: { app: 'api' } } });
    expect(smp(original, { metadata: { labels: { $patch: 'delete' } } })).toEqual({ metadata: { labels: {} }, spec: original.spec });
  });

  it('a value the object lacks is taken without its nulls and without maps carrying a directive', () => {
    const out = smp({ metadata: { name: 'web' } }, { metadata: { labels: { a: null, b: 'x' }, annotations: { $patch: 'delete' } }, spec: { ports: [{ port: 1, $patch: 'delete' }, { port: 2 }] } });
    expect(out).toEqual({ metadata: { name: 'web', labels: { b: 'x' } }, spec: { ports: [{ port: 2 }] } });
  });

  it('a value of another JSON type replaces the stored one', () => {
    expect(smp({ spec: { selector: { app: 'web' } } }, { spec: { selector: 'x' } })).toEqual({ spec: { selector: 'x' } });
  });

  it('does not change its arguments', () => {
    const original = structuredClone(WEB);
    const patch: JsonMap = { spec: { '$setElementOrder/ports': [{ port: 80 }, { port: 8080 }], ports: [{ port: 8080 }, { port: 443, $patch: 'delete' }] } };
    const patchCopy = structuredClone(patch);
    smp(original, patch);
    expect(original).toEqual(WEB);
    expect(patch).toEqual(patchCopy);
  });
});

describe('lists with patchStrategy merge', () => {
  it('Service ports merge by port: the patch element merges into the stored one, the others stay', () => {
    const out = smp(WEB, ports({ port: 443, targetPort: 9443 }));
    expect(out).toEqual(ports({ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }, { name: 'https', port: 443, protocol: 'TCP', targetPort: 9443 }));
  });

  it("without $setElementOrder the patch's elements keep the patch's order, and a new one goes before the stored elements the patch does not name", () => {
    expect(portNumbers(smp(WEB, ports({ port: 9090, name: 'metrics' })))).toEqual([9090, 80, 443]);
    // 9090 is new, so it is placed before 80 (mergeSortedSlice takes the patch side when it
    // cannot find both in the stored list); 443 follows 9090 as in the patch and 80 as stored.
    expect(portNumbers(smp(WEB, ports({ port: 9090, name: 'metrics' }, { port: 443 })))).toEqual([9090, 80, 443]);
    expect(portNumbers(smp(WEB, ports({ port: 443 }, { port: 80 })))).toEqual([443, 80]);
  });

  it('the merge key is port alone: a UDP 53 merges into the stored TCP 53 (the upstream defect of kubernetes/kubernetes#39188)', () => {
    const out = smp(ports({ name: 'dns-tcp', port: 53, protocol: 'TCP' }), ports({ name: 'dns', port: 53, protocol: 'UDP' }));
    expect(out).toEqual(ports({ name: 'dns', port: 53, protocol: 'UDP' }));
  });

  it('`$patch: delete` removes the stored elements with that key; `$patch: replace` makes the other elements the list', () => {
    expect(smp(WEB, ports({ port: 443, $patch: 'delete' }))).toEqual(ports({ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }));
    expect(smp(WEB, ports({ $patch: 'replace' }, { port: 81 }))).toEqual(ports({ port: 81 }));
  });

  it('$setElementOrder orders the merged list; a stored-only element goes before the first ordered one stored after it', () => {
    const patch = { spec: { '$setElementOrder/ports': [{ port: 443 }, { port: 9090 }, { port: 80 }], ports: [{ port: 9090 }] } };
    expect(portNumbers(smp(WEB, patch))).toEqual([443, 9090, 80]);
    // 7000 is compared, by stored position, with 443 (the first in the directive's order): it
    // was stored before 443, so it comes first.
    const withServerOnly = ports({ port: 80 }, { port: 7000 }, { port: 443 });
    expect(portNumbers(smp(withServerOnly, { spec: { '$setElementOrder/ports': [{ port: 443 }, { port: 80 }] } }))).toEqual([7000, 443, 80]);
    const serverOnlyLast = ports({ port: 80 }, { port: 443 }, { port: 7000 });
    expect(portNumbers(smp(serverOnlyLast, { spec: { '$setElementOrder/ports': [{ port: 443 }, { port: 80 }] } }))).toEqual([443, 80, 7000]);
  });

  it('with a delete and an add in one $setElementOrder patch, the added element takes the freed slot in the stored order (Go merges in the stored array)', () => {
    // kubectl apply dropping 443 and adding 8080 while the live object also has 9000 from elsewhere.
    const live = ports({ port: 80 }, { port: 443 }, { port: 9000 });
    const patch = { spec: { '$setElementOrder/ports': [{ port: 80 }, { port: 8080 }], ports: [{ port: 8080, name: 'alt' }, { port: 443, $patch: 'delete' }] } };
    expect(smp(live, patch)).toEqual(ports({ port: 80 }, { port: 9000 }, { port: 8080, name: 'alt' }));
  });

  it('Pod containers merge by name, and inside them env by name, ports by containerPort, volumeMounts by mountPath', () => {
    const pod = {
      spec: {
        containers: [
          { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 80 }], volumeMounts: [{ name: 'data', mountPath: '/data' }] },
          { name: 'sidecar', image: 'proxy:1' },
        ],
      },
    };
    const out = smp(pod, { spec: { containers: [{ name: 'app', image: 'app:2', env: [{ name: 'B', value: '2' }], ports: [{ containerPort: 80, name: 'http' }], volumeMounts: [{ mountPath: '/cache', name: 'cache' }] }] } }, 'Pod');
    expect(out).toEqual({
      spec: {
        containers: [
          {
            name: 'app',
            image: 'app:2',
            env: [{ name: 'B', value: '2' }, { name: 'A', value: '1' }],
            ports: [{ containerPort: 80, name: 'http' }],
            volumeMounts: [{ mountPath: '/cache', name: 'cache' }, { name: 'data', mountPath: '/data' }],
          },
          { name: 'sidecar', image: 'proxy:1' },
        ],
      },
    });
  });

  it('$retainKeys clears the keys it does not list (a volume switched from emptyDir to hostPath)', () => {
    const pod = { spec: { volumes: [{ name: 'data', emptyDir: {} }] } };
    const out = smp(pod, { spec: { volumes: [{ name: 'data', hostPath: { path: '/srv' }, $retainKeys: ['hostPath', 'name'] }] } }, 'Pod');
    expect(out).toEqual({ spec: { volumes: [{ name: 'data', hostPath: { path: '/srv' } }] } });
  });

  it('Pod conditions merge by type; Node addresses by type and podCIDRs as a set', () => {
    const pod = { status: { conditions: [{ type: 'Ready', status: 'False' }, { type: 'PodScheduled', status: 'True' }] } };
    expect(smp(pod, { status: { conditions: [{ type: 'Ready', status: 'True' }] } }, 'Pod')).toEqual({ status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'PodScheduled', status: 'True' }] } });
    const node = { spec: { podCIDRs: ['10.0.0.0/24'] }, status: { addresses: [{ type: 'InternalIP', address: '192.168.0.2' }, { type: 'Hostname', address: 'n1' }] } };
    const out = smp(node, { spec: { podCIDRs: ['fd00::/64', '10.0.0.0/24'] }, status: { addresses: [{ type: 'InternalIP', address: '192.168.0.3' }] } }, 'Node');
    expect(out).toEqual({ spec: { podCIDRs: ['fd00::/64', '10.0.0.0/24'] }, status: { addresses: [{ type: 'InternalIP', address: '192.168.0.3' }, { type: 'Hostname', address: 'n1' }] } });
  });

  it('metadata.finalizers merge as a set: new values first, no duplicates; $deleteFromPrimitiveList removes', () => {
    const ns = { metadata: { name: 'x', finalizers: ['a', 'b'] } };
    expect(smp(ns, { metadata: { finalizers: ['c', 'a'] } }, 'Namespace')).toEqual({ metadata: { name: 'x', finalizers: ['c', 'a', 'b'] } });
    expect(smp(ns, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a', 'zz'] } }, 'Namespace')).toEqual({ metadata: { name: 'x', finalizers: ['b'] } });
  });

  it('ownerReferences merge by uid', () => {
    const ep = { metadata: { ownerReferences: [{ uid: 'u1', kind: 'Service', name: 'a' }] } };
    expect(smp(ep, { metadata: { ownerReferences: [{ uid: 'u2', kind: 'Service', name: 'b' }] } }, 'EndpointSlice')).toEqual({
      metadata: { ownerReferences: [{ uid: 'u2', kind: 'Service', name: 'b' }, { uid: 'u1', kind: 'Service', name: 'a' }] },
    });
  });
});

describe('lists without a merge strategy are replaced', () => {
  it('Endpoints subsets, EndpointSlice endpoints, Service externalIPs, Pod tolerations', () => {
    const eps = { subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] };
    expect(smp(eps, { subsets: [{ addresses: [{ ip: '10.0.0.2' }] }] }, 'Endpoints')).toEqual({ subsets: [{ addresses: [{ ip: '10.0.0.2' }] }] });
    const slice = { endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'] }] };
    expect(smp(slice, { endpoints: [{ addresses: ['10.0.0.3'] }] }, 'EndpointSlice')).toEqual({ endpoints: [{ addresses: ['10.0.0.3'] }] });
    expect(smp({ spec: { externalIPs: ['1.1.1.1'] } }, { spec: { externalIPs: ['2.2.2.2'] } })).toEqual({ spec: { externalIPs: ['2.2.2.2'] } });
    const pod = { spec: { tolerations: [{ key: 'a', operator: 'Exists' }] } };
    expect(smp(pod, { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } }, 'Pod')).toEqual({ spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } });
  });

  it('$deleteFromPrimitiveList applies to them too, and names no list into being', () => {
    const svc = { spec: { externalIPs: ['1.1.1.1', '2.2.2.2'] } };
    expect(smp(svc, { spec: { '$deleteFromPrimitiveList/externalIPs': ['1.1.1.1'] } })).toEqual({ spec: { externalIPs: ['2.2.2.2'] } });
    expect(smp(svc, { spec: { '$deleteFromPrimitiveList/loadBalancerSourceRanges': ['10.0.0.0/8'] } })).toEqual(svc);
  });
});

describe('errors', () => {
  it('an element of a merge list without its merge key (500, kubectl prints it after "Error from server:")', () => {
    expect(smpError(WEB, ports({ targetPort: 441 }))).toEqual({ _tag: 'Unknown', message: 'map: map[targetPort:441] does not contain declared merge key: port' });
  });

  it('an unknown $patch value, in a map and in a list element; `merge` is not accepted either', () => {
    expect(smpError(WEB, { spec: { $patch: 'foo', type: 'ClusterIP' } })).toEqual({ _tag: 'Unknown', message: 'unknown patch type: foo in map: map[$patch:foo type:ClusterIP]' });
    expect(smpError(WEB, { spec: { $patch: 'merge' } })).toEqual({ _tag: 'Unknown', message: 'unknown patch type: merge in map: map[$patch:merge]' });
    expect(smpError(WEB, ports({ port: 80, $patch: 7 }))).toEqual({ _tag: 'Unknown', message: 'unknown patch type: %!s(int64=7) in map: map[$patch:7 port:80]' });
    expect(smpError(WEB, ports({ port: 80, $patch: 'merge' }))).toEqual({ _tag: 'Unknown', message: 'merging lists cannot yet be specified in the patch' });
  });

  it('malformed directive keys and $retainKeys are 400s with mergepatch texts', () => {
    expect(smpError(WEB, { spec: { $setElementOrderports: [] } })).toEqual({ _tag: 'BadRequest', message: 'invalid patch format of setElementOrder list' });
    expect(smpError({ metadata: { finalizers: ['a'] } }, { metadata: { $deleteFromPrimitiveListfinalizers: ['a'] } })).toEqual({ _tag: 'BadRequest', message: 'invalid patch format of primitive list' });
    expect(smpError(WEB, { spec: { $retainKeys: 'ports' } })).toEqual({ _tag: 'BadRequest', message: 'invalid patch format of retainKeys' });
    expect(smpError(WEB, { spec: { $retainKeys: ['ports'], type: 'NodePort' } })).toEqual({ _tag: 'BadRequest', message: 'invalid patch format of retainKeys' });
  });

  it('a patch list whose order contradicts its $setElementOrder', () => {
    const e = smpError(WEB, { spec: { '$setElementOrder/ports': [{ port: 80 }, { port: 443 }], ports: [{ port: 443 }, { port: 80 }] } });
    expect(e).toEqual({ _tag: 'Unknown', message: "The order in patch list:\n[map[port:443] map[port:80]]\n doesn't match $setElementOrder list:\n[map[port:80] map[port:443]]\n" });
  });

  it('lists of lists are 422; elements of mixed types are 500', () => {
    expect(smpError({ spec: { ports: [] } }, { spec: { ports: [[80]] } })).toEqual({ _tag: 'Invalid', message: 'lists of lists are not supported' });
    expect(smpError({ metadata: { finalizers: ['x'] } }, { metadata: { finalizers: [1.5] } })).toEqual({ _tag: 'Unknown', message: 'list element types are not identical: [[x] [1.5]]' });
  });
});
