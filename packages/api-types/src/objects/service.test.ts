import { describe, expect, it } from 'vitest';
import { isServiceIPSet } from './service.js';

describe('isServiceIPSet (upstream pkg/apis/core/v1/helper IsServiceIPSet)', () => {
  it('is true for a cluster IP of either family', () => {
    expect(isServiceIPSet({ clusterIP: '10.96.0.10' })).toBe(true);
    expect(isServiceIPSet({ clusterIP: 'fd00::10' })).toBe(true);
  });

  it('is false for a headless Service, an unset or empty clusterIP, and no spec', () => {
    expect(isServiceIPSet({ clusterIP: 'None' })).toBe(false);
    expect(isServiceIPSet({ clusterIP: '' })).toBe(false);
    expect(isServiceIPSet({})).toBe(false);
    expect(isServiceIPSet(undefined)).toBe(false);
  });
});
