// Endpoints validation examples. Valid objects are upstream's TestValidateEndpointsCreate
// success cases (pkg/apis/core/validation/validation_test.go).
import { describe, expect, it } from 'vitest';
import type { Endpoints } from '../objects/endpoints.js';
import { renderFieldError, type FieldError } from './field-errors.js';
import { validateEndpoints, validateEndpointsUpdate } from './endpoints.js';

const render = (errs: readonly FieldError[]): string[] => errs.map(renderFieldError);

function endpoints(subsets: Endpoints['subsets']): Endpoints {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'mysvc', namespace: 'namespace' },
    ...(subsets === undefined ? {} : { subsets }),
  };
}

describe('validateEndpoints', () => {
  it.each([
    [
      'simple endpoint',
      endpoints([
        {
          addresses: [{ ip: '10.10.1.1' }, { ip: '10.10.2.2' }],
          ports: [
            { name: 'a', port: 8675, protocol: 'TCP' },
            { name: 'b', port: 309, protocol: 'TCP' },
          ],
        },
        {
          addresses: [{ ip: '10.10.3.3' }],
          ports: [
            { name: 'a', port: 93, protocol: 'TCP' },
            { name: 'b', port: 76, protocol: 'TCP' },
          ],
        },
      ]),
    ],
    ['empty subsets', endpoints(undefined)],
    ['no name required for singleton port', endpoints([{ addresses: [{ ip: '10.10.1.1' }], ports: [{ port: 8675, protocol: 'TCP' }] }])],
    ['valid appProtocol', endpoints([{ addresses: [{ ip: '10.10.1.1' }], ports: [{ port: 8675, protocol: 'TCP', appProtocol: 'HTTP' }] }])],
    ['empty ports', endpoints([{ addresses: [{ ip: '10.10.3.3' }] }])],
    ['not-ready addresses only', endpoints([{ notReadyAddresses: [{ ip: 'fd00::3', hostname: 'web-0', nodeName: 'node-a.example' }] }])],
  ])('accepts %s', (_name, object) => {
    expect(validateEndpoints(object)).toEqual([]);
  });

  it('reports every address and port of every subset, in order', () => {
    const object = endpoints([
      { ports: [{ name: 'a', port: 0, protocol: 'TCP' }] },
      { addresses: [{ ip: '10.0.0.1', hostname: 'A' }], notReadyAddresses: [{ ip: '0.0.0.0' }] },
    ]);
    expect(render(validateEndpoints(object))).toEqual([
      'subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`',
      'subsets[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      `subsets[1].addresses[0].hostname: Invalid value: "A": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      'subsets[1].notReadyAddresses[0].ip: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
    ]);
  });

  it('checks a present-but-empty nodeName', () => {
    const errs = validateEndpoints(endpoints([{ addresses: [{ ip: '10.0.0.1', nodeName: '' }] }]));
    expect(errs.map((e) => e.field)).toEqual(['subsets[0].addresses[0].nodeName']);
  });

  it('requires a protocol when defaulting was skipped', () => {
    expect(render(validateEndpoints(endpoints([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ name: 'a', port: 93 }] }])))).toEqual([
      'subsets[0].ports[0].protocol: Required value',
    ]);
  });
});

describe('validateEndpointsUpdate', () => {
  it('runs the metadata update rules before the create rules', () => {
    const old = { ...endpoints([{ addresses: [{ ip: '10.1.2.3' }] }]), metadata: { name: 'mysvc', namespace: 'namespace', resourceVersion: '1234' } };
    const next = { ...endpoints([{ addresses: [{ ip: '127.0.0.1' }] }]), metadata: { name: 'mysvc', namespace: 'namespace' } };
    expect(render(validateEndpointsUpdate(next, old))).toEqual([
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
      'subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    ]);
  });

  it('lets the nodeName of an address change', () => {
    const meta = { name: 'mysvc', namespace: 'namespace', resourceVersion: '1' };
    const old = { ...endpoints([{ addresses: [{ ip: '10.1.2.3', nodeName: 'node-a' }] }]), metadata: meta };
    const next = { ...endpoints([{ addresses: [{ ip: '10.1.2.3', nodeName: 'node-b' }] }]), metadata: meta };
    expect(validateEndpointsUpdate(next, old)).toEqual([]);
  });
});
