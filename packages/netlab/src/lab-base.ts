// What every lab shape keeps and does alike: the namespaces it made and the processes it
// started, commands inside its namespaces, load generators, and the teardown that removes
// exactly what it made, whatever ends the process.
import { AgentProcess, ClientRun, clientDefaults, type ClientReport, type ClientSpec } from './agents.js';
import { must, run, type CommandResult } from './commands.js';
import { forgetLive, killAndDeleteNow, leftovers, processRunning, registerLive, type LiveLab } from './netns.js';

/** What a teardown left: nothing, when all went well. */
export interface Leftovers {
  readonly namespaces: readonly string[];
  readonly links: readonly string[];
  /** Pids of the lab's processes still running. */
  readonly processes: readonly number[];
}

export abstract class LabBase implements LiveLab {
  /** Every name the lab makes starts with it. */
  abstract readonly prefix: string;
  /** Namespaces made so far (teardown deletes exactly these). */
  protected readonly namespaces: string[] = [];
  protected readonly agents: AgentProcess[] = [];
  protected torn = false;

  /** The namespace a load generator started `from` runs in (a pod's name, say). */
  protected abstract clientNamespace(from: string): string;

  /**
   * Runs `build` with the lab registered for the exit and signal handlers; if it fails,
   * whatever was made is removed before the error is thrown on.
   */
  protected async built(build: () => Promise<void>): Promise<void> {
    registerLive(this);
    try {
      await build();
    } catch (error) {
      await this.teardown();
      throw error;
    }
  }

  protected addNamespace(name: string): void {
    // Recorded only once made: a name that already existed (another lab's) is never deleted.
    must(['ip', 'netns', 'add', name]);
    this.namespaces.push(name);
  }

  /** Every namespace the lab made (and has not deleted). */
  get namespaceNames(): readonly string[] {
    return [...this.namespaces];
  }

  /** The pids of every process the lab started, live or not. */
  get pids(): readonly number[] {
    return this.agents.map((a) => a.pid);
  }

  /** Runs a command inside one of the lab's namespaces. */
  exec(namespace: string, command: readonly string[], input?: string): CommandResult {
    if (!this.namespaces.includes(namespace)) throw new RangeError(`${namespace} is not a namespace of this lab`);
    return run(['ip', 'netns', 'exec', namespace, ...command], input === undefined ? {} : { input });
  }

  /** Starts a load generator (bounded: see ClientSpec). */
  startClient(from: string, spec: ClientSpec): ClientRun {
    if (this.torn) throw new Error('the lab has been torn down');
    const full = clientDefaults(spec);
    const agent = new AgentProcess(this.clientNamespace(from), 'client', full);
    this.agents.push(agent);
    return new ClientRun(agent, full);
  }

  /** Runs a load generator to its end. */
  connect(from: string, spec: ClientSpec): Promise<ClientReport> {
    return this.startClient(from, spec).report;
  }

  /**
   * Kills every process the lab started and deletes every namespace it made (which removes
   * their links, addresses, routes and rules). Safe to call twice.
   */
  async teardown(): Promise<void> {
    await Promise.all(this.agents.map((a) => a.kill()));
    this.teardownNow();
  }

  /** Tears the lab down and says what is left of it: namespaces, links, running processes. */
  async teardownAndCheck(): Promise<Leftovers> {
    const pids = this.pids;
    await this.teardown();
    return { ...leftovers(this.prefix), processes: pids.filter(processRunning) };
  }

  /** The synchronous teardown, for exit and signal handlers: SIGKILL, then `ip netns del`. */
  teardownNow(): void {
    killAndDeleteNow(this.agents, this.namespaces);
    this.torn = true;
    forgetLive(this);
  }
}
