// The API server a live command talks to: the kubeconfig of --kubeconfig, else $KUBECONFIG,
// else the one `kubesvc up` writes in its data dir. A kubeconfig that is not there or does not
// read is a usage error.
import { readFile } from 'node:fs/promises';
import { usageError } from '../cli-error.js';
import type { CliIo } from '../cli-io.js';
import { kubeconfigPath, kubeconfigTarget, type KubeconfigTarget } from './kubeconfig.js';

export async function liveTarget(io: CliIo, kubeconfigFlag: string | undefined, dataDir: string): Promise<KubeconfigTarget> {
  const path = kubeconfigPath(kubeconfigFlag, io.env, dataDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw usageError(`${path}: no kubeconfig there: start \`kubesvc up\`, or name one with --kubeconfig or $KUBECONFIG (or give a dump with -f)`);
  }
  const read = kubeconfigTarget(text, path);
  if (!read.ok) throw usageError(read.error.message);
  return read.value;
}
