// The quick parser against zod: on every value, it either declines or gives exactly what the
// kind's schema's safeParse gives (the same values, the same keys in the same order), and it
// declines every value the schema refuses. INV-API-FASTPARSE in docs/invariants.md.
import { fc, test } from '@fast-check/vitest';
import { kubeObjectArb } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import { KINDS, type Kind } from '../objects/kinds.js';
import { DECLINE, fastParser } from './fast-parse.js';
import { decodeObject } from './parse.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The quick parser's answer and zod's, side by side, for `value` read as `kind`. */
function both(kind: Kind, value: unknown): { readonly quick: unknown; readonly zod: { readonly success: boolean; readonly data?: unknown } } {
  const parser = fastParser(KINDS[kind].schema);
  return { quick: parser === undefined ? DECLINE : parser(value), zod: KINDS[kind].schema.safeParse(value) };
}

/** The agreement every answer must keep: a value the quick parser gives is zod's, key order included. */
function expectAgreement(kind: Kind, value: unknown): void {
  const { quick, zod } = both(kind, value);
  if (quick === DECLINE) return;
  expect(zod.success).toBe(true);
  expect(quick).toStrictEqual(zod.data);
  expect(JSON.stringify(quick)).toBe(JSON.stringify(zod.data));
}

/** Every path to a value inside `value`, the root first. */
function paths(value: Json, at: readonly (string | number)[] = []): (readonly (string | number)[])[] {
  const out: (readonly (string | number)[])[] = [at];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...at, i])));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...at, k]));
  return out;
}

type Mutation =
  | { readonly op: 'replace'; readonly with: Json }
  | { readonly op: 'remove' }
  | { readonly op: 'add'; readonly key: string; readonly with: Json }
  | { readonly op: 'reverse' };

/** `value` with one mutation at `path` (a copy; JSON.parse gives an own `__proto__` key as a request body would). */
function mutate(value: Json, path: readonly (string | number)[], m: Mutation): Json {
  const root = JSON.parse(JSON.stringify(value)) as Json;
  const parentPath = path.slice(0, -1);
  let parent: Json = root;
  for (const step of parentPath) parent = (parent as Record<string | number, Json>)[step] as Json;
  const last = path[path.length - 1];
  const target = last === undefined ? root : ((parent as Record<string | number, Json>)[last] as Json);
  switch (m.op) {
    case 'replace':
      if (last === undefined) return m.with;
      (parent as Record<string | number, Json>)[last] = m.with;
      return root;
    case 'remove':
      if (last === undefined) return root;
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete (parent as Record<string, Json>)[last];
      return root;
    case 'add':
      if (target === null || typeof target !== 'object' || Array.isArray(target)) return root;
      return JSON.parse(JSON.stringify(root).replace(JSON.stringify(target), (t) => `{${JSON.stringify(m.key)}:${JSON.stringify(m.with)}${t === '{}' ? '' : ','}${t.slice(1)}`)) as Json;
    case 'reverse': {
      if (target === null || typeof target !== 'object' || Array.isArray(target)) return root;
      const reversed = Object.fromEntries(Object.entries(target).reverse()) as Json;
      if (last === undefined) return reversed;
      (parent as Record<string | number, Json>)[last] = reversed;
      return root;
    }
  }
}

/** A JSON value to put in place of another: any, or a number of the kinds an int32 field refuses. */
const replacementArb: fc.Arbitrary<Json> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0.5, -1, 2147483647, 2147483648, -2147483648, -2147483649, 2 ** 53, 1e21),
);

/** A mutation at one of the value's paths; adding a key and reordering keys at one of its objects. */
function mutationArb(value: Json): fc.Arbitrary<readonly [readonly (string | number)[], Mutation]> {
  const all = paths(value);
  const objects = all.filter((p) => {
    let v: Json = value;
    for (const step of p) v = (v as Record<string | number, Json>)[step] as Json;
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  });
  return fc.oneof(
    fc.tuple(fc.constantFrom(...all), fc.record({ op: fc.constant('replace' as const), with: replacementArb })),
    fc.tuple(fc.constantFrom(...all), fc.record({ op: fc.constant('remove' as const) })),
    fc.tuple(
      fc.constantFrom(...objects),
      fc.record({ op: fc.constant('add' as const), key: fc.oneof(fc.constantFrom('__proto__', 'name', 'port', 'spec', 'toString', 'constructor'), fc.string({ maxLength: 6 })), with: replacementArb }),
    ),
    fc.tuple(fc.constantFrom(...objects), fc.record({ op: fc.constant('reverse' as const) })),
  );
}

