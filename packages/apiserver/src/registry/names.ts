// Generated names and UIDs, from the registry's seeded generator so that tests are
// deterministic.
// upstream: staging/src/k8s.io/apiserver/pkg/storage/names/generate.go (SimpleNameGenerator:
//           63-character limit, 5 random characters), staging/src/k8s.io/apimachinery/pkg/util/rand
//           (the alphabet without vowels and confusable characters)
import { nextInt, type Rng } from '@kubesvc/ipallocator';

/** upstream utilrand alphanums: no vowels (no words), no 0/1/3 (confusable with o/l/e). */
export const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MAX_NAME_LENGTH = 63;
const RANDOM_LENGTH = 5;

/** `base` (cut to 58 characters) and 5 random characters. */
export function generateName(base: string, rng: Rng): readonly [string, Rng] {
  let out = base.length > MAX_NAME_LENGTH - RANDOM_LENGTH ? base.slice(0, MAX_NAME_LENGTH - RANDOM_LENGTH) : base;
  let r = rng;
  for (let i = 0; i < RANDOM_LENGTH; i++) {
    const [n, next] = nextInt(r, NAME_ALPHABET.length);
    out += NAME_ALPHABET[n] ?? 'b';
    r = next;
  }
  return [out, r];
}

/** Each byte's two lowercase hex digits. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** A random (version 4) UUID in its usual text form. */
export function generateUID(rng: Rng): readonly [string, Rng] {
  let hex = '';
  let r = rng;
  for (let i = 0; i < 4; i++) {
    const [n, next] = nextInt(r, 0x1_0000_0000);
    r = next;
    // Bytes 6 and 8 (the second word's third byte, the third word's first): the version (4)
    // and the variant (10xx).
    const b0 = i === 2 ? ((n >>> 24) & 0x3f) | 0x80 : (n >>> 24) & 0xff;
    const b2 = i === 1 ? ((n >>> 8) & 0x0f) | 0x40 : (n >>> 8) & 0xff;
    hex += `${HEX[b0]}${HEX[(n >>> 16) & 0xff]}${HEX[b2]}${HEX[n & 0xff]}`;
  }
  return [`${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`, r];
}

/** The last second formatTimestamp printed: a burst of creates within one second prints it once. */
let lastSecond = Number.NaN;
let lastText = '';

/** metav1.Time as JSON carries it: RFC 3339 in UTC, whole seconds. */
export function formatTimestamp(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastText = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
    lastSecond = second;
  }
  return lastText;
}
