// The registry's UIDs and timestamps: the texts are those the registry printed before both were
// made cheaper (a hex table for the UID, the last second's text kept), so stored objects and
// the tests' expected UIDs stay as they were.
import { seededRng } from '@kubesvc/ipallocator';
import { describe, expect, it } from 'vitest';
import { formatTimestamp, generateUID } from './names.js';

describe('generateUID', () => {
  it.each([
    { seed: 0, uid: '4434b462-0015-4c37-b928-5b08256d8104' },
    { seed: 1, uid: 'a087eaf3-00b3-49c9-8706-c4ebfb2627fd' },
    { seed: 42, uid: '99e1ef7c-72c3-4b8a-9a3b-32c0ab73b0ad' },
    { seed: -7, uid: '6edd8035-534d-4313-8b55-3ef87aedbb3f' },
    { seed: 2 ** 31 - 1, uid: '6dd95f51-208b-4f8c-a2a1-8bcf6579f05d' },
  ])('seed $seed gives $uid', ({ seed, uid }) => {
    expect(generateUID(seededRng(seed))[0]).toBe(uid);
  });

  it('prints version 4 and variant 10xx on every draw', () => {
    let rng = seededRng(7);
    for (let i = 0; i < 2000; i++) {
      const [uid, next] = generateUID(rng);
      rng = next;
      expect(uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });
});

describe('formatTimestamp', () => {
  it.each([
    { ms: 0, text: '1970-01-01T00:00:00Z' },
    { ms: 999, text: '1970-01-01T00:00:00Z' },
    { ms: 1000, text: '1970-01-01T00:00:01Z' },
    { ms: 1764763200123, text: '2025-12-03T12:00:00Z' },
    { ms: -1500, text: '1969-12-31T23:59:58Z' },
    { ms: 253402300799999, text: '9999-12-31T23:59:59Z' },
  ])('$ms ms prints $text', ({ ms, text }) => {
    expect(formatTimestamp(ms)).toBe(text);
  });

  it('prints each second anew after another second was printed', () => {
    expect([formatTimestamp(5000), formatTimestamp(5999), formatTimestamp(6000), formatTimestamp(5500)]).toEqual([
      '1970-01-01T00:00:05Z',
      '1970-01-01T00:00:05Z',
      '1970-01-01T00:00:06Z',
      '1970-01-01T00:00:05Z',
    ]);
  });
});
