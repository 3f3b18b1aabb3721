// `--dataplane netns`: the iptables or nftables proxy's syncs loaded into a real kernel, in the
// node namespace of a network-namespace lab (@kubesvc/netlab). In iptables mode with
// `iptables-restore --noflush` as kube-proxy loads each sync, and kube-proxy's jump rules after
// the first; in nftables mode each sync's transaction (partial or full) with `nft -f`, as
// kube-proxy's knftables runs it (Lab.loadNftables).
// Needs root: the lab creates namespaces and loads rules. Without it the agent refuses the
// option with an error value instead of starting.
// This is the one module of the node agent that imports @kubesvc/netlab (eslint.config.mjs
// holds every other one to that): the agent takes it as a data plane (../dataplane.ts).
import { err, ok, type Result } from '@kubesvc/api-types';
import { jumpRulesText, Lab, labUnavailable, type IptablesBackend, type LabProxyMode } from '@kubesvc/netlab';
import { syncedRuleset, type ProxierConfig, type SyncState } from '@kubesvc/proxy-iptables';
import type { NftablesProxierConfig, NftTable } from '@kubesvc/proxy-nftables';
import type { Dataplane, DataplaneFactory, ErrDataplane } from '../dataplane.js';
import type { IptablesLoader } from '../iptables-proxy.js';
import type { NftablesLoader } from '../nftables-proxy.js';

export interface NetnsDataplaneOptions {
  readonly nodeName: string;
  /** Backend pods the lab starts (each answers with its name on TCP and UDP). Default none. */
  readonly backends?: readonly string[];
  /** Client pods. Default `['client']`. */
  readonly clients?: readonly string[];
  /** Which iptables-restore loads the rules (iptables mode). Default nft. */
  readonly iptables?: IptablesBackend;
  /** Which syncs the lab's node gets. Default iptables. */
  readonly proxyMode?: LabProxyMode;
}

/** Why `--dataplane netns` cannot run here, or undefined. */
export function netnsUnavailable(backend: IptablesBackend = 'nft', proxyMode: LabProxyMode = 'iptables'): ErrDataplane | undefined {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    return { _tag: 'ErrDataplane', message: '--dataplane netns needs root (CAP_NET_ADMIN)' };
  }
  const why = labUnavailable(backend, proxyMode);
  return why === undefined ? undefined : { _tag: 'ErrDataplane', message: `--dataplane netns: ${why}` };
}

/** A lab whose node namespace receives every sync. */
export class NetnsDataplane implements Dataplane, IptablesLoader, NftablesLoader {
  readonly name = 'netns';
  readonly loader: IptablesLoader = this;
  readonly nftablesLoader: NftablesLoader = this;

  private constructor(readonly lab: Lab) {}

  /** The rules must fit the lab's node: its addresses and pod network. */
  get proxierConfig(): ProxierConfig {
    return this.lab.config;
  }

  /** The same, in nftables mode (the agent replaces its ServiceCIDRs by the cluster's). */
  get nftablesConfig(): NftablesProxierConfig {
    return this.lab.nftablesConfig;
  }

  static async create(options: NetnsDataplaneOptions): Promise<Result<NetnsDataplane, ErrDataplane>> {
    const refused = netnsUnavailable(options.iptables, options.proxyMode);
    if (refused !== undefined) return err(refused);
    const lab = await Lab.create({
      backends: options.backends ?? [],
      nodeName: options.nodeName,
      ...(options.clients !== undefined ? { clients: options.clients } : {}),
      ...(options.iptables !== undefined ? { iptables: options.iptables } : {}),
      ...(options.proxyMode !== undefined ? { proxyMode: options.proxyMode } : {}),
    });
    return ok(new NetnsDataplane(lab));
  }

  load(restore: Uint8Array, state: SyncState, first: boolean): void {
    this.lab.restore(restore);
    if (first) this.lab.restore(jumpRulesText(syncedRuleset(state)));
  }

  /** One nftables sync's text with `nft -f`; its base chains hook themselves in, so nothing follows the first. */
  loadNftables(text: string, table: NftTable): void {
    this.lab.loadNftables(text, table);
  }

  /** Kills the lab's processes and deletes its namespaces. */
  async close(): Promise<void> {
    await this.lab.teardown();
  }
}

/** The data plane `startNodeAgent` takes for `--dataplane netns`: a lab named after the node, in the agent's proxy mode. */
export function netnsDataplane(options: Omit<NetnsDataplaneOptions, 'nodeName' | 'proxyMode'> = {}): DataplaneFactory<NetnsDataplane> {
  return {
    name: 'netns',
    loadsRules: true,
    create: ({ nodeName, proxyMode }) => NetnsDataplane.create({ ...options, nodeName, proxyMode }),
  };
}
