// The namespace controller on its own: only a Terminating namespace is queued, and its one
// action asks the host to empty and remove it.
import type { Namespace } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import type { CacheView } from './contract.js';
import { NAMESPACE_CONTROLLER_NAME, namespaceController } from './namespace-controller.js';

function ns(name: string, terminating: 'deletionTimestamp' | 'phase' | false): Namespace {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, ...(terminating === 'deletionTimestamp' ? { deletionTimestamp: '2025-01-02T03:04:05Z' } : {}) },
    status: { phase: terminating === 'phase' ? 'Terminating' : 'Active' },
  };
}

function cacheOf(...namespaces: Namespace[]): CacheView {
  return {
    list: () => namespaces as never,
    get: (_resource, _namespace, name) => namespaces.find((n) => n.metadata.name === name) as never,
  };
}

describe('the namespace controller', () => {
  it('is named namespace and watches namespaces', () => {
    expect(namespaceController.name).toBe(NAMESPACE_CONTROLLER_NAME);
    expect(namespaceController.watches).toEqual(['namespaces']);
  });

  it('queues a namespace with a deletionTimestamp or in phase Terminating, on add and update only', () => {
    const cache = cacheOf();
    expect(namespaceController.keysFor({ resource: 'namespaces', type: 'ADDED', object: ns('a', 'deletionTimestamp') }, cache)).toEqual(['a']);
    expect(namespaceController.keysFor({ resource: 'namespaces', type: 'MODIFIED', object: ns('b', 'phase'), old: ns('b', false) }, cache)).toEqual(['b']);
    expect(namespaceController.keysFor({ resource: 'namespaces', type: 'MODIFIED', object: ns('c', false) }, cache)).toEqual([]);
    expect(namespaceController.keysFor({ resource: 'namespaces', type: 'DELETED', object: ns('d', 'deletionTimestamp') }, cache)).toEqual([]);
  });

  it('asks to finalize a Terminating namespace, and nothing for an active or missing one', () => {
    const gone = ns('gone', 'deletionTimestamp');
    const cache = cacheOf(gone, ns('live', false));
    expect(namespaceController.reconcile('gone', cache, 0)).toEqual([{ kind: 'finalize-namespace', name: 'gone' }]);
    expect(namespaceController.reconcile('live', cache, 0)).toEqual([]);
    expect(namespaceController.reconcile('missing', cache, 0)).toEqual([]);
    // The reducer leaves its input as it was.
    expect(gone).toEqual(ns('gone', 'deletionTimestamp'));
  });
});
