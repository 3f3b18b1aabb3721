// Properties of the traced rules. INV-NFT-TRACE-UNIFORM: a ClusterIP Service with n ready
// endpoints, as the builder writes it, sends a pod's packet to each endpoint in exactly one
// outcome, with exactly 1/n as written and, as the kernel draws (reciprocal_scale of a 32-bit
// number), within 1/2^32 of 1/n, both summing to exactly 1. The expected endpoints come from
// the generated cluster description, not from the rules.
import { fc, test } from '@fast-check/vitest';
import { addRational, rationalDistance, compareRational, RATIONAL_ONE, RATIONAL_ZERO, rationalEquals, reduceRational, type Rational } from '@kubesvc/proxy';
import { makeService, makeSlice } from '@kubesvc/testkit';
import { describe, expect } from 'vitest';
import { generateNftablesRules } from '../generate/generate.js';
import { fakeNftablesConfig } from '../generate/upstream.fixtures.js';
import { applyTransaction } from '../model/apply.js';
import { tracePacket } from './trace-packet.js';
import type { TraceOutcome } from './trace-types.js';

function sum(outcomes: readonly TraceOutcome[], key: 'written' | 'kernel'): Rational {
  return outcomes.reduce((acc, o) => addRational(acc, o.probability[key]), RATIONAL_ZERO);
}

describe('INV-NFT-TRACE-UNIFORM', () => {
  test.prop([fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 65535 }), fc.boolean()])(
    'INV-NFT-TRACE-UNIFORM: n ready endpoints (n ≤ 64) each get one DNAT outcome, exactly 1/n written, within 2^-32 of 1/n in the kernel, both summing to exactly 1',
    (n, port, udp) => {
      const protocol = udp ? 'UDP' : 'TCP';
      const service = makeService('ns', 'svc', { clusterIP: '172.30.0.10', ports: [{ name: 'p', port, protocol }] });
      const endpoints = Array.from({ length: n }, (_, i) => `10.180.${Math.floor(i / 250)}.${(i % 250) + 1}`);
      const slice = makeSlice('ns', 'svc', 1, 'IPv4', endpoints.map((ip) => ({ addresses: [ip] })), [{ name: 'p', port: 8080, protocol }]);
      const rules = generateNftablesRules([service], [slice], fakeNftablesConfig());
      const table = applyTransaction(undefined, rules.transaction);
      if (!table.ok || table.value === undefined) throw new Error('no table');
      const r = tracePacket(table.value, { source: '10.0.0.2', destination: '172.30.0.10', protocol: udp ? 'udp' : 'tcp', destinationPort: port, entry: 'pod' }, { localAddresses: ['192.168.0.2'] });
      if (!r.ok) throw new Error(r.error.message);
      const outcomes = r.value.outcomes;
      expect(outcomes.map((o) => o.kind)).toEqual(endpoints.map(() => 'dnat'));
      expect(outcomes.map((o) => o.dnat).sort()).toEqual(endpoints.map((ip) => `${ip}:8080`).sort());
      const ideal = reduceRational(1n, BigInt(n));
      const ulp = reduceRational(1n, 1n << 32n);
      for (const o of outcomes) {
        expect(rationalEquals(o.probability.written, ideal)).toBe(true);
        expect(compareRational(rationalDistance(o.probability.kernel, ideal), ulp)).toBeLessThan(1);
      }
      expect(rationalEquals(sum(outcomes, 'written'), RATIONAL_ONE)).toBe(true);
      expect(rationalEquals(sum(outcomes, 'kernel'), RATIONAL_ONE)).toBe(true);
    },
  );
});
