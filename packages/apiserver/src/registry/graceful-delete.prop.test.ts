// Graceful deletion over random sequences of deletes of one scheduled pod (grace periods absent,
// negative, zero or positive, the clock moving between them): the deletion only ever comes
// earlier, to the first request's time plus the shortest grace period asked for, and the pod
// goes exactly when that shortest period is 0.
import { fc, test } from '@fast-check/vitest';
import type { Pod } from '@kubesvc/api-types';
import { virtualClock } from '@kubesvc/store';
import { expect } from 'vitest';
import { memoryRegistry, must } from './registry.fixtures.js';

const SPEC_GRACE = 30;

const step = fc.record({
  // undefined: the request names no grace period (the pod's terminationGracePeriodSeconds applies to a first delete).
  grace: fc.option(fc.integer({ min: -3, max: 60 }), { nil: undefined }),
  advanceMs: fc.integer({ min: 0, max: 20_000 }),
});

test.prop([fc.integer({ min: 0, max: 999 }), fc.array(step, { minLength: 1, maxLength: 6 })], { numRuns: 60 })(
  'INV-REG-GRACE: a pod being deleted is due at the first request time plus the shortest grace asked for, never later, and goes exactly when that is 0',
  async (startMs, steps) => {
    const t0 = Date.UTC(2025, 0, 2, 3, 4, 5) + startMs;
    const clock = virtualClock(t0);
    const { registry } = await memoryRegistry({ clock, seed: 7 });
    const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'n1', terminationGracePeriodSeconds: SPEC_GRACE, containers: [{ name: 'c', image: 'x' }] } };
    must(await registry.create('pods', 'default', pod));
    let firstAt: number | undefined;
    let shortest = Infinity;
    for (const { grace, advanceMs } of steps) {
      const r = await registry.delete<Pod>('pods', 'default', 'p', grace === undefined ? {} : { gracePeriodSeconds: grace });
      // The oracle: a negative grace counts as 1; none means the spec's on a first delete and
      // leaves a pending deletion as it is.
      const effective = grace === undefined ? (firstAt === undefined ? SPEC_GRACE : Infinity) : Math.max(grace, grace < 0 ? 1 : 0);
      firstAt ??= Math.floor(clock.now() / 1000) * 1000;
      shortest = Math.min(shortest, effective);
      const gone = shortest === 0;
      if (!r.ok) {
        // Only a delete after the pod went can fail, with NotFound.
        expect(r.error.status.code).toBe(404);
        break;
      }
      expect(r.value.deleted).toBe(gone);
      const got = await registry.get<Pod>('pods', 'default', 'p');
      expect(got.ok).toBe(!gone);
      if (got.ok) {
        expect(got.value.metadata.deletionGracePeriodSeconds).toBe(shortest);
        expect(got.value.metadata.deletionTimestamp).toBe(new Date(firstAt + shortest * 1000).toISOString().replace('.000Z', 'Z'));
      }
      clock.advance(advanceMs);
    }
  },
);
