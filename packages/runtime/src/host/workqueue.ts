// client-go's rate-limited workqueue, on an injected clock: a key is queued at most once, a key
// being processed is not handed out again until it is done (a change meanwhile queues it once
// more, after done), failed keys come back after a per-key exponential backoff, and a key can
// be queued after a delay.
// upstream: staging/src/k8s.io/client-go/util/workqueue/queue.go (dirty / processing sets),
//           delaying_queue.go (AddAfter), rate_limiting_queue.go (AddRateLimited, Forget),
//           default_rate_limiters.go (DefaultControllerRateLimiter: the max of an
//           ItemExponentialFailureRateLimiter(5ms, 1000s) and a BucketRateLimiter(10 qps, burst 100))
import { TokenBucket, type CancelTimer, type Clock } from '@kubesvc/store';

/** upstream DefaultControllerRateLimiter's per-item exponential limiter. */
export const BACKOFF_BASE_MS = 5;
export const BACKOFF_MAX_MS = 1_000_000;
/** upstream DefaultControllerRateLimiter's overall bucket: 10 per second, burst 100. */
export const BUCKET_QPS = 10;
export const BUCKET_BURST = 100;

export interface RateLimiterOptions {
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly qps?: number;
  readonly burst?: number;
}

/** The default controller rate limiter: when a failed key may be retried. */
export class ControllerRateLimiter {
  private readonly failures = new Map<string, number>();
  private readonly base: number;
  private readonly max: number;
  private readonly bucket: TokenBucket;

  constructor(options: RateLimiterOptions = {}) {
    this.base = options.baseDelayMs ?? BACKOFF_BASE_MS;
    this.max = options.maxDelayMs ?? BACKOFF_MAX_MS;
    // golang.org/x/time/rate: `qps` tokens per second, starting full.
    this.bucket = new TokenBucket({ tokens: options.qps ?? BUCKET_QPS, perMs: 1000, burst: options.burst ?? BUCKET_BURST });
  }

  /** The delay before `key` is retried, counting this failure (MaxOfRateLimiter.When). */
  when(key: string, now: number): number {
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    // 2^exp overflows to Infinity long after the cap applies; min() handles both.
    const item = Math.min(this.base * 2 ** exp, this.max);
    return Math.max(item, this.reserve(now));
  }

  /** How many times `key` has failed since it was last forgotten. */
  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  /** golang.org/x/time/rate Limiter.Reserve().Delay(): take a token, borrowing from the future when none is left. */
  private reserve(now: number): number {
    return this.bucket.reserve(now);
  }
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly timers = new Map<string, { at: number; cancel: CancelTimer }>();
  private shutDown = false;
  readonly limiter: ControllerRateLimiter;

  constructor(
    private readonly clock: Clock,
    private readonly onReady: () => void,
    limiter?: RateLimiterOptions,
  ) {
    this.limiter = new ControllerRateLimiter(limiter);
  }

  add(key: string): void {
    if (this.shutDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.queue.push(key);
    this.onReady();
  }

  /** Queues `key` after `ms`; an earlier pending wait for the same key wins (delaying_queue keeps the soonest). */
  addAfter(key: string, ms: number): void {
    if (this.shutDown) return;
    if (ms <= 0) return this.add(key);
    const at = this.clock.now() + ms;
    const pending = this.timers.get(key);
    if (pending !== undefined && pending.at <= at) return;
    pending?.cancel();
    const cancel = this.clock.setTimer(at, () => {
      this.timers.delete(key);
      this.add(key);
    });
    this.timers.set(key, { at, cancel });
  }

  addRateLimited(key: string): number {
    const delay = this.limiter.when(key, this.clock.now());
    this.addAfter(key, delay);
    return delay;
  }

  forget(key: string): void {
    this.limiter.forget(key);
  }

  /** The next key to process, or undefined when none is queued. */
  get(): string | undefined {
    const key = this.queue.shift();
    if (key === undefined) return undefined;
    this.processing.add(key);
    this.dirty.delete(key);
    return key;
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shutDown) {
      this.queue.push(key);
      this.onReady();
    }
  }

  get length(): number {
    return this.queue.length;
  }

  /** Keys waiting on a delay (a backoff or a requeue-after). */
  get waiting(): number {
    return this.timers.size;
  }

  shutdown(): void {
    this.shutDown = true;
    this.queue.length = 0;
    this.dirty.clear();
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
  }
}
