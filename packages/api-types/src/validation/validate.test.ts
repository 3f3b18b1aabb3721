// validateObject dispatch and the 422 message, as errors.NewInvalid builds it
// (staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go).
import { describe, expect, it } from 'vitest';
import { defaultObject } from '../defaults.js';
import type { KubeObject } from '../objects/kinds.js';
import { renderFieldError } from './field-errors.js';
import { groupKindOf, invalidMessage, invalidStatus, validateObject } from './validate.js';

const service: KubeObject = defaultObject({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'web', namespace: 'default', resourceVersion: '3' },
  spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] },
});

describe('validateObject', () => {
  it('dispatches on kind, for create and update', () => {
    expect(validateObject(service)).toEqual([]);
    const renamed: KubeObject = { ...service, metadata: { ...service.metadata, name: 'web2' } };
    expect(validateObject(renamed, service).map(renderFieldError)).toEqual([
      'metadata.name: Invalid value: "web2": field is immutable',
    ]);
  });

  it('refuses to compare different kinds', () => {
    const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'web' } };
    expect(() => validateObject(service, ns)).toThrow(TypeError);
  });

  it('has nothing to say about kinds it does not validate', () => {
    expect(validateObject({ apiVersion: 'v1', kind: 'RangeAllocation', metadata: { name: 'x' }, range: '', data: '' } as KubeObject)).toEqual([]);
  });
});

describe('invalidStatus and invalidMessage', () => {
  it('build the 422 Status with every cause and a deduplicated message', () => {
    const bad: KubeObject = {
      ...service,
      spec: { ...(service.kind === 'Service' ? service.spec : {}), ports: [{ name: 'http', port: 0, targetPort: 80, protocol: 'TCP' }] },
    };
    const errors = validateObject(bad);
    expect(invalidMessage(bad, [...errors, ...errors])).toBe(
      'Service "web" is invalid: spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    );
    const status = invalidStatus(bad, errors);
    expect(status.code).toBe(422);
    expect(status.reason).toBe('Invalid');
    expect(status.details).toEqual({
      name: 'web',
      kind: 'Service',
      causes: [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 0: must be between 1 and 65535, inclusive',
          field: 'spec.ports[0].port',
        },
      ],
    });
  });

  it('qualifies kinds outside the core group', () => {
    expect(groupKindOf('EndpointSlice')).toEqual({ group: 'discovery.k8s.io', kind: 'EndpointSlice' });
    expect(groupKindOf('ServiceCIDR')).toEqual({ group: 'networking.k8s.io', kind: 'ServiceCIDR' });
    expect(groupKindOf('IPAddress')).toEqual({ group: 'networking.k8s.io', kind: 'IPAddress' });
    expect(groupKindOf('Endpoints')).toBe('Endpoints');
  });
});
