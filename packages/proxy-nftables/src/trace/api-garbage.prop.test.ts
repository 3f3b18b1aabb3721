// INV-API-GARBAGE for the reader and the tracer: whatever a caller passes as the table, the
// packet or the options of tracePacket, or as the text of parseTransaction and
// parseListRuleset, the answer is a Result (a value, or a tagged error with a message), never
// an exception.
import { readFileSync } from 'node:fs';
import { fc, test } from '@fast-check/vitest';
import { shapeMutantArb } from '@kubesvc/testkit';
import { expect } from 'vitest';
import { applyTransaction } from '../model/apply.js';
import { parseListRuleset } from '../read/parse-list-ruleset.js';
import { parseTransaction } from '../read/parse-transaction.js';
import { tracePacket } from './trace-packet.js';

const fixture = (name: string): string => readFileSync(new URL(`../read/fixtures/${name}`, import.meta.url), 'utf8');
const transactionText = fixture('overall-rules.v4.nft');
const listingText = fixture('overall-rules.v4.list');
const tx = parseTransaction(transactionText);
const applied = tx.ok ? applyTransaction(undefined, tx.value) : undefined;
const table = applied?.ok === true ? applied.value : undefined;
const packet = { source: '10.0.0.2', destination: '172.30.0.45', protocol: 'tcp', destinationPort: 80, entry: 'pod' };
const options = { localAddresses: ['192.168.0.2'], recent: [{ name: 'affinity-X', source: '10.0.0.2', lastSeen: 0 }], now: 1, conntrack: 'NEW' };

function isTypedResult(r: unknown): boolean {
  if (typeof r !== 'object' || r === null) return false;
  const { ok, error } = r as { ok?: unknown; error?: { _tag?: unknown; message?: unknown } };
  return ok === true || (ok === false && typeof error?._tag === 'string' && typeof error.message === 'string');
}

const garbageOr = (valid: unknown): fc.Arbitrary<unknown> => fc.oneof(fc.constant(valid), fc.anything(), shapeMutantArb(valid));

/** A text with a few lines cut, changed or swapped: close enough to reach the deeper checks. */
const mangled = (text: string): fc.Arbitrary<string> =>
  fc.array(fc.tuple(fc.nat(), fc.oneof(fc.constant(''), fc.string(), fc.constantFrom('{', '}', '"', ' . ', ' : ', ';', ','))), { maxLength: 4 }).map((edits) => {
    const lines = text.split('\n');
    for (const [at, junk] of edits) {
      const i = at % lines.length;
      const line = lines[i] ?? '';
      const cut = at % (line.length + 1);
      lines[i] = line.slice(0, cut) + junk + line.slice(cut + (at % 3));
    }
    return lines.join('\n');
  });

test.prop([fc.oneof(fc.constant(table), mangled(transactionText), mangled(listingText)).chain(garbageOr), garbageOr(packet), garbageOr(options)])(
  'INV-API-GARBAGE: tracePacket answers garbage with a Result, never an exception',
  (t, p, o) => {
    expect(isTypedResult(tracePacket(t as never, p as never, o as never))).toBe(true);
  },
);

test.prop([fc.oneof(fc.anything(), fc.string(), mangled(transactionText), mangled(listingText))])(
  'INV-API-GARBAGE: parseTransaction and parseListRuleset answer garbage with a Result',
  (text) => {
    expect(isTypedResult(parseTransaction(text as never))).toBe(true);
    expect(isTypedResult(parseListRuleset(text as never))).toBe(true);
  },
);
