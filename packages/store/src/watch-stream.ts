// The Watch every backend returns: an unbounded queue of events, consumed by one async
// iterator. Backends push events synchronously after a write commits, so a watch never
// misses or reorders an event; a consumer that falls behind only grows the queue.
import type { Watch, WatchEvent } from './types.js';

export class WatchStream implements Watch {
  private queue: WatchEvent[] = [];
  private head = 0;
  private failure: Error | undefined;
  private ended = false;
  private waiting: ((result: IteratorResult<WatchEvent>) => void) | undefined;
  private rejectWaiting: ((error: Error) => void) | undefined;

  constructor(private readonly onClose: (stream: WatchStream) => void = () => undefined) {}

  /** The prefix filter and the stream's own state live with the backend; this only queues. */
  push(event: WatchEvent): void {
    if (this.ended || this.failure !== undefined) return;
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      this.rejectWaiting = undefined;
      waiting({ value: event, done: false });
      return;
    }
    this.queue.push(event);
  }

  /** Ends the stream with an error: queued events are still delivered, then next() rejects. */
  fail(error: Error): void {
    if (this.ended || this.failure !== undefined) return;
    this.failure = error;
    const reject = this.rejectWaiting;
    if (reject !== undefined && this.head >= this.queue.length) {
      this.waiting = undefined;
      this.rejectWaiting = undefined;
      reject(error);
    }
  }

  /** Ends the stream: queued events are dropped and the iteration finishes. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.queue = [];
    this.head = 0;
    const waiting = this.waiting;
    this.waiting = undefined;
    this.rejectWaiting = undefined;
    waiting?.({ value: undefined, done: true });
    this.onClose(this);
  }

  get closed(): boolean {
    return this.ended;
  }

  private next(): Promise<IteratorResult<WatchEvent>> {
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    if (this.head < this.queue.length) {
      const value = this.queue[this.head] as WatchEvent;
      this.head++;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.failure !== undefined) {
      const failure = this.failure;
      this.close();
      return Promise.reject(failure);
    }
    if (this.waiting !== undefined) return Promise.reject(new Error('a watch has one consumer: next() called while another next() is pending'));
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.rejectWaiting = (error) => {
        this.close();
        reject(error);
      };
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return {
      next: () => this.next(),
      return: () => {
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/** Fan-out of committed events to the open watches whose prefix matches. */
export class WatchHub {
  private readonly watchers = new Map<WatchStream, { readonly prefix: string; readonly minRevision: number }>();

  /**
   * Starts delivering live events under `prefix` to `stream`, those of revision `minRevision`
   * and later (a watch from a future revision skips the commits before it, as etcd's watcher
   * minRev does: server/storage/mvcc/watchable_store.go).
   */
  add(prefix: string, stream: WatchStream, minRevision = 0): void {
    if (!stream.closed) this.watchers.set(stream, { prefix, minRevision });
  }

  remove(stream: WatchStream): void {
    this.watchers.delete(stream);
  }

  get size(): number {
    return this.watchers.size;
  }

  publish(events: readonly WatchEvent[]): void {
    if (events.length === 0 || this.watchers.size === 0) return;
    for (const [stream, { prefix, minRevision }] of this.watchers) {
      for (const event of events) if (event.kv.modRevision >= minRevision && event.kv.key.startsWith(prefix)) stream.push(event);
    }
  }

  /** Ends every watch (the store is closing). */
  closeAll(): void {
    for (const stream of [...this.watchers.keys()]) stream.close();
    this.watchers.clear();
  }
}
