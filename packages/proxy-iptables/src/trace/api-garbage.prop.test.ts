// INV-API-GARBAGE for the tracer: whatever a caller passes as the ruleset, the packet or the
// options of tracePacket and explain, or as the text of rulesetFromRestoreText, the answer is
// a Result (a value, or an ErrTrace with a message), never an exception.
import { fc, test } from '@fast-check/vitest';
import { shapeMutantArb } from '@kubesvc/testkit';
import { expect } from 'vitest';
import { generateRules } from '../backend.js';
import { fakeProxierConfig, makeService, simpleSlice, tcp80 } from '../upstream.fixtures.js';
import { explain } from './explain.js';
import { rulesetFromRestoreText } from './ruleset-from-text.js';
import { tracePacket } from './trace-packet.js';

const service = makeService('ns1', 'svc1', { clusterIP: '172.30.0.41', ports: [{ name: 'p80', port: 80, protocol: 'TCP' }] });
const generated = generateRules([service], [simpleSlice('ns1', 'svc1', tcp80(), [{ addresses: ['10.180.0.1'] }])], fakeProxierConfig());
const packet = { source: '10.0.0.2', destination: '172.30.0.41', protocol: 'tcp', destinationPort: 80, entry: 'pod' };
const options = { localAddresses: ['192.168.0.2'], recent: [{ name: 'X', source: '10.0.0.2', lastSeen: 0 }], now: 1, conntrack: 'NEW' };

function isTypedResult(r: unknown): boolean {
  if (typeof r !== 'object' || r === null) return false;
  const { ok, error } = r as { ok?: unknown; error?: { _tag?: unknown; message?: unknown } };
  return ok === true || (ok === false && typeof error?._tag === 'string' && typeof error.message === 'string');
}

const garbageOr = (valid: unknown): fc.Arbitrary<unknown> => fc.oneof(fc.constant(valid), fc.anything(), shapeMutantArb(valid));

test.prop([fc.constantFrom(generated.ruleset, generated.restoreText).chain(garbageOr), garbageOr(packet), garbageOr(options), fc.boolean()])(
  'INV-API-GARBAGE: tracePacket and explain answer garbage with a Result, never an exception',
  (ruleset, p, o, viaExplain) => {
    const result = viaExplain ? explain(ruleset as never, p as never, o as never) : tracePacket(ruleset as never, p as never, o as never);
    expect(isTypedResult(result)).toBe(true);
  },
);

test.prop([fc.oneof(fc.anything(), fc.string()), fc.anything()])('INV-API-GARBAGE: rulesetFromRestoreText answers garbage with a Result', (text, family) => {
  expect(isTypedResult(rulesetFromRestoreText(text as never, family as never))).toBe(true);
});
