// Files that `kubesvc up` keeps in its data dir, written so that a reader sees the old content
// or the new, never a part, and with the mode given whatever the umask is widened to: the text
// goes to a fresh temporary file in the same folder (created exclusively, so nothing already
// there, a symlink say, is followed) and is renamed over the target, which POSIX makes atomic.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * The modes of what `kubesvc up` writes. Secrets and state are the owner's only; what anyone
 * on the host may read anyway (the serving certificate, the rules kube-proxy would load, the
 * userspace proxy's ports) is 0644; folders are 0700. A umask can narrow these, never widen
 * them: the mode is given at creation, and creation applies the umask.
 */
export const FILE_MODES = { secret: 0o600, public: 0o644, dir: 0o700 } as const;

export function writeFileAtomicSync(path: string, text: string, mode: number): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(temp, text, { mode, flag: 'wx' });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

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
