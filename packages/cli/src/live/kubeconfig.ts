// The parts of a kubeconfig a live command needs: the chosen context's server, CA, credentials
// (token, token file, client certificate and key, or an exec plugin) and namespace, read as
// kubectl reads them. Which files: --kubeconfig alone, else every path of $KUBECONFIG merged,
// else <data-dir>/kubeconfig, the file `kubesvc up` writes. Merged as clientcmd merges: for
// each named cluster, user and context the first file that has it wins, and current-context is
// the first file's that sets one; relative paths are resolved against the file that holds them.
// --context picks another context. Pure, but for the paths.
// upstream (v1.33): staging/src/k8s.io/client-go/tools/clientcmd (loader.go: the precedence of
//   the flag over $KUBECONFIG, the merge; api/types.go: the field names; client_config.go:
//   the context override)
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { err, ok, taggedError, type Result, type TaggedError } from '@kubesvc/api-types';
import { parse } from 'yaml';

/** An exec credential plugin (client.authentication.k8s.io), run to get a token or a certificate. */
export interface ExecPlugin {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly apiVersion: string;
}

export interface KubeconfigTarget {
  /** https://host:port */
  readonly server: string;
  /** PEM; absent: the system's CAs. */
  readonly ca?: string;
  /** A file path for the CA, resolved against the kubeconfig that names it. */
  readonly caFile?: string;
  readonly token?: string;
  /** A file holding the token (read at each request, as client-go rereads it). */
  readonly tokenFile?: string;
  /** PEM, or a file path, of the client certificate and key. */
  readonly clientCert?: string;
  readonly clientCertFile?: string;
  readonly clientKey?: string;
  readonly clientKeyFile?: string;
  readonly exec?: ExecPlugin;
  readonly insecureSkipTLSVerify: boolean;
  /** The context's namespace, `default` when it names none. */
  readonly namespace: string;
  /** The context used, and the files read, for messages. */
  readonly context: string;
  readonly files: readonly string[];
}

/** The kubeconfig files to read: the flag's alone, else $KUBECONFIG's, else the one `kubesvc up` wrote. */
export function kubeconfigPaths(flag: string | undefined, env: Readonly<Record<string, string | undefined>>, dataDir: string): { readonly paths: readonly string[]; readonly explicit: boolean } {
  if (flag !== undefined && flag !== '') return { paths: [flag], explicit: true };
  const fromEnv = (env['KUBECONFIG'] ?? '').split(delimiter).filter((p) => p !== '');
  if (fromEnv.length > 0) return { paths: [...new Set(fromEnv)], explicit: false };
  return { paths: [join(dataDir, 'kubeconfig')], explicit: true };
}

/** A kubeconfig that names no usable server: what is wrong, as one message. */
export type ErrKubeconfig = TaggedError<'ErrKubeconfig'>;

