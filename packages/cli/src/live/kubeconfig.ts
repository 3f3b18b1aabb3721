// The parts of a kubeconfig a live command needs: the current context's server, CA and token,
// and its namespace. Which file: --kubeconfig, else $KUBECONFIG (its first path, when it lists
// several), else <data-dir>/kubeconfig, the file `kubesvc up` writes. Pure, but for the paths.
// upstream: staging/src/k8s.io/client-go/tools/clientcmd (loader.go: the precedence of the
//           flag over $KUBECONFIG; api/types.go: the field names)
import { isAbsolute, join, resolve } from 'node:path';
import { err, ok, taggedError, type Result, type TaggedError } from '@kubesvc/api-types';
import { parse } from 'yaml';

export interface KubeconfigTarget {
  /** https://host:port */
  readonly server: string;
  /** PEM; absent: the system's CAs. */
  readonly ca?: string;
  /** A file path for the CA, relative paths resolved against the kubeconfig's folder. */
  readonly caFile?: string;
  readonly token?: string;
  readonly insecureSkipTLSVerify: boolean;
  /** The context's namespace, `default` when it names none. */
  readonly namespace: string;
}

/** Which kubeconfig: the flag, then $KUBECONFIG, then the one `kubesvc up` wrote in the data dir. */
export function kubeconfigPath(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, dataDir: string): string {
  if (flag !== undefined && flag !== '') return flag;
  const fromEnv = (env['KUBECONFIG'] ?? '').split(':').find((p) => p !== '');
  return fromEnv ?? join(dataDir, 'kubeconfig');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function named(list: unknown, name: string, field: string): Record<string, unknown> | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const entry of list) {
    if (isRecord(entry) && entry['name'] === name && isRecord(entry[field])) return entry[field];
  }
  return undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A kubeconfig that names no usable server: its path and what is wrong, as one message. */
export type ErrKubeconfig = TaggedError<'ErrKubeconfig'>;

function kubeconfigError(message: string): Result<never, ErrKubeconfig> {
  return err(taggedError('ErrKubeconfig', message));
}

/** The current context of a kubeconfig's text, or the reason it has none usable. */
export function kubeconfigTarget(text: string, path: string): Result<KubeconfigTarget, ErrKubeconfig> {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    return kubeconfigError(`${path}: not a kubeconfig: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  if (!isRecord(doc)) return kubeconfigError(`${path}: not a kubeconfig`);
  const current = str(doc['current-context']);
  if (current === undefined) return kubeconfigError(`${path}: current-context is not set`);
  const context = named(doc['contexts'], current, 'context');
  if (context === undefined) return kubeconfigError(`${path}: context "${current}" does not exist`);
  const clusterName = str(context['cluster']) ?? '';
  const cluster = named(doc['clusters'], clusterName, 'cluster');
  if (cluster === undefined) return kubeconfigError(`${path}: cluster "${clusterName}" of context "${current}" does not exist`);
  const server = str(cluster['server']);
  if (server === undefined) return kubeconfigError(`${path}: cluster "${clusterName}" has no server`);
  const user = named(doc['users'], str(context['user']) ?? '', 'user') ?? {};
  const caData = str(cluster['certificate-authority-data']);
  const caFile = str(cluster['certificate-authority']);
  const token = str(user['token']);
  return ok({
    server: server.replace(/\/+$/, ''),
    ...(caData === undefined ? {} : { ca: Buffer.from(caData, 'base64').toString('utf8') }),
    ...(caFile === undefined ? {} : { caFile: isAbsolute(caFile) ? caFile : resolve(path, '..', caFile) }),
    ...(token === undefined ? {} : { token }),
    insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
    namespace: str(context['namespace']) ?? 'default',
  });
}
