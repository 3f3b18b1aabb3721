import { describe, expect, test } from 'vitest';
import { DEFAULT_NUM_RUNS, PropertyConfigError, readPropertyConfig } from './property-config.js';

describe('readPropertyConfig', () => {
  test('defaults to 100 runs, no seed and no path', () => {
    expect(DEFAULT_NUM_RUNS).toBe(100);
    expect(readPropertyConfig({})).toEqual({ numRuns: 100 });
    expect(readPropertyConfig({ FC_NUM_RUNS: '', FC_SEED: ' ' })).toEqual({ numRuns: 100 });
  });

  test('reads runs, a signed seed and a path', () => {
    expect(readPropertyConfig({ FC_NUM_RUNS: '2000', FC_SEED: '-1850201093', FC_PATH: '12:0:3' })).toEqual({
      numRuns: 2000,
      seed: -1850201093,
      path: '12:0:3',
    });
    expect(readPropertyConfig({ FC_SEED: '4294967295' }).seed).toBe(4294967295);
  });

  test.each([
    [{ FC_NUM_RUNS: '0' }, /FC_NUM_RUNS must be a whole number of at least 1, got "0"/],
    [{ FC_NUM_RUNS: '1e3' }, /FC_NUM_RUNS .* got "1e3"/],
    [{ FC_NUM_RUNS: 'many' }, /FC_NUM_RUNS/],
    [{ FC_SEED: '1.5' }, /FC_SEED must be a 32-bit integer/],
    [{ FC_SEED: '4294967296' }, /FC_SEED/],
    [{ FC_SEED: '-2147483649' }, /FC_SEED/],
    [{ FC_SEED: '7', FC_PATH: '1:a' }, /FC_PATH must look like "3:1:0"/],
    [{ FC_PATH: '1:2' }, /set FC_SEED as well/],
  ])('rejects %o', (env, message) => {
    expect(() => readPropertyConfig(env)).toThrow(PropertyConfigError);
    expect(() => readPropertyConfig(env)).toThrow(message);
  });
});
