// What every lab shape shares: run prefixes, the registry that tears live labs down whatever
// ends the process, the synchronous kill-and-delete, a pod on a node's bridge, and the checks
// for what is left. Every command here runs inside a lab namespace (`ip -n`, `ip netns exec`),
// except `ip netns add/del/list` and the read-only `ip link` of `leftovers`.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AgentProcess } from './agents.js';
import { must, run } from './commands.js';

export const PREFIX_PATTERN = /^[a-z0-9]{1,8}$/;

/** `kl` and six random characters: parallel runs never clash. */
export function randomPrefix(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return `kl${[...randomBytes(6)].map((b) => alphabet[b % alphabet.length]).join('')}`;
}

/** A lab the exit and signal handlers tear down. */
export interface LiveLab {
  teardownNow(): void;
}

// Every live lab, for the exit and signal handlers: whatever ends the process, the lab's
// processes are killed and its namespaces deleted.
const liveLabs = new Set<LiveLab>();
let handlersInstalled = false;
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function teardownAllNow(): void {
  for (const lab of [...liveLabs]) lab.teardownNow();
}

function onSignal(signal: NodeJS.Signals): void {
  teardownAllNow();
  // Then die of the signal as the process would have without us (exit status 128 + n), unless
  // someone else also listens (they decide).
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  handlersInstalled = false;
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

/** From now until `forgetLive`, the lab is torn down on exit, an uncaught exception, SIGINT, SIGTERM and SIGHUP. */
export function registerLive(lab: LiveLab): void {
  liveLabs.add(lab);
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', teardownAllNow);
  for (const s of SIGNALS) process.on(s, onSignal);
}

export function forgetLive(lab: LiveLab): void {
  liveLabs.delete(lab);
}

/**
 * The synchronous teardown, for exit and signal handlers as well as `teardown()`: SIGKILL to
 * every running agent, a bounded wait until they are gone, then `ip netns del` of every
 * namespace, the last made first. Empties `namespaces`.
 */
export function killAndDeleteNow(agents: readonly AgentProcess[], namespaces: string[]): void {
  const killed: number[] = [];
  for (const a of agents) {
    if (!a.running) continue;
    a.child.kill('SIGKILL');
    if (a.child.pid !== undefined) killed.push(a.child.pid);
  }
  // SIGKILL is delivered when the kernel next schedules the process, which on a busy machine
  // can be after this (exiting) process is gone; wait for it, so that "nothing is left"
  // holds when the handler returns. Bounded: 2 s at most.
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < 2_000 && killed.some(processRunning); waited += 10) Atomics.wait(sleeper, 0, 0, 10);
  for (const ns of [...namespaces].reverse()) run(['ip', 'netns', 'del', ns]);
  namespaces.length = 0;
}

/** `ip -n <namespace> ...` */
export function ipIn(namespace: string, ...args: string[]): string {
  return must(['ip', '-n', namespace, ...args]);
}

/** Sets a sysctl inside a lab namespace (never in the namespace the lab runs from). */
export function sysctlIn(namespace: string, name: string, value: string): void {
  must(['ip', 'netns', 'exec', namespace, 'sysctl', '-q', '-w', `${name}=${value}`]);
}

/** Whether br_netfilter is there for a namespace: its sysctls exist (per namespace since Linux 5.3). */
export function hasBrNetfilter(namespace: string): boolean {
  return run(['ip', 'netns', 'exec', namespace, 'test', '-e', '/proc/sys/net/bridge/bridge-nf-call-iptables']).status === 0;
}

/** Where a pod plugs into its node's bridge. */
export interface BridgedPod {
  /** The node's network namespace, which holds the bridge. */
  readonly nodeNamespace: string;
  readonly bridge: string;
  /** The node end of the pod's veth (a bridge port). */
  readonly veth: string;
  /** The pod's own (already made) namespace. */
  readonly podNamespace: string;
  /** The pod's address with the node's pod prefix length, e.g. `10.244.1.2/24`. */
  readonly address: string;
  /** The bridge's address: the pod's default gateway. */
  readonly gateway: string;
}

/**
 * A pod on its node's bridge, as the CNI bridge plugin plugs it in: a veth made inside the
 * lab namespaces (never where the lab runs from), a bridge port with hairpin on, the pod's
 * address on eth0 and a default route via the bridge.
 */
export function plugIntoBridge(pod: BridgedPod): void {
  ipIn(pod.podNamespace, 'link', 'set', 'lo', 'up');
  ipIn(pod.nodeNamespace, 'link', 'add', pod.veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', pod.podNamespace);
  ipIn(pod.nodeNamespace, 'link', 'set', pod.veth, 'master', pod.bridge);
  ipIn(pod.nodeNamespace, 'link', 'set', pod.veth, 'type', 'bridge_slave', 'hairpin', 'on');
  ipIn(pod.nodeNamespace, 'link', 'set', pod.veth, 'up');
  ipIn(pod.podNamespace, 'addr', 'add', pod.address, 'dev', 'eth0');
  ipIn(pod.podNamespace, 'link', 'set', 'eth0', 'up');
  ipIn(pod.podNamespace, 'route', 'add', 'default', 'via', pod.gateway);
}

/** Namespaces (`ip netns list`) and links of the calling namespace (`ip link`) whose names start with `prefix`. */
export function leftovers(prefix: string): { readonly namespaces: readonly string[]; readonly links: readonly string[] } {
  const namespaces = must(['ip', 'netns', 'list'])
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((name) => name.startsWith(prefix));
  const links = [...must(['ip', '-o', 'link', 'show']).matchAll(/^\d+: ([^:@\s]+)/gm)].map((m) => m[1] ?? '').filter((name) => name.startsWith(prefix));
  return { namespaces, links };
}

/**
 * Whether a process with this pid is still running. A zombie (exited, not yet reaped by its
 * parent) is not: it holds no namespace and no socket any more.
 */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ...: comm may hold spaces and parentheses, so read after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
