// The hash in kube-proxy's nftables chain names: the first 8 characters of the standard
// base32 encoding of the SHA-256 of the name (FIPS 180-4, RFC 4648), in plain TypeScript so
// that the package stays pure. A sync hashes one name per service port and per endpoint (some
// 110,000 for 10,000 services of 10 endpoints), so the compression reuses its buffers, an ASCII
// name is hashed without encoding it first, and only the 40 bits of the 8 characters are
// encoded.
// upstream: pkg/proxy/nftables/proxier.go (v1.33: hashAndTruncate).

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

// Scratch space, reused by every call (single-threaded; no call re-enters another).
const W = new Uint32Array(64);
const H = new Uint32Array(8);

/** Compresses the 64-byte block of `bytes` at `offset` into H. */
function compress(bytes: Uint8Array, offset: number): void {
  for (let t = 0; t < 16; t++) {
    const o = offset + t * 4;
    W[t] = (((bytes[o] as number) << 24) | ((bytes[o + 1] as number) << 16) | ((bytes[o + 2] as number) << 8) | (bytes[o + 3] as number)) >>> 0;
  }
  for (let t = 16; t < 64; t++) {
    const w15 = W[t - 15] as number;
    const w2 = W[t - 2] as number;
    const s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3);
    const s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10);
    W[t] = (W[t - 16] as number) + s0 + (W[t - 7] as number) + s1;
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
    const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + (K[t] as number) + (W[t] as number)) >>> 0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) >>> 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) >>> 0;
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

/** Hashes `bytes` (its first `length`) into H, padding in `bytes` itself, which must have room for it. */
function digest(bytes: Uint8Array, length: number): void {
  const blocks = Math.ceil((length + 9) / 64);
  bytes.fill(0, length, blocks * 64);
  bytes[length] = 0x80;
  const bits = length * 8;
  const end = blocks * 64;
  const high = Math.floor(bits / 0x1_0000_0000);
  const low = bits >>> 0;
  for (let i = 0; i < 4; i++) {
    bytes[end - 8 + i] = (high >>> (24 - 8 * i)) & 0xff;
    bytes[end - 4 + i] = (low >>> (24 - 8 * i)) & 0xff;
  }
  H.set(IV);
  for (let block = 0; block < blocks; block++) compress(bytes, block * 64);
}

/** SHA-256 of `bytes`: the 32-byte digest. */
export function sha256(bytes: Uint8Array): Uint8Array {
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  digest(padded, bytes.length);
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const word = H[i] as number;
    out[i * 4] = word >>> 24;
    out[i * 4 + 1] = (word >>> 16) & 0xff;
    out[i * 4 + 2] = (word >>> 8) & 0xff;
    out[i * 4 + 3] = word & 0xff;
  }
  return out;
}

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** Go's base32.StdEncoding.EncodeToString (with `=` padding). */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

/** Go's []byte(s): the UTF-8 bytes of a string. */
function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** knftables.NameLengthMax (256) less kube-proxy's longest chain name prefix and its hyphen (16). */
export const CHAIN_NAME_BASE_LENGTH_MAX = 256 - 16;

/** A reused buffer for an ASCII name and its padding (names are some 30 to 250 bytes). */
let scratch = new Uint8Array(320);

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** The first 8 characters of base32(sha256(name)): the first 40 bits of the digest, 5 at a time. */
function hash8(name: string): string {
  const ascii = isAscii(name);
  let bytes: Uint8Array;
  let length: number;
  if (ascii) {
    length = name.length;
    if (scratch.length < length + 72) scratch = new Uint8Array(length + 72);
    for (let i = 0; i < length; i++) scratch[i] = name.charCodeAt(i);
    bytes = scratch;
  } else {
    const encoded = utf8(name);
    length = encoded.length;
    bytes = new Uint8Array(Math.ceil((length + 9) / 64) * 64);
    bytes.set(encoded);
  }
  digest(bytes, length);
  // 40 bits: H0 and the top byte of H1.
  const h0 = H[0] as number;
  const h1 = H[1] as number;
  const bits = [h0 >>> 27, (h0 >>> 22) & 31, (h0 >>> 17) & 31, (h0 >>> 12) & 31, (h0 >>> 7) & 31, (h0 >>> 2) & 31, ((h0 & 3) << 3) | (h1 >>> 29), (h1 >>> 24) & 31];
  return bits.map((v) => BASE32_ALPHABET[v]).join('');
}

/**
 * hashAndTruncate: `HASH-name`, where HASH is the first 8 characters of base32(sha256(name)),
 * cut to CHAIN_NAME_BASE_LENGTH_MAX bytes with `...` at the end when longer.
 */
export function hashAndTruncate(name: string): string {
  const named = hash8(name) + '-' + name;
  // A string's length is its UTF-8 byte count when it is ASCII.
  if (named.length <= CHAIN_NAME_BASE_LENGTH_MAX && isAscii(named)) return named;
  const namedBytes = utf8(named);
  if (namedBytes.length <= CHAIN_NAME_BASE_LENGTH_MAX) return named;
  // Go slices the string's bytes; a name that reaches here is ASCII (names, protocols, IPs).
  return new TextDecoder().decode(namedBytes.slice(0, CHAIN_NAME_BASE_LENGTH_MAX - 3)) + '...';
}
