// The message loop a reducer's host runs: messages are handled one at a time, in the order they
// were posted, by one drain at a time; a message posted while a drain runs is handled by that
// drain. A handler that throws is a bug in the host or the reducer: it is reported and the next
// message goes on. Once halted, nothing more is handled and what was queued is dropped.
// The bootstrap controller's host and the default ServiceCIDR controller's host share it.

export class Mailbox<M> {
  private readonly queue: M[] = [];
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(
    private readonly handle: (message: M) => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  get halted(): boolean {
    return this.stopped;
  }

  /** Queues `message` and starts a drain when none runs. */
  post(message: M): void {
    if (this.stopped) return;
    this.queue.push(message);
    this.kick();
  }

  /**
   * Queues `message` for the drain that is running (an action's result, posted by the handler
   * of the message that asked for the action): it is handled after the current one.
   */
  enqueue(message: M): void {
    if (this.stopped) return;
    this.queue.push(message);
  }

  /** Resolves when no message is queued or being handled. */
  idle(): Promise<void> {
    if (this.running === undefined && (this.queue.length === 0 || this.stopped)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops handling: what is queued is dropped, and the message being handled is the last. */
  halt(): void {
    this.stopped = true;
    this.queue.length = 0;
  }

  /** Resolves once the drain that is running (if any) has returned. */
  async settled(): Promise<void> {
    await this.running;
  }

  private kick(): void {
    if (this.running !== undefined) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.queue.length > 0 && !this.stopped) this.kick();
      else for (const resolve of this.idleWaiters.splice(0)) resolve();
    });
  }

  private async drain(): Promise<void> {
    for (let message = this.queue.shift(); message !== undefined; message = this.queue.shift()) {
      if (this.stopped) return;
      try {
        await this.handle(message);
      } catch (e) {
        this.onError(e);
      }
    }
  }
}
