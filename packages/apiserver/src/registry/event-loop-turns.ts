// Long loops over stored objects give the event loop a turn now and then. The SQLite store
// answers synchronously, so an `await` on it resolves as a microtask and never lets timers or
// sockets run: deleting a namespace that holds 2,000 Services, or a collection delete of them,
// held every other client (the API, the cluster DNS, the controllers) for a second and a half.
// A loop that calls `turn()` on each object yields (setImmediate) once its slice has passed,
// so the others are served in between, and a short loop pays nothing.

/** Yields to the event loop when `sliceMs` have passed since the last yield. */
export class EventLoopTurns {
  private last = performance.now();
  constructor(private readonly sliceMs: number) {}

  async turn(): Promise<void> {
    if (performance.now() - this.last < this.sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.last = performance.now();
  }
}

/** How long a loop of the registry may hold the event loop before it yields: 10 ms. */
export const DEFAULT_EVENT_LOOP_SLICE_MS = 10;
