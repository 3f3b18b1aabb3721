// Writes a file so that a reader sees the old content or the new, never a part: the text goes
// to a temporary file in the same folder (so the rename stays on one filesystem) and is renamed
// over the target, which POSIX makes atomic. The temporary file is created exclusively (nothing
// already at its name is followed) with the mode given, which the umask can narrow, never widen.
// The content is text, bytes, or pieces of bytes written one after the other (a sync's restore
// text is bytes; a first sync's, the pieces of the bytes its state keeps). The node agent writes its rules files with the asynchronous form; `kubesvc up` its token,
// certificate, kubeconfig and proxy-ports.json with the synchronous one.
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** What a file is written from: text, bytes, or pieces of bytes in order. */
export type FileContent = string | Uint8Array | readonly Uint8Array[];

/** A fresh name beside `path`, hidden and unique to this process and call. */
function temporaryFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

export async function writeFileAtomic(path: string, text: FileContent, mode: number): Promise<void> {
  const temp = temporaryFor(path);
  try {
    await writeFile(temp, text, { mode, flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

export function writeFileAtomicSync(path: string, text: string, mode: number): void {
  const temp = temporaryFor(path);
  try {
    writeFileSync(temp, text, { mode, flag: 'wx' });
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