describe('fastParser', () => {
  it('has a parser for every kind whose schema uses only what it knows (all but RangeAllocation, whose data is z.base64(), and Status, whose details default)', () => {
    const without = (Object.keys(KINDS) as Kind[]).filter((kind) => fastParser(KINDS[kind].schema) === undefined);
    expect(without).toEqual(['RangeAllocation', 'Status']);
  });

  test.prop([kubeObjectArb()])('INV-API-FASTPARSE: a valid object (as JSON gives it) is taken by the quick parser and comes out as zod gives it', (object) => {
    const value = JSON.parse(JSON.stringify(object)) as unknown;
    const kind = object.kind;
    const { quick, zod } = both(kind, value);
    expect(zod.success).toBe(true);
    if (kind === 'Status' || kind === 'RangeAllocation') return;
    expect(quick).not.toBe(DECLINE);
    expect(quick).toStrictEqual(zod.data);
    expect(JSON.stringify(quick)).toBe(JSON.stringify(zod.data));
  });

  test.prop([kubeObjectArb().map((o) => JSON.parse(JSON.stringify(o)) as Json).chain((v) => fc.tuple(fc.constant(v), mutationArb(v)))], { numRuns: 1000 })(
    'INV-API-FASTPARSE: on a valid object with one value replaced, removed, added or its keys reordered, the quick parser declines or agrees with zod',
    ([value, [path, m]]) => {
      const kind = (value as { kind: Kind }).kind;
      const mutated = mutate(value, path, m);
      expectAgreement(kind, mutated);
      // And decodeObject, quick parser first, answers as the schema alone would.
      const decoded = decodeObject(mutated);
      const zod = KINDS[kind].schema.safeParse(mutated);
      if (zod.success && decoded.ok) expect(JSON.stringify(decoded.value)).toBe(JSON.stringify(zod.data));
      if (!zod.success && (mutated as { kind?: unknown } | null)?.kind === kind && (mutated as { apiVersion?: unknown }).apiVersion === KINDS[kind].apiVersion) expect(decoded.ok).toBe(false);
    },
  );

  test.prop([fc.constantFrom(...(Object.keys(KINDS) as Kind[])), fc.jsonValue({ maxDepth: 4 })])('INV-API-FASTPARSE: on any JSON value, the quick parser declines or agrees with zod', (kind, value) => {
    expectAgreement(kind, value);
  });

  it('declines an own __proto__ key, which zod drops, and a number out of int32', () => {
    const parser = fastParser(KINDS.Service.schema);
    const withProto = JSON.parse('{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"},"__proto__":{"x":1}}') as unknown;
    expect(parser?.(withProto)).toBe(DECLINE);
    expect(KINDS.Service.schema.safeParse(withProto).success).toBe(true);
    const bigPort = { apiVersion: 'v1', kind: 'Service', metadata: {}, spec: { ports: [{ port: 2147483648 }] } };
    expect(parser?.(bigPort)).toBe(DECLINE);
    expect(KINDS.Service.schema.safeParse(bigPort).success).toBe(false);
  });

  it('orders the keys as zod does: the schema\'s first, then the others as they came', () => {
    const parser = fastParser(KINDS.Service.schema);
    const value = JSON.parse('{"zz":1,"spec":{"type":"ClusterIP","ports":[{"port":80,"name":"a"}]},"metadata":{"labels":{"b":"1","a":"2"},"name":"x"},"kind":"Service","apiVersion":"v1"}') as unknown;
    expect(JSON.stringify(parser?.(value))).toBe(
      '{"apiVersion":"v1","kind":"Service","metadata":{"name":"x","labels":{"b":"1","a":"2"}},"spec":{"ports":[{"name":"a","port":80}],"type":"ClusterIP"},"zz":1}',
    );
  });
});
