// `kubesvc up --dataplane netns`: every node of the cluster a namespace of a pod network
// (@kubesvc/netlab's PodNetwork), each node's kube-proxy loading its syncs into its own node's
// namespace, every pod the simulated kubelet runs a namespace of its own (pod-network-pods.ts).
// The kube-proxy of a node takes its settings from the agent (its node IP is the node's address
// on the pod network), so the data plane only loads: iptables-restore --noflush for each
// iptables sync (and kube-proxy's jump rules after the first), nft -f for each nftables one.
import { err, ok, type Result } from '@kubesvc/api-types';
import { jumpRulesText, PodNetwork, podNetworkUnavailable, type IptablesBackend, type LabProxyMode, labUnavailable } from '@kubesvc/netlab';
import { syncedRuleset, type SyncState } from '@kubesvc/proxy-iptables';
import type { NftTable } from '@kubesvc/proxy-nftables';
import type { Dataplane, DataplaneFactory, ErrDataplane } from '../dataplane.js';
import type { IptablesLoader } from '../iptables-proxy.js';
import type { NftablesLoader } from '../nftables-proxy.js';

/** Why the pod network cannot run here (not root, a tool missing), or undefined. */
export function podNetworkRefusal(proxyMode: LabProxyMode = 'iptables', backend: IptablesBackend = 'nft'): ErrDataplane | undefined {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    return { _tag: 'ErrDataplane', message: '--dataplane netns needs root (CAP_NET_ADMIN): it makes a network namespace for every node and pod' };
  }
  const why = podNetworkUnavailable() ?? labUnavailable(backend, proxyMode);
  return why === undefined ? undefined : { _tag: 'ErrDataplane', message: `--dataplane netns: ${why}` };
}

/** One node's kube-proxy loading into that node's namespace. */
export class PodNetworkNodeDataplane implements Dataplane, IptablesLoader, NftablesLoader {
  readonly name = 'netns';
  readonly loader: IptablesLoader = this;
  readonly nftablesLoader: NftablesLoader = this;

  constructor(
    readonly network: PodNetwork,
    readonly nodeName: string,
    private readonly backend: IptablesBackend = 'nft',
  ) {
    network.node(nodeName);
  }

  /** `restore` is the sync's bytes, valid during the call only (the agent reuses its buffer). */
  load(restore: Uint8Array, state: SyncState, first: boolean): void {
    this.network.restore(this.nodeName, restore, this.backend);
    if (first) this.network.restore(this.nodeName, jumpRulesText(syncedRuleset(state)), this.backend);
  }

  loadNftables(text: string, _table: NftTable): void {
    this.network.loadNftables(this.nodeName, text);
  }

  /** The network outlives a node's kube-proxy: whoever made it tears it down. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The data plane a node's agent takes: loads into the namespace of the node the agent runs for. */
export function podNetworkDataplane(network: PodNetwork, backend: IptablesBackend = 'nft'): DataplaneFactory<PodNetworkNodeDataplane> {
  return {
    name: 'netns',
    loadsRules: true,
    create: ({ nodeName, proxyMode }): Promise<Result<PodNetworkNodeDataplane, ErrDataplane>> => {
      const refused = podNetworkRefusal(proxyMode, backend);
      if (refused !== undefined) return Promise.resolve(err(refused));
      try {
        return Promise.resolve(ok(new PodNetworkNodeDataplane(network, nodeName, backend)));
      } catch (error) {
        return Promise.resolve(err({ _tag: 'ErrDataplane', message: error instanceof Error ? error.message : String(error) }));
      }
    },
  };
}
