// What `@fast-check/vitest` resolves to in every package's tests (the alias is in
// vitest.shared.ts): the same `fc`, `test` and `it`, with property tests registered under the
// name written in the file (see stable-property-names.ts). Test files keep importing
// `@fast-check/vitest`, whose types this module follows.
import * as fc from 'fast-check';
import { test as vitestTest, type TestAPI } from 'vitest';
import { withStableProp, type StablePropBuilder } from './stable-property-names.js';

export { fc };
export const test: TestAPI & { prop: StablePropBuilder } = withStableProp(vitestTest);
export const it: TestAPI & { prop: StablePropBuilder } = test;
