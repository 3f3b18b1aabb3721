// Where the iptables or nftables proxy's syncs go besides the rules files: the data plane the
// node agent is given in its options, as the API server is given its extensions. The `files`
// data plane is the default: the rules are only written to `<dataDir>/iptables/` or
// `<dataDir>/nftables/`. The `netns` one, which loads each sync into a network-namespace lab's
// kernel, is the subpath `@kubesvc/node-agent/netns`,
// the one module of the agent that loads @kubesvc/netlab (docs/architecture.md, the node agent),
// so a caller that does not ask for it never loads the lab.
import { ok, type Result } from '@kubesvc/api-types';
import type { ProxierConfig } from '@kubesvc/proxy-iptables';
import type { NftablesProxierConfig } from '@kubesvc/proxy-nftables';
import type { IptablesLoader } from './iptables-proxy.js';
import type { NftablesLoader } from './nftables-proxy.js';

/** A data plane that cannot run here (the netns one without root, say). */
export interface ErrDataplane {
  readonly _tag: 'ErrDataplane';
  readonly message: string;
}

/** A running data plane. */
export interface Dataplane {
  /** As `--dataplane` names it: `files`, `netns`. */
  readonly name: string;
  /** The kube-proxy settings the rules must fit when the data plane fixes them (a lab's node: its addresses and pod network); absent: the agent's own. */
  readonly proxierConfig?: ProxierConfig;
  /** Loads each iptables sync; absent: the rules are only written to files. */
  readonly loader?: IptablesLoader;
  /** The nftables proxier's settings when the data plane fixes them (its ServiceCIDRs are replaced by the cluster's). */
  readonly nftablesConfig?: NftablesProxierConfig;
  /** Loads each nftables sync; absent: the table is only written to files. */
  readonly nftablesLoader?: NftablesLoader;
  /** Releases what the data plane holds (a lab's namespaces and processes). */
  close(): Promise<void>;
}

/** What the agent tells a data plane it starts. */
export interface DataplaneContext {
  readonly nodeName: string;
  /** Which syncs it gets. */
  readonly proxyMode: 'iptables' | 'nftables';
}

/** Starts a data plane for the agent, in the iptables and nftables proxy modes only; a refusal is an error value. */
export interface DataplaneFactory<D extends Dataplane = Dataplane> {
  readonly name: string;
  /** Whether it takes the syncs somewhere besides the files, which only the iptables and nftables proxy modes make. */
  readonly loadsRules: boolean;
  create(context: DataplaneContext): Promise<Result<D, ErrDataplane>>;
}

/** The default: the rules are written to files, nothing more. */
export const filesDataplane: DataplaneFactory = {
  name: 'files',
  loadsRules: false,
  create: () => Promise.resolve(ok({ name: 'files', close: () => Promise.resolve() })),
};
