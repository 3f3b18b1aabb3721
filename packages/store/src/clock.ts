// Time for the shell. Production uses the system clock and real timers; tests and properties
// use a virtual clock that only moves when told to, so lease expiry, repair intervals and
// controller wake-ups are deterministic.

/** Cancels a timer; calling it after the timer fired, or twice, does nothing. */
export type CancelTimer = () => void;

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `fn` once, at or after `at` (milliseconds since the epoch). */
  setTimer(at: number, fn: () => void): CancelTimer;
}
