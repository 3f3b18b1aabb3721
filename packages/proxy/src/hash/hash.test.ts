// SHA-256 against published vectors, and against node:crypto as an oracle; base32 (RFC 4648,
// Go's base32.StdEncoding) by an independent bit-string encoder checked on the RFC's vectors.
import { createHash } from 'node:crypto';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { base32Std } from '@kubesvc/testkit';
import { sha256, sha256Base32Prefix16, sha256Base32Prefix8, utf8 } from './sha256.js';
import { SHORT_HASH_MAX_LENGTH, shortSha256Base32Prefix16, shortSha256Base32Prefix8 } from './short-hash.js';

const hex = (bytes: Uint8Array): string => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

describe('sha256', () => {
  it('matches the FIPS 180-2 / NIST vectors', () => {
    expect(hex(sha256(utf8('')))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hex(sha256(utf8('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hex(sha256(utf8('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(hex(sha256(utf8('a'.repeat(1_000_000))))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  test.prop([fc.uint8Array({ maxLength: 300 })])('agrees with node:crypto on any bytes', (bytes) => {
    expect(hex(sha256(bytes))).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  test.prop([fc.string({ unit: 'grapheme', maxLength: 80 })])('hashes a string as its UTF-8 bytes, as Go does', (text) => {
    expect(hex(sha256(utf8(text)))).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
  });
});

describe('the base32 oracle', () => {
  it('matches the RFC 4648 section 10 vectors', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['f', 'MY======'],
      ['fo', 'MZXQ===='],
      ['foo', 'MZXW6==='],
      ['foob', 'MZXW6YQ='],
      ['fooba', 'MZXW6YTB'],
      ['foobar', 'MZXW6YTBOI======'],
    ];
    for (const [input, output] of cases) expect(base32Std(utf8(input))).toBe(output);
  });
});

describe('sha256Base32Prefix16', () => {
  test.prop([fc.string({ unit: 'grapheme', maxLength: 700 })])('is the first 16 characters of base32(sha256(utf8(text)))', (text) => {
    expect(sha256Base32Prefix16(text)).toBe(base32Std(sha256(utf8(text))).slice(0, 16));
  });
  test.prop([fc.string({ unit: 'grapheme-ascii', maxLength: 700 })])('agrees on ASCII text of any length', (text) => {
    expect(sha256Base32Prefix16(text)).toBe(base32Std(createHash('sha256').update(text).digest()).slice(0, 16));
  });
});

describe('the short-ASCII path (short-hash.ts)', () => {
  const expected = (text: string): string => base32Std(createHash('sha256').update(text, 'utf8').digest()).slice(0, 16);
  // A text and two cut points: the hash takes its input in up to three parts.
  const cut = (text: fc.Arbitrary<string>) =>
    text.chain((t) => fc.tuple(fc.constant(t), fc.nat({ max: t.length }), fc.nat({ max: t.length })).map(([s, i, j]) => [s, Math.min(i, j), Math.max(i, j)] as const));
  const isAscii = (text: string) => [...text].every((c) => c.charCodeAt(0) <= 0x7f);

  test.prop([cut(fc.string({ unit: 'binary-ascii', maxLength: 200 }))])('agrees with node:crypto on ASCII text of length 0-200, in parts', ([text, i, j]) => {
    expect(sha256Base32Prefix16(text.slice(0, i), text.slice(i, j), text.slice(j))).toBe(expected(text));
    const short = shortSha256Base32Prefix16(text.slice(0, i), text.slice(i, j), text.slice(j));
    // The short path answers exactly for ASCII up to two blocks, and then correctly.
    expect(short === undefined).toBe(text.length > SHORT_HASH_MAX_LENGTH);
    if (short !== undefined) expect(short).toBe(expected(text));
  });

  const anyText = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.string({ unit: 'grapheme', maxLength: 200 }),
    // Mostly ASCII with one non-ASCII character somewhere: the fall-back happens mid-text.
    fc.tuple(fc.string({ unit: 'binary-ascii', maxLength: 100 }), fc.constantFrom('é', '€', '😀', 'ß'), fc.string({ unit: 'binary-ascii', maxLength: 90 })).map((p) => p.join('')),
  );
  test.prop([cut(anyText)])(
    'agrees with node:crypto on any text of length 0-200 (non-ASCII falls back to UTF-8), in parts',
    ([text, i, j]) => {
      expect(sha256Base32Prefix16(text.slice(0, i), text.slice(i, j), text.slice(j))).toBe(expected(text));
      if (!isAscii(text)) expect(shortSha256Base32Prefix16(text)).toBeUndefined();
    },
  );

  it('is right at the block boundaries (55/56 bytes: one or two blocks; 119/120: two blocks or the general path)', () => {
    for (let n = 0; n <= 130; n++) {
      const text = 'k'.repeat(n);
      expect(sha256Base32Prefix16(text), `length ${n}`).toBe(expected(text));
    }
    expect(shortSha256Base32Prefix16('k'.repeat(119))).toBe(expected('k'.repeat(119)));
    expect(shortSha256Base32Prefix16('k'.repeat(120))).toBeUndefined();
    // The chain every cluster has: iptables-save on real clusters shows KUBE-SVC-NPX46M4PTMTKRN6Y for default/kubernetes:https.
    expect(sha256Base32Prefix16('default/kubernetes:https', 'tcp')).toBe('NPX46M4PTMTKRN6Y');
  });
});

describe('sha256Base32Prefix8 (the nftables proxier\'s chain-name hash)', () => {
  const expected = (text: string): string => base32Std(createHash('sha256').update(text, 'utf8').digest()).slice(0, 8);

  test.prop([fc.string({ unit: 'grapheme', maxLength: 700 })])('is the first 8 characters of base32(sha256(utf8(text)))', (text) => {
    expect(sha256Base32Prefix8(text)).toBe(expected(text));
  });

  it('takes the same path for every name across block boundaries, ASCII or not (55/56, 119/120 bytes)', () => {
    for (let n = 0; n <= 200; n++) {
      for (const text of ['x'.repeat(n), 'é'.repeat(n)]) expect(sha256Base32Prefix8(text), `length ${n}`).toBe(expected(text));
    }
    expect(shortSha256Base32Prefix8('x'.repeat(119))).toBe(expected('x'.repeat(119)));
    expect(shortSha256Base32Prefix8('x'.repeat(120))).toBeUndefined();
    expect(shortSha256Base32Prefix8('é')).toBeUndefined();
  });

  it('is the first half of the iptables proxier\'s 16 characters', () => {
    // proxier_test.go (nftables) Test_servicePortChainNameBase: "simple" hashes testing/service/tcp/http to P4ZYZVCF.
    expect(sha256Base32Prefix8('testing/service/tcp/http')).toBe('P4ZYZVCF');
    expect(sha256Base32Prefix16('testing/service/tcp/http').slice(0, 8)).toBe('P4ZYZVCF');
  });
});
