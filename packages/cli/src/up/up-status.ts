// What a running `kubesvc up` says about itself in <data-dir>/up.json, for `kubesvc status` and
// `kubesvc down`: its pid and when it started, where its API, DNS and rules are. Written
// atomically once the cluster is up, removed when it stops; one left by a crash names a pid
// that is gone (or, after pid reuse, one that is not kubesvc's), which both commands tell apart.
import { readFileSync } from 'node:fs';

export const UP_STATUS_FILE = 'up.json';

export interface UpStatus {
  readonly pid: number;
  /** RFC 3339. */
  readonly startedAt: string;
  readonly dataDir: string;
  readonly apiURL: string;
  readonly advertiseAddress: string;
  readonly kubeconfig: string;
  /** `host:port`, or none. */
  readonly dns?: string;
  readonly proxyMode: string;
  /** Where kube-proxy's rules are written, if anywhere. */
  readonly rules?: string;
  readonly nodes: readonly string[];
  /** The rules of the kube-proxies of the nodes past the first (`--nodes N`, iptables or nftables mode). */
  readonly nodeRules?: readonly { readonly node: string; readonly rules: string }[];
}

/** What `path` holds: the status, nothing (no file), or why it is not a status file. */
export function readUpStatus(path: string): { readonly kind: 'absent' } | { readonly kind: 'invalid'; readonly why: string } | { readonly kind: 'status'; readonly status: UpStatus } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    return { kind: 'invalid', why: error instanceof Error ? error.message : String(error) };
  }
  try {
    const value = JSON.parse(text) as Partial<UpStatus>;
    if (typeof value.pid !== 'number' || !Number.isInteger(value.pid) || value.pid <= 0 || typeof value.apiURL !== 'string') return { kind: 'invalid', why: 'not the JSON kubesvc up writes' };
    return { kind: 'status', status: value as UpStatus };
  } catch (error) {
    return { kind: 'invalid', why: `not the JSON kubesvc up writes: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * Whether `pid` is a live kubesvc process: it exists and its command line runs kubesvc (a pid
 * left by a crash may since belong to another program, which must never be signalled).
 */
export function isKubesvcProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return /kubesvc/.test(cmdline) && !readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').startsWith('Z');
  } catch {
    return false;
  }
}
