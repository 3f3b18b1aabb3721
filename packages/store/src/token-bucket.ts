// The one token bucket of the shell, on times passed in (milliseconds of whatever clock the
// caller runs on). Two upstream users take it:
// - client-go's BucketRateLimiter (golang.org/x/time/rate Limiter.Reserve): take a token now,
//   borrowing from the future when none is left, and wait until the debt is paid
//   (`reserve`); the workqueue's default controller rate limiter uses 10 per second, burst 100.
// - kube-proxy's BoundedFrequencyRunner (pkg/util/async/bounded_frequency_runner.go): wait
//   until a whole token is there (`delayUntilToken`), then `take` it; one token per minInterval.
//
// The rate is a fraction, `tokens` per `perMs` milliseconds, so that each user's arithmetic is
// exactly the one it had (10 per 1000 ms; 1 per minInterval ms): a refill adds
// elapsed × tokens / perMs, and a wait is ceil(missing × perMs / tokens). `perMs` 0 means no
// limit: the bucket is always full.

export interface TokenBucketOptions {
  /** Tokens added per `perMs` milliseconds. */
  readonly tokens: number;
  readonly perMs: number;
  /** The most tokens the bucket holds; it starts full. */
  readonly burst: number;
  /** The time the bucket starts at; without it the first call starts the clock and adds nothing. */
  readonly now?: number;
}

export class TokenBucket {
  private available: number;
  private last: number | undefined;

  constructor(private readonly options: TokenBucketOptions) {
    this.available = options.burst;
    this.last = options.now;
  }

  /** Takes a token at `now`, going into debt when none is left; the milliseconds until the debt is paid (0: none). */
  reserve(now: number): number {
    this.refill(now);
    this.available -= 1;
    return this.available >= 0 ? 0 : this.wait(-this.available);
  }

  /** The milliseconds from `now` until a whole token is there (0: one is). Takes nothing. */
  delayUntilToken(now: number): number {
    this.refill(now);
    return this.available >= 1 ? 0 : this.wait(1 - this.available);
  }

  /** Takes a token that `delayUntilToken` said is there. */
  take(): void {
    this.available -= 1;
  }

  private wait(missing: number): number {
    return Math.ceil((missing * this.options.perMs) / this.options.tokens);
  }

  private refill(now: number): void {
    const { tokens, perMs, burst } = this.options;
    if (perMs === 0) this.available = burst;
    else if (this.last !== undefined) this.available = Math.min(burst, this.available + ((now - this.last) * tokens) / perMs);
    this.last = now;
  }
}
