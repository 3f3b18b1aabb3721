// Expected strings follow upstream's Path.String()
// (staging/src/k8s.io/apimachinery/pkg/util/validation/field/path.go) and the paths that
// appear in upstream messages such as `spec.ports[0].name` and `metadata.labels[app]`.
import { describe, expect, it } from 'vitest';
import { FieldPath, fieldPath } from './field-path.js';

describe('FieldPath', () => {
  it('joins child names with dots and puts subscripts in brackets', () => {
    expect(fieldPath('spec').child('ports').index(0).child('name').toString()).toBe('spec.ports[0].name');
    expect(fieldPath('spec', 'ports').index(12).child('targetPort').toString()).toBe('spec.ports[12].targetPort');
  });

  it('prints map keys bare, without quotes', () => {
    expect(fieldPath('metadata').child('labels').key('app').toString()).toBe('metadata.labels[app]');
    expect(fieldPath('metadata', 'annotations').key('service.kubernetes.io/topology-mode').toString()).toBe(
      'metadata.annotations[service.kubernetes.io/topology-mode]',
    );
  });

  it('accepts several names at once, like NewPath and Child', () => {
    expect(FieldPath.root('a', 'b', 'c').toString()).toBe('a.b.c');
    expect(fieldPath('a').child('b', 'c').toString()).toBe('a.b.c');
  });

  it('prints an empty name as [] (upstream uses NewPath("") for whole-object errors)', () => {
    expect(fieldPath('').toString()).toBe('[]');
    expect(fieldPath('').child('x').toString()).toBe('[].x');
    expect(fieldPath('a').child('').toString()).toBe('a[]');
    expect(fieldPath('a').key('').toString()).toBe('a[]');
  });

  it('keeps brackets inside a name verbatim (upstream tests use NewPath("field[0].name"))', () => {
    expect(fieldPath('field[0].name').toString()).toBe('field[0].name');
  });

  it('chains subscripts directly', () => {
    expect(fieldPath('spec').child('clusterIPs').index(0).key('x').toString()).toBe('spec.clusterIPs[0][x]');
  });

  it('is immutable: deriving a path leaves the parent unchanged', () => {
    const parent = fieldPath('spec');
    const a = parent.child('ports');
    const b = parent.child('selector');
    expect(parent.toString()).toBe('spec');
    expect(a.toString()).toBe('spec.ports');
    expect(b.toString()).toBe('spec.selector');
  });

  it('rejects an index that is not an integer', () => {
    expect(() => fieldPath('a').index(1.5)).toThrow(RangeError);
    expect(() => fieldPath('a').index(Number.NaN)).toThrow(RangeError);
  });
});
