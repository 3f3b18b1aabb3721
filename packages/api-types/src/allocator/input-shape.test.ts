// The shape checks both allocator packages run at their edge: one wording for a snapshot or a
// list of Services that is not one, naming the part at fault.
import { describe, expect, it } from 'vitest';
import { repairServicesShapeProblem, snapshotShapeProblem } from './input-shape.js';

describe('snapshotShapeProblem', () => {
  it('accepts { range, data } with data as base64 text or as bytes', () => {
    expect(snapshotShapeProblem({ range: '10.0.0.0/24', data: '' })).toBeUndefined();
    expect(snapshotShapeProblem({ range: '30000-32767', data: new Uint8Array([1]) })).toBeUndefined();
  });

  it('names what is wrong: not an object, the range, the data', () => {
    expect(snapshotShapeProblem(null)).toBe('expected a snapshot { range, data }, got null');
    expect(snapshotShapeProblem([])).toBe('expected a snapshot { range, data }, got an array');
    expect(snapshotShapeProblem({ data: '' })).toBe('snapshot range: expected a string, got undefined undefined');
    expect(snapshotShapeProblem({ range: 7, data: '' })).toBe('snapshot range: expected a string, got number 7');
    expect(snapshotShapeProblem({ range: '10.0.0.0/24' })).toBe('snapshot data: expected base64 text or bytes, got undefined undefined');
    expect(snapshotShapeProblem({ range: '10.0.0.0/24', data: [1, 2] })).toBe('snapshot data: expected base64 text or bytes, got an array');
  });
});

describe('repairServicesShapeProblem', () => {
  const service = { metadata: { name: 'web', namespace: 'default' }, spec: { clusterIP: '10.0.0.10', ports: [{ port: 80 }] } };

  it('accepts Services, of which it reads only metadata and spec', () => {
    expect(repairServicesShapeProblem([])).toBeUndefined();
    expect(repairServicesShapeProblem([service, { ...service, status: 'anything' }])).toBeUndefined();
  });

  it('names the list, the Service and the field at fault', () => {
    expect(repairServicesShapeProblem({})).toBe('services: expected an array, got an object');
    expect(repairServicesShapeProblem([service, { ...service, spec: { ...service.spec, ports: 7 } }])).toMatch(/^services\[1\]\.spec\.ports: /);
    expect(repairServicesShapeProblem([{ ...service, metadata: 5 }])).toMatch(/^services\[0\]\.metadata: /);
    expect(repairServicesShapeProblem([{ ...service, spec: 'x' }])).toMatch(/^services\[0\]\.spec: /);
  });
});
