// core/v1 RangeAllocation: the allocators' persisted bitmap (`/registry/ranges/serviceips`,
// `/registry/ranges/servicenodeports`). `data` is a Go []byte, so JSON carries it as
// standard base64; `rangeAllocationBytes` and `encodeRangeAllocationBytes` convert.
// upstream: staging/src/k8s.io/api/core/v1/types.go (RangeAllocation)
import { z } from 'zod';
import { ObjectMetaSchema } from './meta.js';

export const RangeAllocationSchema = z.looseObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('RangeAllocation'),
  metadata: ObjectMetaSchema,
  range: z.string(),
  data: z.base64(),
});
export type RangeAllocation = z.infer<typeof RangeAllocationSchema>;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Map([...ALPHABET].map((c, i) => [c, i]));

/** Standard base64 with padding, as Go's encoding/json writes a []byte. */
export function encodeRangeAllocationBytes(bytes: Uint8Array): string {
  // One group of four characters per three bytes, joined once: a flat string rather than the
  // concatenation chain `+=` builds, which V8 keeps (megabytes for a /12) until it is read.
  const groups: string[] = new Array<string>(Math.ceil(bytes.length / 3));
  for (let i = 0, g = 0; i < bytes.length; i += 3, g++) {
    const b0 = bytes[i] ?? 0;
    const b1 = bytes[i + 1] ?? 0;
    const b2 = bytes[i + 2] ?? 0;
    const n = (b0 << 16) | (b1 << 8) | b2;
    groups[g] =
      ALPHABET.charAt((n >> 18) & 63) +
      ALPHABET.charAt((n >> 12) & 63) +
      (i + 1 < bytes.length ? ALPHABET.charAt((n >> 6) & 63) : '=') +
      (i + 2 < bytes.length ? ALPHABET.charAt(n & 63) : '=');
  }
  return groups.join('');
}

/** The bitmap bytes of a RangeAllocation; the schema has already checked the base64. */
export function rangeAllocationBytes(allocation: Pick<RangeAllocation, 'data'>): Uint8Array {
  const text = allocation.data.replace(/=+$/, '');
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let o = 0;
  for (const c of text) {
    const v = DECODE.get(c);
    if (v === undefined) throw new Error(`rangeAllocationBytes: not base64: ${JSON.stringify(c)}`);
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out;
}
