// The modes of the files and folders `kubesvc up` keeps in its data dir, and the tightening of
// ones that had more. The files themselves are written with the node agent's writeFileAtomicSync
// (a temporary file renamed over the target).
import { chmodSync, mkdirSync, statSync } from 'node:fs';

/**
 * The modes of what `kubesvc up` writes. Secrets and state are the owner's only; what anyone
 * on the host may read anyway (the serving certificate, the rules kube-proxy would load, the
 * userspace proxy's ports) is 0644; folders are 0700. A umask can narrow these, never widen
 * them: the mode is given at creation, and creation applies the umask.
 */
export const FILE_MODES = { secret: 0o600, public: 0o644, dir: 0o700 } as const;

/**
 * Makes `dir` (and its parents) if missing, and takes group and other access away from one that
 * exists with them. Returns the mode it had when it was tightened, else undefined.
 */
export function ensurePrivateDir(dir: string): number | undefined {
  mkdirSync(dir, { recursive: true, mode: FILE_MODES.dir });
  return tightenMode(dir, FILE_MODES.dir);
}

/** Sets `path`'s mode to `mode` when it grants more than `mode` does; returns the old mode then. Missing: undefined. */
export function tightenMode(path: string, mode: number): number | undefined {
  let old: number;
  try {
    old = statSync(path).mode & 0o777;
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
  if ((old & ~mode) === 0) return undefined;
  chmodSync(path, mode);
  return old;
}

/** `0755` */
export function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}
