// The hash in kube-proxy's nftables chain names: the first 8 characters of the standard
// base32 encoding of the SHA-256 of the name (FIPS 180-4, RFC 4648). The hash itself is
// @kubesvc/proxy's (sha256Base32Prefix8), the one the iptables backend's names take too, so a
// sync's some 110,000 names (10,000 services of 10 endpoints) go through the same specialised
// path: an ASCII name is hashed without encoding it first, and only the bits kept are encoded.
// upstream: pkg/proxy/nftables/proxier.go (v1.33: hashAndTruncate).

import { flat, sha256Base32Prefix8, utf8 } from '@kubesvc/proxy';

/** knftables.NameLengthMax (256) less kube-proxy's longest chain name prefix and its hyphen (16). */
export const CHAIN_NAME_BASE_LENGTH_MAX = 256 - 16;

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * hashAndTruncate: `HASH-name`, where HASH is the first 8 characters of base32(sha256(name)),
 * cut to CHAIN_NAME_BASE_LENGTH_MAX bytes with `...` at the end when longer.
 */
export function hashAndTruncate(name: string): string {
  return prefixedHashAndTruncate('', name);
}

/**
 * `prefix` + hashAndTruncate(name) as one flat string (`prefix` is ASCII): a chain name is
 * printed, hashed into sets and compared many times, and a concatenation left as a rope would
 * be walked each time.
 */
export function prefixedHashAndTruncate(prefix: string, name: string): string {
  const hash = sha256Base32Prefix8(name);
  // A string's length is its UTF-8 byte count when it is ASCII.
  if (hash.length + 1 + name.length <= CHAIN_NAME_BASE_LENGTH_MAX && isAscii(name)) return flat(prefix + hash + '-' + name);
  const named = hash + '-' + name;
  const namedBytes = utf8(named);
  if (namedBytes.length <= CHAIN_NAME_BASE_LENGTH_MAX) return prefix + named;
  // Go slices the string's bytes; a name that reaches here is ASCII (names, protocols, IPs).
  return prefix + new TextDecoder().decode(namedBytes.slice(0, CHAIN_NAME_BASE_LENGTH_MAX - 3)) + '...';
}
