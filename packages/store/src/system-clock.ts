// The production clock: Date.now and real timers. Timers are unref'd, so a pending lease
// expiry or repair tick never keeps the process alive on its own.
import type { CancelTimer, Clock } from './clock.js';

// setTimeout clamps delays above 2^31-1 ms (about 24.8 days) to 1 ms; longer waits re-arm.
const MAX_DELAY = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(at: number, fn: () => void): CancelTimer {
    let handle: NodeJS.Timeout | undefined;
    let done = false;
    const arm = () => {
      const delay = at - Date.now();
      if (delay > MAX_DELAY) {
        handle = setTimeout(arm, MAX_DELAY);
      } else {
        handle = setTimeout(() => {
          done = true;
          fn();
        }, Math.max(0, delay));
      }
      handle.unref();
    };
    arm();
    return () => {
      if (done) return;
      done = true;
      if (handle !== undefined) clearTimeout(handle);
    };
  },
};
