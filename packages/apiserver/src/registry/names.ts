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

/** A random (version 4) UUID in its usual text form. */
export function generateUID(rng: Rng): readonly [string, Rng] {
  const bytes: number[] = [];
  let r = rng;
  for (let i = 0; i < 4; i++) {
    const [n, next] = nextInt(r, 0x1_0000_0000);
    r = next;
    bytes.push((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
  }
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
  return [`${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`, r];
}

/** metav1.Time as JSON carries it: RFC 3339 in UTC, whole seconds. */
export function formatTimestamp(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
