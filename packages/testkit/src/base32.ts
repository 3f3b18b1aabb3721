// A base32 encoder for tests (RFC 4648, standard alphabet, '=' padding: Go's
// base32.StdEncoding), written independently of @kubesvc/proxy's chain-name hashing: the bits
// as a '0'/'1' string, cut into groups of five. The proxy package's hash/hash.test.ts checks it
// on the RFC's vectors; the backends' tests use it as an oracle beside node:crypto.
export function base32Std(bytes: Uint8Array): string {
  const bits = [...bytes].map((b) => b.toString(2).padStart(8, '0')).join('');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out + '='.repeat((8 - (out.length % 8)) % 8);
}
