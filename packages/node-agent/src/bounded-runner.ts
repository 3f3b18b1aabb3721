// Runs a function on request, but never more often than a token bucket allows, and at least
// once per `maxIntervalMs`: kube-proxy's BoundedFrequencyRunner, on the shell's Clock.
// upstream: pkg/util/async/bounded_frequency_runner.go (Run, RetryAfter, tryRun: a token
//           bucket of `burst` tokens refilled at one per minInterval; a run that finds no token
//           is put off until the next token is due)
//
// A request never runs the function inside the caller: it sets a timer (due now when a token is
// free), so requests made in one turn of the event loop (the events of one watch batch) are
// served by one run, as upstream's runner serves every Run() signalled before its loop wakes.
import { TokenBucket, type CancelTimer, type Clock } from '@kubesvc/store';

export interface BoundedRunnerOptions {
  /** At most `burst` runs in any window of `burst × minIntervalMs`; at least one token per minIntervalMs. */
  readonly minIntervalMs: number;
  /** A run is made at least this often, requested or not. */
  readonly maxIntervalMs: number;
  /** Runs allowed back to back before minIntervalMs applies. kube-proxy's iptables proxier uses 2. */
  readonly burst: number;
}

export class BoundedRunner {
  private readonly bucket: TokenBucket;
  private timer: { at: number; cancel: CancelTimer } | undefined;
  private idle: CancelTimer | undefined;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly fn: () => void,
    private readonly options: BoundedRunnerOptions,
  ) {
    if (!(options.minIntervalMs >= 0) || !(options.maxIntervalMs > 0) || !(options.burst >= 1)) {
      throw new RangeError(`bounded runner: minIntervalMs ${options.minIntervalMs}, maxIntervalMs ${options.maxIntervalMs}, burst ${options.burst}`);
    }
    // One token per minInterval, `burst` at most, starting full (minInterval 0: no limit).
    this.bucket = new TokenBucket({ tokens: 1, perMs: options.minIntervalMs, burst: options.burst, now: clock.now() });
    this.armIdle();
  }

  /** Asks for a run as soon as the bucket allows. */
  run(): void {
    if (this.stopped) return;
    this.schedule(this.clock.now() + this.waitForToken());
  }

  /** Asks for a run after `ms` (a failed run's retry), unless one is due earlier. */
  retryAfter(ms: number): void {
    if (this.stopped) return;
    this.schedule(this.clock.now() + Math.max(ms, this.waitForToken()));
  }

  /** Cancels every timer; later requests do nothing. */
  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.idle?.();
    this.idle = undefined;
  }

  /** Whether a run is scheduled. */
  get pending(): boolean {
    return this.timer !== undefined;
  }

  /** Milliseconds until a token is free (0: now). */
  private waitForToken(): number {
    return this.bucket.delayUntilToken(this.clock.now());
  }

  private schedule(at: number): void {
    if (this.timer !== undefined && this.timer.at <= at) return;
    this.timer?.cancel();
    const cancel = this.clock.setTimer(at, () => this.fire());
    this.timer = { at, cancel };
  }

  private fire(): void {
    this.timer = undefined;
    if (this.stopped) return;
    const wait = this.waitForToken();
    if (wait > 0) {
      this.schedule(this.clock.now() + wait);
      return;
    }
    this.bucket.take();
    this.armIdle();
    this.fn();
  }

  private armIdle(): void {
    this.idle?.();
    this.idle = this.clock.setTimer(this.clock.now() + this.options.maxIntervalMs, () => {
      this.idle = undefined;
      this.run();
    });
  }
}
