// The API server a live command talks to: the kubeconfig of --kubeconfig, else the files of
// $KUBECONFIG merged as kubectl merges them, else the one `kubesvc up` writes in its data dir;
// --context picks a context other than the current one. A kubeconfig that is not there or does
// not read is a usage error.
import { readFile } from 'node:fs/promises';
import { usageError } from '../cli-error.js';
import type { CliIo } from '../cli-io.js';
import { kubeconfigPaths, kubeconfigTarget, type KubeconfigFile, type KubeconfigTarget } from './kubeconfig.js';

export async function liveTarget(io: CliIo, kubeconfigFlag: string | undefined, dataDir: string, contextName?: string): Promise<KubeconfigTarget> {
  const { paths, explicit } = kubeconfigPaths(kubeconfigFlag, io.env, dataDir);
  const files: KubeconfigFile[] = [];
  for (const path of paths) {
    try {
      files.push({ path, text: await readFile(path, 'utf8') });
    } catch {
      // A path of $KUBECONFIG that does not exist is skipped, as kubectl skips it; a named one is not.
      if (explicit) throw usageError(`${path}: no kubeconfig there: start \`kubesvc up\`, or name one with --kubeconfig or $KUBECONFIG (or give a dump with -f)`);
    }
  }
  if (files.length === 0) throw usageError(`none of the files of $KUBECONFIG (${paths.join(', ')}) exists: start \`kubesvc up\`, or name one with --kubeconfig (or give a dump with -f)`);
  const read = kubeconfigTarget(files, contextName);
  if (!read.ok) throw usageError(read.error.message);
  return read.value;
}
