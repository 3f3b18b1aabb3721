// Namespace validation examples; upstream: TestValidateNamespace, TestValidateNamespaceUpdate,
// TestValidateNamespaceStatusUpdate (pkg/apis/core/validation/validation_test.go).
import { describe, expect, it } from 'vitest';
import { defaultNamespace } from '../defaults.js';
import type { Namespace } from '../objects/namespace.js';
import { renderFieldError, type FieldError } from './field-errors.js';
import { validateNamespace, validateNamespaceStatusUpdate, validateNamespaceUpdate } from './namespace.js';

const render = (errs: readonly FieldError[]): string[] => errs.map(renderFieldError);
const ns = (name: string, extra: Partial<Namespace> = {}): Namespace => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name },
  ...extra,
});

describe('validateNamespace', () => {
  it('accepts a defaulted namespace', () => {
    expect(validateNamespace(defaultNamespace(ns('team-a')))).toEqual([]);
  });

  it('wants a DNS-1123 label and no namespace of its own', () => {
    expect(render(validateNamespace({ ...ns('team.a'), metadata: { name: 'team.a', namespace: 'x' } }))).toEqual([
      'metadata.name: Invalid value: "team.a": must not contain dots',
      'metadata.namespace: Forbidden: not allowed on this type',
    ]);
  });

  it('checks spec.finalizers without an index', () => {
    expect(render(validateNamespace(ns('team-a', { spec: { finalizers: ['kubernetes', 'custom', 'example.com/x'] } })))).toEqual([
      'spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });
});

describe('validateNamespaceUpdate and validateNamespaceStatusUpdate', () => {
  it('refuses a rename', () => {
    const old = ns('foo1');
    old.metadata.resourceVersion = '1';
    const next = ns('bar1');
    next.metadata.resourceVersion = '1';
    expect(render(validateNamespaceUpdate(next, old))).toEqual(['metadata.name: Invalid value: "bar1": field is immutable']);
  });

  it('ties the phase to deletionTimestamp, at the capitalised path upstream uses', () => {
    const old = { ...ns('foo'), metadata: { name: 'foo', resourceVersion: '1' } };
    const next = { ...old, status: { phase: 'Terminating' } };
    expect(render(validateNamespaceStatusUpdate(next, old))).toEqual([
      `status.Phase: Invalid value: "Terminating": may only be 'Active' if \`deletionTimestamp\` is empty`,
    ]);
  });
});
