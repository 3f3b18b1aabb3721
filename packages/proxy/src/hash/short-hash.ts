// kube-proxy's chain-name hash, specialised for what it hashes: short ASCII strings (a
// service port name, a protocol and an endpoint, some 30–60 bytes), one or two 64-byte
// SHA-256 blocks. The text's code units go straight into a preallocated message schedule,
// the compression works on locals, and only the bits of the digest a chain name keeps (80 for
// the iptables proxier's 16 base32 characters, 40 for the nftables proxier's 8) are turned
// into output; nothing is allocated but the result string. Longer or non-ASCII text takes the
// general path (sha256.ts).
// upstream: pkg/proxy/iptables/proxier.go (portProtoHash, servicePortEndpointChainName:
// base32.StdEncoding of sha256.Sum256, first 16 characters); pkg/proxy/nftables/proxier.go
// (hashAndTruncate: the first 8).

import { SHA256_IV, base32Words8, compressBlock, prefixedBase32Prefix16 } from './sha256-block.js';

/** The longest text that fits two blocks with its 0x80 byte and 64-bit length. */
export const SHORT_HASH_MAX_LENGTH = 119;

// Scratch space, reused by every call (single-threaded; no call re-enters another).
/** The padded message, up to two blocks of 16 words. */
const M = new Int32Array(32);
/** The chaining value. */
const H = new Int32Array(8);

/** Puts the code units of `part` at byte `at` of M; false at the first non-ASCII unit. */
function load(part: string, at: number): boolean {
  for (let i = 0; i < part.length; i++) {
    const unit = part.charCodeAt(i);
    if (unit > 0x7f) return false;
    const byte = at + i;
    M[byte >> 2] = (M[byte >> 2] as number) | (unit << (24 - 8 * (byte & 3)));
  }
  return true;
}

/**
 * The first 16 characters of base32(sha256(a + b + c)) when the concatenation is ASCII and
 * at most SHORT_HASH_MAX_LENGTH long; undefined otherwise (the caller takes the general path).
 * Taking the parts separately spares the caller a concatenated string. The characters are
 * those of shortPrefixedHash9 after a placeholder prefix.
 */
export function shortSha256Base32Prefix16(a: string, b = '', c = ''): string | undefined {
  return shortPrefixedHash9('.........', a, b, c)?.slice(9);
}

/**
 * The first 8 characters of base32(sha256(text)) when `text` is ASCII and at most
 * SHORT_HASH_MAX_LENGTH long; undefined otherwise (the caller takes the general path).
 */
export function shortSha256Base32Prefix8(text: string): string | undefined {
  return digest(text, '', '') ? base32Words8(H[0] as number, H[1] as number) : undefined;
}

/**
 * `prefix` (nine ASCII characters, e.g. "KUBE-SEP-") followed by shortSha256Base32Prefix16(a, b, c),
 * made as one flat string: a chain name is built per endpoint, and joining the prefix to a
 * separate hash string allocates three objects where this allocates one.
 */
export function shortPrefixedHash9(prefix: string, a: string, b = '', c = ''): string | undefined {
  return prefix.length === 9 && digest(a, b, c) ? prefixedBase32Prefix16(prefix, H) : undefined;
}

/** Hashes a + b + c into H; false when the text is too long or not ASCII. */
function digest(a: string, b: string, c: string): boolean {
  const n = a.length + b.length + c.length;
  if (n > SHORT_HASH_MAX_LENGTH) return false;
  const words = n <= 55 ? 16 : 32;
  M.fill(0, 0, words);
  if (!load(a, 0) || !load(b, a.length) || !load(c, a.length + b.length)) return false;
  M[n >> 2] = (M[n >> 2] as number) | (0x80 << (24 - 8 * (n & 3)));
  // The bit length fits the last word: n · 8 < 2^32.
  M[words - 1] = n * 8;
  H.set(SHA256_IV);
  compressBlock(H, M, 0);
  if (words === 32) compressBlock(H, M, 16);
  return true;
}
