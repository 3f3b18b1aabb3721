// The SHA-256 compression function (FIPS 180-4) on 32-bit words, shared by the general path
// (sha256.ts) and the short-input path (short-hash.ts), and the base32 forms of the digest's
// first bits that kube-proxy's chain names take: 80 bits (16 characters) in the iptables
// proxier's, 40 bits (8 characters) in the nftables proxier's.
// upstream: pkg/proxy/iptables/proxier.go (portProtoHash: base32.StdEncoding of sha256.Sum256,
// first 16 characters); pkg/proxy/nftables/proxier.go (hashAndTruncate: the first 8).

/** The round constants. */
export const SHA256_K = Int32Array.of(
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
  0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
  0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
  0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
  0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
);

/** The initial hash value. */
export const SHA256_IV = Int32Array.of(0x6a09e667, 0xbb67ae85 | 0, 0x3c6ef372, 0xa54ff53a | 0, 0x510e527f, 0x9b05688c | 0, 0x1f83d9ab, 0x5be0cd19);

/** The message schedule of one block; scratch space reused by every call (single-threaded). */
const W = new Int32Array(64);

const ALPHABET = Uint8Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', (c) => c.charCodeAt(0));

function char(index: number): number {
  return ALPHABET[index & 31] as number;
}

/** One SHA-256 compression of the 16 big-endian words words[offset .. offset+15] into `state`. */
export function compressBlock(state: Int32Array, words: Int32Array, offset: number): void {
  for (let t = 0; t < 16; t++) W[t] = words[offset + t] as number;
  for (let t = 16; t < 64; t++) {
    const w15 = W[t - 15] as number;
    const w2 = W[t - 2] as number;
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[t] = ((W[t - 16] as number) + s0 + (W[t - 7] as number) + s1) | 0;
  }
  let a = state[0] as number;
  let b = state[1] as number;
  let c = state[2] as number;
  let d = state[3] as number;
  let e = state[4] as number;
  let f = state[5] as number;
  let g = state[6] as number;
  let h = state[7] as number;
  for (let t = 0; t < 64; t++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const temp1 = (h + s1 + ((e & f) ^ (~e & g)) + (SHA256_K[t] as number) + (W[t] as number)) | 0;
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
  state[0] = (state[0] as number) + a;
  state[1] = (state[1] as number) + b;
  state[2] = (state[2] as number) + c;
  state[3] = (state[3] as number) + d;
  state[4] = (state[4] as number) + e;
  state[5] = (state[5] as number) + f;
  state[6] = (state[6] as number) + g;
  state[7] = (state[7] as number) + h;
}

/**
 * `prefix` (nine ASCII characters, e.g. "KUBE-SEP-") followed by the first 16 base32
 * characters of the digest in `state`, made as one flat string: a chain name is built per
 * endpoint, and joining the prefix to a separate hash string allocates three objects where
 * this allocates one.
 */
export function prefixedBase32Prefix16(prefix: string, state: Int32Array): string {
  return prefixedBase32Words(prefix, state[0] as number, state[1] as number, state[2] as number);
}

/** prefixedBase32Prefix16 of a digest whose first three words are h0, h1, h2. */
export function prefixedBase32Words(prefix: string, h0: number, h1: number, h2: number): string {
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

/** The first 8 base32 characters (40 bits) of a digest whose first two words are h0, h1. */
export function base32Words8(h0: number, h1: number): string {
  return String.fromCharCode(
    char(h0 >>> 27),
    char(h0 >>> 22),
    char(h0 >>> 17),
    char(h0 >>> 12),
    char(h0 >>> 7),
    char(h0 >>> 2),
    char((h0 << 3) | (h1 >>> 29)),
    char(h1 >>> 24),
  );
}
