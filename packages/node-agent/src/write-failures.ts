// The failures of a write that is retried (the rules files at each sync, proxy-ports.json at
// each tick): counted, and worth a log line only when their kind changes, so a write that fails
// every 500 ms does not flood the log, and once more when a write succeeds again. A kind is
// Node's error code (EISDIR, EMFILE): the message names a temporary file that differs each time.

export class WriteFailures {
  /** Failed attempts so far. */
  total = 0;
  /** Failed attempts since the last write that succeeded (0: the file is current). */
  failing = 0;
  private logged: string | undefined;

  /** Records a failure; true when its kind is not the one last logged (so: log it). */
  fail(error: unknown): boolean {
    this.total++;
    this.failing++;
    const code = (error as { code?: unknown } | null)?.code;
    const kind = typeof code === 'string' ? code : String(error);
    if (kind === this.logged) return false;
    this.logged = kind;
    return true;
  }

  /** Records a success; returns how many failed attempts it ends (0: none were failing). */
  succeed(): number {
    const ended = this.failing;
    this.failing = 0;
    this.logged = undefined;
    return ended;
  }
}
