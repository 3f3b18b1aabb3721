// Writes a file so that a reader sees the old content or the new, never a part: the text goes
// to a temporary file in the same folder (so the rename stays on one filesystem) and is renamed
// over the target, which POSIX makes atomic. The temporary file is created exclusively (nothing
// already at its name is followed) with the mode given, which the umask can narrow, never widen.
import { randomBytes } from 'node:crypto';
import { rm, writeFile, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function writeFileAtomic(path: string, text: string, mode: number): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(temp, text, { mode, flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
