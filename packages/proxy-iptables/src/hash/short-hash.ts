// kube-proxy's chain-name hash, specialised for what it hashes: short ASCII strings (a
// service port name, a protocol and an endpoint, some 30–60 bytes), one or two 64-byte
// SHA-256 blocks. The text's code units go straight into a preallocated message schedule,
// the compression works on locals, and only the first 80 bits of the digest (the 16 base32
// characters of a chain name) are turned into output; nothing is allocated but the result
// string. Longer or non-ASCII text takes the general path (sha256.ts).
// upstream: pkg/proxy/iptables/proxier.go (portProtoHash, servicePortEndpointChainName:
// base32.StdEncoding of sha256.Sum256, first 16 characters).

const K = Int32Array.of(
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
  0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
  0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
  0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
  0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
);

/** The longest text that fits two blocks with its 0x80 byte and 64-bit length. */
export const SHORT_HASH_MAX_LENGTH = 119;

// Scratch space, reused by every call (single-threaded; no call re-enters another).
/** The padded message, up to two blocks of 16 words. */
const M = new Int32Array(32);
/** The message schedule of one block. */
const W = new Int32Array(64);
/** The chaining value. */
const H = new Int32Array(8);

const ALPHABET = Uint8Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', (c) => c.charCodeAt(0));

/** One compression of the block M[offset .. offset+15] into H. */
function compress(offset: number): void {
  for (let t = 0; t < 16; t++) W[t] = M[offset + t] as number;
  for (let t = 16; t < 64; t++) {
    const w15 = W[t - 15] as number;
    const w2 = W[t - 2] as number;
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[t] = ((W[t - 16] as number) + s0 + (W[t - 7] as number) + s1) | 0;
  }
  let a = H[0] as number;
  let b = H[1] as number;
  let c = H[2] as number;
  let d = H[3] as number;
  let e = H[4] as number;
  let f = H[5] as number;
  let g = H[6] as number;
  let h = H[7] as number;
  for (let t = 0; t < 64; t++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const temp1 = (h + s1 + ((e & f) ^ (~e & g)) + (K[t] as number) + (W[t] as number)) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const temp2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + temp1) | 0;
    d = c;
    c = b;
    b = a;
    a = (temp1 + temp2) | 0;
  }
  H[0] = (H[0] as number) + a;
  H[1] = (H[1] as number) + b;
  H[2] = (H[2] as number) + c;
  H[3] = (H[3] as number) + d;
  H[4] = (H[4] as number) + e;
  H[5] = (H[5] as number) + f;
  H[6] = (H[6] as number) + g;
  H[7] = (H[7] as number) + h;
}

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

function char(index: number): number {
  return ALPHABET[index & 31] as number;
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
 * `prefix` (nine ASCII characters, e.g. "KUBE-SEP-") followed by shortSha256Base32Prefix16(a, b, c),
 * made as one flat string: a chain name is built per endpoint, and joining the prefix to a
 * separate hash string allocates three objects where this allocates one.
 */
export function shortPrefixedHash9(prefix: string, a: string, b = '', c = ''): string | undefined {
  if (prefix.length !== 9 || !digest(a, b, c)) return undefined;
  const h0 = H[0] as number;
  const h1 = H[1] as number;
  const h2 = H[2] as number;
  return String.fromCharCode(
    prefix.charCodeAt(0),
    prefix.charCodeAt(1),
    prefix.charCodeAt(2),
    prefix.charCodeAt(3),
    prefix.charCodeAt(4),
    prefix.charCodeAt(5),
    prefix.charCodeAt(6),
    prefix.charCodeAt(7),
    prefix.charCodeAt(8),
    char(h0 >>> 27),
    char(h0 >>> 22),
    char(h0 >>> 17),
    char(h0 >>> 12),
    char(h0 >>> 7),
    char(h0 >>> 2),
    char((h0 << 3) | (h1 >>> 29)),
    char(h1 >>> 24),
    char(h1 >>> 19),
    char(h1 >>> 14),
    char(h1 >>> 9),
    char(h1 >>> 4),
    char((h1 << 1) | (h2 >>> 31)),
    char(h2 >>> 26),
    char(h2 >>> 21),
    char(h2 >>> 16),
  );
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
  H[0] = 0x6a09e667;
  H[1] = 0xbb67ae85 | 0;
  H[2] = 0x3c6ef372;
  H[3] = 0xa54ff53a | 0;
  H[4] = 0x510e527f;
  H[5] = 0x9b05688c | 0;
  H[6] = 0x1f83d9ab;
  H[7] = 0x5be0cd19;
  compress(0);
  if (words === 32) compress(16);
  return true;
}