function kubeconfigError(message: string): Result<never, ErrKubeconfig> {
  return err(taggedError('ErrKubeconfig', message));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** One read file: its path, for resolving relative paths, and its parsed document. */
export interface KubeconfigFile {
  readonly path: string;
  readonly text: string;
}

interface Entry {
  readonly value: Record<string, unknown>;
  /** The file that defined it. */
  readonly path: string;
}

/** The first definition of each name in `field` (clusters, users, contexts) across the files. */
function mergedEntries(docs: readonly { path: string; doc: Record<string, unknown> }[], list: string, field: string): Map<string, Entry> {
  const out = new Map<string, Entry>();
  for (const { path, doc } of docs) {
    const entries = doc[list];
    if (!Array.isArray(entries)) continue;
    for (const e of entries) {
      if (!isRecord(e) || typeof e['name'] !== 'string' || !isRecord(e[field])) continue;
      if (!out.has(e['name'])) out.set(e['name'], { value: e[field], path });
    }
  }
  return out;
}

function resolvedPath(file: string | undefined, definedIn: string): string | undefined {
  if (file === undefined) return undefined;
  return isAbsolute(file) ? file : resolve(definedIn, '..', file);
}

function base64Text(data: string | undefined): string | undefined {
  return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
}

function execPlugin(user: Entry): Result<ExecPlugin | undefined, ErrKubeconfig> {
  const exec = user.value['exec'];
  if (exec === undefined) return ok(undefined);
  if (!isRecord(exec) || str(exec['command']) === undefined) return kubeconfigError(`${user.path}: the user's exec has no command`);
  const env: Record<string, string> = {};
  for (const e of Array.isArray(exec['env']) ? exec['env'] : []) if (isRecord(e) && typeof e['name'] === 'string') env[e['name']] = String(e['value'] ?? '');
  const command = str(exec['command']) ?? '';
  return ok({
    // A relative command with a slash is the file's neighbour, as client-go resolves it.
    command: command.includes('/') && !isAbsolute(command) ? resolve(user.path, '..', command) : command,
    args: Array.isArray(exec['args']) ? exec['args'].map(String) : [],
    env,
    apiVersion: str(exec['apiVersion']) ?? 'client.authentication.k8s.io/v1',
  });
}

/**
 * The target of the merged files, for `contextName` (or the merged current-context). A file
 * that does not parse is an error naming it, as kubectl refuses it.
 */
export function kubeconfigTarget(files: readonly KubeconfigFile[], contextName?: string): Result<KubeconfigTarget, ErrKubeconfig> {
  const docs: { path: string; doc: Record<string, unknown> }[] = [];
  for (const f of files) {
    let doc: unknown;
    try {
      doc = parse(f.text);
    } catch (error) {
      return kubeconfigError(`${f.path}: not a kubeconfig: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
    // An empty file is an empty config, as clientcmd reads it.
    if (doc === null || doc === undefined) continue;
    if (!isRecord(doc)) return kubeconfigError(`${f.path}: not a kubeconfig`);
    docs.push({ path: f.path, doc });
  }
  const names = files.map((f) => f.path).join(', ');
  const current = contextName ?? docs.map((d) => str(d.doc['current-context'])).find((c) => c !== undefined);
  if (current === undefined) return kubeconfigError(`${names}: current-context is not set (name one with --context)`);
  const context = mergedEntries(docs, 'contexts', 'context').get(current);
  if (context === undefined) return kubeconfigError(`context "${current}" does not exist in ${names}`);
  const clusterName = str(context.value['cluster']) ?? '';
  const cluster = mergedEntries(docs, 'clusters', 'cluster').get(clusterName);
  if (cluster === undefined) return kubeconfigError(`cluster "${clusterName}" of context "${current}" does not exist in ${names}`);
  const server = str(cluster.value['server']);
  if (server === undefined) return kubeconfigError(`${cluster.path}: cluster "${clusterName}" has no server`);
  const userName = str(context.value['user']) ?? '';
  const user = mergedEntries(docs, 'users', 'user').get(userName) ?? { value: {}, path: context.path };
  const exec = execPlugin(user);
  if (!exec.ok) return exec;
  const u = user.value;
  const fields = {
    ca: base64Text(str(cluster.value['certificate-authority-data'])),
    caFile: resolvedPath(str(cluster.value['certificate-authority']), cluster.path),
    token: str(u['token']),
    tokenFile: resolvedPath(str(u['tokenFile']), user.path),
    clientCert: base64Text(str(u['client-certificate-data'])),
    clientCertFile: resolvedPath(str(u['client-certificate']), user.path),
    clientKey: base64Text(str(u['client-key-data'])),
    clientKeyFile: resolvedPath(str(u['client-key']), user.path),
    exec: exec.value,
  };
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return ok({
    server: server.replace(/\/+$/, ''),
    ...defined,
    insecureSkipTLSVerify: cluster.value['insecure-skip-tls-verify'] === true,
    namespace: str(context.value['namespace']) ?? 'default',
    context: current,
    files: files.map((f) => f.path),
  } as KubeconfigTarget);
}
