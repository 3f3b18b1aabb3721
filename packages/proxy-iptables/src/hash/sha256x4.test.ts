// The four-lane WebAssembly SHA-256: its shipped bytes are what the emitter emits, and the names
// it gives agree with node:crypto's SHA-256, in batches of any size, with one- and two-block
// messages side by side in a quad and the messages it cannot take (long, non-ASCII) in between.
import { createHash } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { endpointChainName, endpointChainNames } from '../chain-names.js';
import { base32Std } from './base32.js';
import { base64Bytes, setSimdHashing, simdHashing, SLOT_MAX_LENGTH, SLOTS } from './sha256x4.js';
import { emitSha256x4Module } from './sha256x4-emitter.js';
import { SHA256X4_MODULE_BASE64 } from './sha256x4-module.js';

const sepName = (text: string): string => 'KUBE-SEP-' + base32Std(createHash('sha256').update(text, 'utf8').digest()).slice(0, 16);

afterEach(() => setSimdHashing(true));

describe('the shipped module', () => {
  it('is the emitter’s output (regenerate sha256x4-module.ts from the printed text if not)', () => {
    const emitted = Buffer.from(emitSha256x4Module()).toString('base64');
    if (emitted !== SHA256X4_MODULE_BASE64) console.log(`emitted module, base64:\n${emitted}`);
    expect(emitted).toBe(SHA256X4_MODULE_BASE64);
  });

  it('is taken by this Node (so the tests below exercise it, not only the fallback)', () => {
    expect(simdHashing()).toBe(true);
  });

  test.prop([fc.uint8Array({ maxLength: 200 })])('base64Bytes decodes what Buffer encodes', (bytes) => {
    expect([...base64Bytes(Buffer.from(bytes).toString('base64'))]).toEqual([...bytes]);
  });
});

// An endpoint text: mostly `ip:port`, sometimes long enough for two blocks or for the scalar
// path, sometimes not ASCII.
const endpointText = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.ipV4(), fc.integer({ min: 1, max: 65535 })).map(([ip, port]) => `${ip}:${port}`) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary-ascii', minLength: 20, maxLength: 100 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
);

describe('endpointChainNames', () => {
  test.prop(
    [
      fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
      fc.constantFrom('tcp', 'udp', 'sctp'),
      fc.array(endpointText, { maxLength: 700 }),
      fc.boolean(),
    ],
    { numRuns: 60 },
  )('gives each endpoint the name node:crypto’s SHA-256 gives, with SIMD or without', (spn, protocol, endpoints, simd) => {
    setSimdHashing(simd);
    const names = endpointChainNames(
      spn,
      protocol,
      endpoints.map((hostPort) => ({ hostPort })),
    );
    expect(names).toEqual(endpoints.map((hostPort) => sepName(spn + protocol + hostPort)));
  });

  it('takes every length a slot holds, and the lengths past it, in one batch', () => {
    // Message lengths 0 .. SLOT_MAX_LENGTH + 10 in one call: 55/56 (one or two blocks) and
    // 119/120 (the last that fits, the first that does not) among them, in every lane position.
    const endpoints = Array.from({ length: SLOT_MAX_LENGTH + 11 }, (_, n) => ({ hostPort: 'e'.repeat(n) }));
    for (const offset of [0, 1, 2, 3]) {
      const shifted = [...endpoints.slice(0, offset).map(() => ({ hostPort: 'x' })), ...endpoints];
      expect(endpointChainNames('', '', shifted)).toEqual(shifted.map((ep) => sepName(ep.hostPort)));
    }
  });

  it('fills more than one call’s slots', () => {
    const endpoints = Array.from({ length: 2 * SLOTS + 3 }, (_, i) => ({ hostPort: `10.1.${i >> 8}.${i & 255}:8080` }));
    const names = endpointChainNames('ns/svc:http', 'tcp', endpoints);
    expect(names).toEqual(endpoints.map((ep) => endpointChainName('ns/svc:http', 'tcp', ep.hostPort)));
    expect(new Set(names).size).toBe(endpoints.length);
  });
});
