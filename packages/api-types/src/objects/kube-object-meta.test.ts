// Type-level test: common metadata is typed on every KubeObject, before narrowing by kind.
// A consumer compiling with `tsc --strict` can pass `obj.metadata.name` where a string is
// expected after a `?? ''`, with no cast. This file fails the typecheck target if that breaks.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { KubeObject } from './kinds.js';
import type { OwnerReference } from './meta.js';

const nameOf = (object: KubeObject): string => object.metadata.name ?? '';

describe('KubeObject metadata', () => {
  it('has ObjectMeta typed without narrowing by kind', () => {
    expectTypeOf<KubeObject['metadata']['name']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<KubeObject['metadata']['namespace']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<KubeObject['metadata']['uid']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<KubeObject['metadata']['resourceVersion']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<KubeObject['metadata']['generation']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<KubeObject['metadata']['labels']>().toEqualTypeOf<Record<string, string> | undefined>();
    expectTypeOf<KubeObject['metadata']['annotations']>().toEqualTypeOf<Record<string, string> | undefined>();
    expectTypeOf<KubeObject['metadata']['finalizers']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<KubeObject['metadata']['ownerReferences']>().toEqualTypeOf<OwnerReference[] | undefined>();
    expectTypeOf<KubeObject['metadata']['creationTimestamp']>().toEqualTypeOf<string | null | undefined>();
  });
});

it('reads the name of any kind without narrowing', () => {
  const objects: KubeObject[] = [
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' } },
    { apiVersion: 'v1', kind: 'Status', metadata: {} },
  ];
  expect(objects.map(nameOf)).toEqual(['web', '']);
});
