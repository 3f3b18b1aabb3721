// The WebAssembly kernel: the chain names it gives agree with node:crypto's SHA-256, in batches
// of any size, with one- and two-block messages side by side in a quad and the messages it cannot take (long, non-ASCII) in between. What it
// prints is checked against the string printers by the generateRules and sync property tests; that its bytes are what the emitter emits, by
// tools/wasm-kernel/src/kernel-module.test.ts.
import { createHash } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { endpointChainName, endpointChainNames } from '../chain-names.js';
import { base32Std } from '@kubesvc/testkit';
import { base64Bytes, loadKernel, SLOTS } from './kernel.js';
import { HOSTPORT_MAX, MESSAGE_MAX } from './kernel-layout.js';

const sepName = (text: string): string => 'KUBE-SEP-' + base32Std(createHash('sha256').update(text, 'utf8').digest()).slice(0, 16);

const KERNEL = loadKernel();

describe('the shipped module', () => {
  it('is taken by this Node (so the tests below exercise it, not only the fallback)', () => {
    expect(KERNEL).toBeDefined();
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
  )('INV-IPT-WASM-TEXT: gives each endpoint the name node:crypto’s SHA-256 gives, with the kernel or without', (spn, protocol, endpoints, kernel) => {
    const names = endpointChainNames(
      spn,
      protocol,
      endpoints.map((hostPort) => ({ hostPort })),
      kernel ? KERNEL : undefined,
    );
    expect(names).toEqual(endpoints.map((hostPort) => sepName(spn + protocol + hostPort)));
  });

  it('takes every message length it holds, and the lengths past it, in one batch', () => {
    // Heads of 0 .. MESSAGE_MAX characters with `ip:port` texts of 0 .. HOSTPORT_MAX + 2: 55/56
    // (one block or two) and 119/120 (the last message that fits, the first that does not) side
    // by side in one call, in every lane position.
    for (let head = 0; head <= MESSAGE_MAX; head += 7) {
      const spn = 'k'.repeat(head);
      const endpoints = Array.from({ length: HOSTPORT_MAX + 3 }, (_, n) => ({ hostPort: 'e'.repeat(n) }));
      expect(endpointChainNames(spn, '', endpoints, KERNEL)).toEqual(endpoints.map((ep) => sepName(spn + ep.hostPort)));
    }
    const spn = 'k'.repeat(MESSAGE_MAX - 20);
    const endpoints = Array.from({ length: 30 }, (_, n) => ({ hostPort: 'e'.repeat(n) }));
    expect(endpointChainNames(spn, '', endpoints, KERNEL)).toEqual(endpoints.map((ep) => sepName(spn + ep.hostPort)));
  });

  it('fills more than one call’s slots', () => {
    const endpoints = Array.from({ length: 2 * SLOTS + 3 }, (_, i) => ({ hostPort: `10.1.${i >> 8}.${i & 255}:8080` }));
    const names = endpointChainNames('ns/svc:http', 'tcp', endpoints, KERNEL);
    expect(names).toEqual(endpoints.map((ep) => endpointChainName('ns/svc:http', 'tcp', ep.hostPort)));
    expect(new Set(names).size).toBe(endpoints.length);
  });
});
