// What the runtime's tests share: one start time, a cleanup list run after each test (in
// reverse), `must` for set-up steps that cannot fail, a memory store on a virtual clock, and a
// virtual clock moved a second at a time while control planes settle.
import { afterEach } from 'vitest';
import { openMemoryStore, type Store, virtualClock, type VirtualClock } from '@kubesvc/store';
import type { ControlPlane } from './control-plane.js';

export const T0 = Date.UTC(2025, 0, 2, 3, 4, 5, 0);

/** Cleanups of the running test, run after it in reverse order (registered once per test file that imports this). */
export const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The value of a Result a test's set-up needs; throws the error's message otherwise. */
export function must<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** A memory store on a virtual clock at T0, closed after the test. */
export function memory(): { store: Store; clock: VirtualClock } {
  const clock = virtualClock(T0);
  const store = openMemoryStore({ clock });
  cleanups.push(() => store.close());
  return { store, clock };
}

/** Moves the virtual clock `ms` forward a second at a time, letting every control plane settle after each step. */
export async function runClock(clock: VirtualClock, ms: number, planes: readonly ControlPlane[], each?: () => Promise<void>): Promise<void> {
  for (const p of planes) await p.idle();
  for (let left = ms; left > 0; left -= 1000) {
    clock.advance(Math.min(1000, left));
    for (const p of planes) await p.idle();
    await each?.();
  }
}
