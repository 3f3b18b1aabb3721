// Named points where a test can make the registry "die": the hook throws, nothing after the
// point runs (no release, no retry), and the test then opens a new registry on the same store
// as a restarted apiserver would. Production passes no hook, so no point ever fires.

export type CrashPoint =
  /** A Service create took its IPs and ports (the range CAS committed) and has not persisted. */
  | 'service-create:after-allocate'
  /** A Service update took new IPs or ports and has not persisted. */
  | 'service-update:after-allocate'
  /** A Service update persisted and has not released what it gave up. */
  | 'service-update:after-persist'
  /** A Service delete removed the object and has not released its IPs and ports. */
  | 'service-delete:after-persist'
  /** The namespace controller deleted some of a namespace's objects, not all. */
  | 'namespace-finalize:after-object-delete'
  /** A multi-key txn was built and is about to be committed: dying here commits nothing. */
  | 'txn:before-commit'
  /** A multi-key txn committed and the caller has not seen the answer. */
  | 'txn:after-commit';

/** What the hook is told: the point, and for txn points the txn's name and keys. */
export interface CrashContext {
  readonly point: CrashPoint;
  readonly txn?: string;
  readonly keys?: readonly string[];
}

export type CrashHook = (context: CrashContext) => void;

/** What a test hook throws; the registry never catches it. */
export class SimulatedCrash extends Error {
  readonly _tag = 'SimulatedCrash' as const;
  constructor(readonly context: CrashContext) {
    super(`simulated crash at ${context.point}${context.txn ? ` (${context.txn})` : ''}`);
    this.name = 'SimulatedCrash';
  }
}

export function isSimulatedCrash(e: unknown): e is SimulatedCrash {
  return e instanceof SimulatedCrash;
}

/** A hook that crashes at `point` (optionally only for one txn name) the first `times` times it is reached. */
export function crashAt(point: CrashPoint, options: { readonly txn?: string; readonly times?: number } = {}): CrashHook {
  let left = options.times ?? 1;
  return (context) => {
    if (context.point !== point || left <= 0) return;
    if (options.txn !== undefined && context.txn !== options.txn) return;
    left--;
    throw new SimulatedCrash(context);
  };
}
