// INV-API-GARBAGE for @kubesvc/proxy-userspace: whatever a caller passes to nextEndpoint (the
// service port name, client address, reset flag and time), to the Endpoints handlers or to
// servicePortals (the Service and proxy address), the answer is a Result (a value, or an error
// with a _tag and a message), never an exception. The balancer value comes from the package and
// the proxyPortOf callback from the caller: programmer errors when wrong (docs/invariants.md).
import { fc, test } from '@fast-check/vitest';
import { shapeMutantArb } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import { createLoadBalancer, newService, nextEndpoint, onEndpointsAdd, onEndpointsDelete, onEndpointsUpdate, setServicePortEndpoints } from './load-balancer.js';
import { servicePortals } from './portal-rules.js';
import { keepOrder } from './shuffle.js';

const spn = { namespace: 'default', name: 'web', port: 'http' };
const sticky = setServicePortEndpoints(newService(createLoadBalancer({ shuffle: keepOrder }), spn, 'ClientIP', 10800), spn, ['10.244.0.5:8080', '10.244.0.6:8080']);
const endpoints = {
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { namespace: 'default', name: 'web' },
  subsets: [{ addresses: [{ ip: '10.244.0.5' }], notReadyAddresses: [{ ip: '10.244.0.9' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }],
};
const service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'default', name: 'web' },
  spec: { type: 'NodePort', clusterIP: '10.96.0.10', externalIPs: ['192.0.2.1'], ports: [{ name: 'http', port: 80, nodePort: 30080, protocol: 'TCP' }] },
  status: { loadBalancer: { ingress: [{ ip: '198.51.100.1' }] } },
};
const proxy = { listenIP: '0.0.0.0', hostIP: '192.168.1.10' };

function isTypedResult(r: unknown): boolean {
  if (typeof r !== 'object' || r === null) return false;
  const { ok, error } = r as { ok?: unknown; error?: { _tag?: unknown; message?: unknown } };
  return ok === true || (ok === false && typeof error?._tag === 'string' && typeof error.message === 'string');
}

const args = (x: unknown): readonly [never, never, never, never] => (Array.isArray(x) ? (x as unknown as [never, never, never, never]) : ([x, x, x, x] as [never, never, never, never]));

const entryPoints: readonly (readonly [string, (input: unknown) => unknown, unknown])[] = [
  ['nextEndpoint', (x) => { const [s, c, r, n] = args(x); return nextEndpoint(sticky, s, c, r, n); }, [spn, '10.0.0.1:40000', false, 1_000]],
  ['onEndpointsAdd', (x) => onEndpointsAdd(sticky, x as never), endpoints],
  ['onEndpointsUpdate', (x) => { const [p, n] = args(x); return onEndpointsUpdate(sticky, p, n); }, [endpoints, endpoints]],
  ['onEndpointsDelete', (x) => onEndpointsDelete(sticky, x as never), endpoints],
  ['servicePortals', (x) => { const [s, p] = args(x); return servicePortals(s, () => 36000, p); }, [service, proxy]],
];

describe('userspace input checks', () => {
  it('onEndpointsAdd refuses Endpoints whose subsets is not an array, naming it', () => {
    const r = onEndpointsAdd(sticky, { ...endpoints, subsets: {} } as never);
    expect(r).toMatchObject({ ok: false, error: { _tag: 'ErrUserspaceInput', message: expect.stringMatching(/^endpoints\.subsets: /) } });
  });

  it('nextEndpoint refuses a client address that is not a string, and a service port name without a port', () => {
    expect(nextEndpoint(sticky, spn, 7 as never, false, 0)).toEqual({ ok: false, error: { _tag: 'ErrUserspaceInput', message: 'clientAddr: expected "host:port", got number 7' } });
    expect(nextEndpoint(sticky, { namespace: 'default', name: 'web' } as never, '10.0.0.1:1', false, 0)).toMatchObject({ ok: false, error: { _tag: 'ErrUserspaceInput' } });
  });

  it('servicePortals refuses a Service whose ports is not an array and a proxy address without hostIP', () => {
    expect(servicePortals({ ...service, spec: { ...service.spec, ports: 'http' } } as never, () => 36000, proxy)).toMatchObject({ ok: false, error: { _tag: 'ErrUserspaceInput', message: expect.stringMatching(/^service\.spec\.ports: /) } });
    expect(servicePortals(service as never, () => 36000, { listenIP: '0.0.0.0' } as never)).toEqual({ ok: false, error: { _tag: 'ErrUserspaceInput', message: 'proxy.hostIP: expected a string, got undefined undefined' } });
  });

  it('well-formed input is still handled', () => {
    const r = onEndpointsAdd(sticky, endpoints as never);
    expect(r.ok && r.value.services.get('default/web:http')?.endpoints).toEqual(['10.244.0.5:8080']);
  });
});

test.prop([fc.constantFrom(...entryPoints).chain(([name, run, valid]) => fc.tuple(fc.constant(name), fc.constant(run), fc.oneof(fc.anything(), shapeMutantArb(valid))))])(
  'INV-API-GARBAGE: every proxy-userspace entry point answers garbage with a Result, never an exception',
  ([, run, input]) => {
    expect(isTypedResult(run(input))).toBe(true);
  },
);
