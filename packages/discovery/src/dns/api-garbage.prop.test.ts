// INV-API-GARBAGE for @kubesvc/discovery: whatever a caller passes to buildZone (objects and
// options), to resolve (the question) or to addressFromReverse, the answer is a Result with a
// tagged error, a DNS answer (FORMERR for a question that is not one) or "no address", never
// an exception. The Zone given to resolve comes from buildZone and is a programmer error when
// made otherwise (docs/invariants.md lists the exceptions).
import { fc, test } from '@fast-check/vitest';
import { shapeMutantArb } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import { envVarsFromServices, serviceEnv, servicesVisibleToPod } from '../env/service-env.js';
import { resolvConf } from './resolv-conf.js';
import { resolve } from './resolve.js';
import { addressFromReverse } from './reverse-name.js';
import { buildZone } from './zone.js';

const web = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'default', name: 'web' },
  spec: { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
};
const db = { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name: 'db' }, spec: { clusterIP: 'None', ports: [{ name: 'pg', port: 5432 }] } };
const slice = {
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { namespace: 'default', name: 'db-abc', labels: { 'kubernetes.io/service-name': 'db' } },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.244.0.5'], hostname: 'db-0', conditions: { ready: true } }],
  ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
};
const endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { namespace: 'default', name: 'web' }, subsets: [{ addresses: [{ ip: '10.244.0.6' }], ports: [{ name: 'http', port: 80 }] }] };
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'default', name: 'p' }, status: { podIP: '10.244.0.7' } };
const options = { zone: 'cluster.local', ttl: 5, pods: 'verified', nameservers: ['10.96.0.10'], reverseZones: ['in-addr.arpa'] };
const built = buildZone([web, db] as never, [slice, endpoints] as never, [pod] as never, options as never);
if (!built.ok) throw new Error(built.error.message);
const zone = built.value;

function isTypedResult(r: unknown): boolean {
  if (typeof r !== 'object' || r === null) return false;
  const { ok, error } = r as { ok?: unknown; error?: { _tag?: unknown; message?: unknown } };
  return ok === true || (ok === false && typeof error?._tag === 'string' && typeof error.message === 'string');
}
const isResolution = (r: unknown): boolean => typeof r === 'object' && r !== null && typeof (r as { rcode?: unknown }).rcode === 'string';
const isAddressOrNone = (r: unknown): boolean => r === undefined || (typeof r === 'object' && r !== null && 'family' in r);

const asArgs = (x: unknown): readonly [never, never, never, never] => (Array.isArray(x) ? (x as unknown as [never, never, never, never]) : ([x, x, x, x] as never));

const entryPoints: readonly (readonly [string, (input: unknown) => unknown, unknown, (r: unknown) => boolean])[] = [
  ['buildZone', (x) => buildZone(...asArgs(x)), [[web, db], [slice, endpoints], [pod], options], isTypedResult],
  ['resolve', (x) => resolve(zone, x as never), { name: 'db-0.db.default.svc.cluster.local.', type: 'A' }, isResolution],
  ['addressFromReverse', (x) => addressFromReverse(x as never), '10.0.96.10.in-addr.arpa', isAddressOrNone],
  ['serviceEnv', (x) => serviceEnv(...(asArgs(x).slice(0, 2) as [never, never])), [{ namespace: 'default', enableServiceLinks: true }, [web, db]], isTypedResult],
  ['servicesVisibleToPod', (x) => servicesVisibleToPod(...(asArgs(x).slice(0, 2) as [never, never])), [{ namespace: 'default' }, [web, db]], isTypedResult],
  ['envVarsFromServices', (x) => envVarsFromServices(x as never), [web, db], isTypedResult],
  [
    'resolvConf',
    (x) => resolvConf(x as never),
    { namespace: 'shop', dnsServiceIP: '10.96.0.10', zone: 'cluster.local', dnsPolicy: 'ClusterFirst', host: { nameservers: ['192.0.2.53'], searches: ['corp'], options: ['ndots:2'] }, dnsConfig: { options: ['edns0'] }, hostNetwork: false },
    isTypedResult,
  ],
];

describe('discovery input checks', () => {
  it('buildZone refuses a Service whose ports is not an array with ErrZoneInput naming it', () => {
    const r = buildZone([{ ...web, spec: { ...web.spec, ports: 7 } }] as never, []);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ _tag: 'ErrZoneInput', message: expect.stringMatching(/^services\[0\]\.spec\.ports: /) });
  });

  it('buildZone refuses an endpoint object of no known kind, and options that are not an object', () => {
    expect(buildZone([], [{ metadata: {} }] as never)).toMatchObject({ ok: false, error: { _tag: 'ErrZoneInput', message: 'endpoints[0].kind: expected "EndpointSlice" or "Endpoints", got undefined undefined' } });
    expect(buildZone([], [], [], 'cluster.local' as never)).toMatchObject({ ok: false, error: { _tag: 'ErrZoneOptions', option: 'zone' } });
    expect(buildZone([], [], [], { reverseZones: [7] } as never)).toMatchObject({ ok: false, error: { _tag: 'ErrZoneOptions', option: 'reverseZones', message: 'reverseZones[0]: expected a string, got number 7' } });
  });

  it('resolve answers a question without a string name with FORMERR', () => {
    expect(resolve(zone, { name: 42, type: 'A' } as never)).toEqual({ rcode: 'FORMERR', authoritative: false, answer: [], authority: [], additional: [] });
  });

  it('serviceEnv refuses a pod without a namespace and a Service whose ports is not an array', () => {
    expect(serviceEnv({} as never, [])).toEqual({ ok: false, error: { _tag: 'ErrDiscoveryInput', message: 'pod.namespace: expected a string, got undefined undefined' } });
    expect(envVarsFromServices([{ ...web, spec: { ...web.spec, ports: {} } }] as never)).toMatchObject({ ok: false, error: { _tag: 'ErrDiscoveryInput', message: expect.stringMatching(/^services\[0\]\.spec\.ports: /) } });
  });

  it("resolvConf refuses an unknown DNS policy with kubelet's text, and a non-string search path", () => {
    expect(resolvConf({ namespace: 'shop', dnsServiceIP: '10.96.0.10', dnsPolicy: 'Cluster' as never })).toEqual({ ok: false, error: { _tag: 'ErrDiscoveryInput', message: 'invalid DNSPolicy=Cluster' } });
    expect(resolvConf({ namespace: 'shop', dnsServiceIP: '10.96.0.10', dnsConfig: { searches: [1] } } as never)).toMatchObject({ ok: false, error: { message: 'dnsConfig.searches[0]: expected a string, got number 1' } });
  });

  it('addressFromReverse of a non-string is no address', () => {
    expect(addressFromReverse(null as never)).toBeUndefined();
  });
});

test.prop([
  fc.constantFrom(...entryPoints).chain(([name, run, valid, check]) =>
    fc.tuple(fc.constant(name), fc.constant(run), fc.constant(check), fc.oneof(fc.anything(), shapeMutantArb(valid))),
  ),
])('INV-API-GARBAGE: every discovery entry point answers garbage with a typed answer, never an exception', ([, run, check, input]) => {
  expect(check(run(input))).toBe(true);
});
