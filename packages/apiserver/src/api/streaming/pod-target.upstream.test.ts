// Upstream's vectors for the container and host checks of the pod subresources, each case named
// as upstream names it (an unnamed case gets a name saying what it holds).
// upstream (v1.33): pkg/registry/core/pod/strategy_test.go (TestCheckLogLocation: the container
//           part, the transport cases keep only their container; TestPortForwardLocation: the
//           host check)
import { describe, expect, it } from 'vitest';
import type { Pod } from '@kubesvc/api-types';
import { logOptions, noHostError, validateContainer } from './pod-target.js';

const pod = (spec: Record<string, unknown>): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'test' }, spec }) as unknown as Pod;
const names = (...n: string[]) => n.map((name) => ({ name }));

const CHECK_LOG_LOCATION: { name: string; spec: Record<string, unknown>; container: string; want: { container: string } | { badRequest: string } }[] = [
  { name: 'simple', spec: { containers: names('mycontainer'), nodeName: 'foo' }, container: '', want: { container: 'mycontainer' } },
  { name: 'insecure', spec: { containers: names('mycontainer'), nodeName: 'foo' }, container: '', want: { container: 'mycontainer' } },
  { name: 'missing container', spec: {}, container: '', want: { badRequest: 'a container name must be specified for pod test' } },
  { name: 'choice of two containers', spec: { containers: names('container1', 'container2') }, container: '', want: { badRequest: 'a container name must be specified for pod test, choose one of: [container1 container2]' } },
  {
    name: 'initcontainers',
    spec: { containers: names('container1', 'container2'), initContainers: names('initcontainer1') },
    container: '',
    want: { badRequest: 'a container name must be specified for pod test, choose one of: [initcontainer1 container1 container2]' },
  },
  {
    name: '(unnamed) init and ephemeral containers',
    spec: { containers: names('container1', 'container2'), initContainers: names('initcontainer1'), ephemeralContainers: names('debugger') },
    container: '',
    want: { badRequest: 'a container name must be specified for pod test, choose one of: [initcontainer1 container1 container2 debugger]' },
  },
  { name: 'bad container', spec: { containers: names('container1', 'container2') }, container: 'unknown', want: { badRequest: 'container unknown is not valid for pod test' } },
  { name: 'good with two containers', spec: { containers: names('container1', 'container2'), nodeName: 'foo' }, container: 'container2', want: { container: 'container2' } },
];

describe('TestCheckLogLocation', () => {
  it.each(CHECK_LOG_LOCATION)('$name', ({ spec, container, want }) => {
    const got = validateContainer(container, pod(spec));
    if ('container' in want) expect(got).toEqual({ ok: true, value: want.container });
    else {
      expect(got.ok).toBe(false);
      if (!got.ok) expect(got.error.status).toMatchObject({ reason: 'BadRequest', code: 400, message: want.badRequest });
    }
  });
});

describe('TestPortForwardLocation', () => {
  it('(unnamed) a pod on no node', () => {
    expect(noHostError('test').status).toMatchObject({ reason: 'BadRequest', code: 400, message: 'pod test does not have a host assigned' });
  });
});

// Not upstream's vectors: ValidatePodLogOptions' rules (pkg/apis/core/validation/validation.go),
// one case each, with the message NewInvalid makes of them (a Forbidden on the root path prints
// an empty field).
describe('ValidatePodLogOptions', () => {
  const cases: { name: string; query: string; want: string | undefined }[] = [
    { name: 'valid: no options', query: '', want: undefined },
    { name: 'valid: tailLines 2, limitBytes 3, sinceSeconds 5', query: 'tailLines=2&limitBytes=3&sinceSeconds=5', want: undefined },
    { name: 'invalid: negative tailLines', query: 'tailLines=-100', want: 'PodLogOptions "test" is invalid: tailLines: Invalid value: -100: must be greater than or equal to 0' },
    { name: 'invalid: zero limitBytes', query: 'limitBytes=0', want: 'PodLogOptions "test" is invalid: limitBytes: Invalid value: 0: must be greater than 0' },
    { name: 'invalid: zero sinceSeconds', query: 'sinceSeconds=0', want: 'PodLogOptions "test" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0' },
    { name: 'invalid: both sinceSeconds and sinceTime', query: 'sinceSeconds=10&sinceTime=2026-01-01T00:00:00Z', want: 'PodLogOptions "test" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified' },
  ];
  it.each(cases)('$name', ({ query, want }) => {
    const got = logOptions(new URLSearchParams(query), 'test');
    if (want === undefined) expect(got.ok).toBe(true);
    else {
      expect(got.ok).toBe(false);
      if (!got.ok) expect(got.error.status).toMatchObject({ reason: 'Invalid', code: 422, message: want });
    }
  });
});
