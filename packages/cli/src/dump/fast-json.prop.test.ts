// INV-CLI-FASTJSON: the one-document JSON fast path answers exactly what parseManifests
// answers (objects and skipped kinds), and leaves every other input to it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { parseManifests } from '@kubesvc/api-types';
import { shapeMutantArb } from '@kubesvc/testkit';
import { parse } from 'yaml';
import { expect } from 'vitest';
import { FIXTURES } from '../run-bin.fixtures.js';
import { parseSingleJsonDocument } from './fast-json.js';

const dumps = ['cluster.yaml', 'kubernetes-2017.yaml', 'ips.yaml'].map((f) => parse(readFileSync(join(FIXTURES, f), 'utf8').split('\n---\n').at(-1) ?? '') as unknown);
const json = (v: unknown): string => JSON.stringify(v, (_key, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)) ?? 'null';

// Typed lists (ServiceList) whose items carry no kind, and lists of every fixture, near misses of them, and anything.
const typedList = (value: unknown): unknown => {
  const items = (value as { items?: unknown[] }).items ?? [];
  return { apiVersion: 'v1', kind: 'ServiceList', metadata: {}, items: items.filter((i) => (i as { kind?: string }).kind === 'Service').map((i) => ({ ...(i as object), kind: undefined, apiVersion: undefined })) };
};
const inputArb = fc.oneof(
  fc.constantFrom(...dumps).map(json),
  fc.constantFrom(...dumps).map((d) => json(typedList(d))),
  fc.constantFrom(...dumps).chain((d) => shapeMutantArb(d)).map(json),
  fc.constantFrom(...dumps).chain((d) => shapeMutantArb(typedList(d))).map(json),
  fc.anything().map(json),
  fc.string(),
);

test.prop([inputArb])('INV-CLI-FASTJSON: the JSON fast path gives exactly what parseManifests gives, or leaves the input to it', (text) => {
  const fast = parseSingleJsonDocument(text);
  if (fast === undefined) return;
  const slow = parseManifests(text, { tolerant: true });
  expect(slow.ok).toBe(true);
  if (slow.ok) expect(fast).toEqual(slow.value);
});

test('the fast path takes a kubectl dump, a typed list and a single object', () => {
  for (const dump of dumps) {
    expect(parseSingleJsonDocument(json(dump))).toBeDefined();
    expect(parseSingleJsonDocument(json(typedList(dump)))?.objects.every((o) => o.kind === 'Service')).toBe(true);
  }
  expect(parseSingleJsonDocument('{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}}')?.objects).toHaveLength(1);
  // Two documents, YAML, and a bad field are parseManifests' to read and report.
  expect(parseSingleJsonDocument('{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a"}} {}')).toBeUndefined();
  expect(parseSingleJsonDocument('apiVersion: v1\nkind: Namespace\n')).toBeUndefined();
  expect(parseSingleJsonDocument('{"apiVersion":"v1","kind":"Service","metadata":{"name":"a"},"spec":{"ports":[{"port":"80"}]}}')).toBeUndefined();
});
