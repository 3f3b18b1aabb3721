// The kube-proxy flags that `rules` and `trace` share, and the checked config they make.
import { Option, type Command } from 'commander';
import { KUBE_PROXY_VERSIONS, type KubeProxyVersion, type ProxierConfig } from '@kubesvc/proxy-iptables';
import { inputError, usageError } from '../cli-error.js';
import type { NftablesProxierConfig } from '@kubesvc/proxy-nftables';
import type { Dump } from '../dump/load-dump.js';
import { findDumpNode, type DumpNode } from '../logic/nodes.js';
import { parseProxyFeatureGates } from '../logic/proxy-feature-gates.js';
import { DEFAULT_NODE_NAME, dumpServiceCIDRs, nftablesRulesConfig, PROXY_MODES, rulesConfig, type RulesProxyMode } from '../logic/rules.js';

export interface ProxierCommandOptions {
  readonly nodeName: string;
  readonly nodeIp: readonly string[];
  readonly clusterCidr?: string;
  readonly masqueradeAll?: boolean;
  readonly kubeProxyVersion: KubeProxyVersion;
  readonly proxyMode: RulesProxyMode;
  readonly serviceCidr: readonly string[];
  readonly featureGates?: string;
}

const collect = (value: string, previous: readonly string[]): string[] => [...previous, ...value.split(',').filter((v) => v !== '')];

export function addProxierOptions(command: Command): Command {
  return command
    .option('--node-name <name>', 'the node kube-proxy runs on: endpoints with this nodeName are local', DEFAULT_NODE_NAME)
    .option('--node-ip <ip>', "the node's addresses (repeat, or separate with commas)", collect, [])
    .option('--cluster-cidr <cidr>', 'the pod CIDR: traffic to a cluster IP from outside it is masqueraded')
    .option('--masquerade-all', 'masquerade every packet to a cluster IP')
    .addOption(new Option('--proxy-mode <mode>', "kube-proxy's mode: iptables, or nftables (v1.33's rules)").choices([...PROXY_MODES]).default('iptables'))
    .addOption(
      new Option('--kube-proxy-version <version>', 'the kube-proxy release whose rules to write (iptables mode)').choices([...KUBE_PROXY_VERSIONS]).default('1.31'),
    )
    .option(
      '--feature-gates <pairs>',
      "kube-proxy's: key=value pairs; PreferSameTrafficDistribution=true lets EndpointSlice node hints choose the endpoints (alpha in v1.33, off by default); other gates are refused; may be repeated",
      (value: string, previous: string | undefined) => (previous === undefined ? value : `${previous},${value}`),
    )
    .option(
      '--service-cidr <cidr>',
      "nftables mode: the ServiceCIDRs kube-proxy watches (repeat, or separate with commas), instead of the input's ServiceCIDR objects",
      collect,
      [],
    );
}

/** Flags that belong to the other mode: a usage error, so that a flag is never silently ignored. */
export function checkModeFlags(options: ProxierCommandOptions, versionFromCommandLine: boolean): void {
  if (options.proxyMode === 'nftables' && versionFromCommandLine) {
    throw usageError('--kube-proxy-version chooses an iptables-mode release; --proxy-mode nftables writes v1.33\'s rules');
  }
  if (options.proxyMode === 'iptables' && options.serviceCidr.length > 0) {
    throw usageError('--service-cidr is for --proxy-mode nftables (the iptables mode has no ServiceCIDR rules)');
  }
}

/**
 * A warning when nftables mode has no ServiceCIDRs to check against (the input holds no
 * ServiceCIDR objects, as dumps of clusters before v1.33 do, and no --service-cidr was given):
 * then nothing drops packets to unallocated ClusterIPs, as on a node whose kube-proxy has seen
 * no ServiceCIDR.
 */
export function serviceCIDRWarning(options: ProxierCommandOptions, dump: Pick<Dump, 'serviceCIDRs'>): string | undefined {
  if (options.proxyMode !== 'nftables' || options.serviceCidr.length > 0 || dumpServiceCIDRs(dump).length > 0) return undefined;
  return 'warning: the input has no ServiceCIDR objects and no --service-cidr was given, so the rules drop no packet to an unallocated ClusterIP\n';
}

/**
 * The node settings of the flags, or of `node` (a Node of the dump: `--node`, `--from-node`):
 * its name and topology labels, and its InternalIPs unless `--node-ip` was given.
 */
function nodeSettings(
  options: ProxierCommandOptions,
  node: DumpNode | undefined,
): { nodeName: string; nodeIPs: readonly string[]; topologyLabels?: Readonly<Record<string, string>>; preferSameTrafficDistribution?: boolean } {
  const gates = parseProxyFeatureGates(options.featureGates);
  if (!gates.ok) throw usageError(gates.error.message);
  // Set only when on, so that kube-proxy 1.8 (which has no such gate) is refused only then.
  const gate = gates.value.preferSameTrafficDistribution ? { preferSameTrafficDistribution: true } : {};
  if (node === undefined) return { nodeName: options.nodeName, nodeIPs: options.nodeIp, ...gate };
  return { nodeName: node.nodeName, nodeIPs: options.nodeIp.length > 0 ? options.nodeIp : node.nodeIPs, topologyLabels: node.topologyLabels, ...gate };
}

/** The nftables proxier config of the flags and the dump's ServiceCIDRs (or --service-cidr); a bad value is a usage error. */
export function nftablesConfigOf(options: ProxierCommandOptions, dump: Pick<Dump, 'serviceCIDRs'>, node?: DumpNode): NftablesProxierConfig {
  const config = nftablesRulesConfig(
    {
      ...nodeSettings(options, node),
      ...(options.clusterCidr !== undefined ? { clusterCIDR: options.clusterCidr } : {}),
      masqueradeAll: options.masqueradeAll === true,
    },
    options.serviceCidr.length > 0 ? options.serviceCidr : dumpServiceCIDRs(dump),
  );
  if (!config.ok) throw usageError(config.error.message);
  return config.value;
}

/** The proxier config of the flags; a bad value is a usage error with proxy-iptables' field errors. */
export function proxierConfigOf(options: ProxierCommandOptions, node?: DumpNode): ProxierConfig {
  const { topologyLabels, ...settings } = nodeSettings(options, node);
  const config = rulesConfig({
    ...settings,
    // kube-proxy 1.8 read no node labels (hints came in v1.21): on the Node it runs as one that ignores them.
    ...(topologyLabels !== undefined && options.kubeProxyVersion !== '1.8' ? { topologyLabels } : {}),
    ...(options.clusterCidr !== undefined ? { clusterCIDR: options.clusterCidr } : {}),
    masqueradeAll: options.masqueradeAll === true,
    kubeProxyVersion: options.kubeProxyVersion,
  });
  if (!config.ok) throw usageError(config.error.message);
  return config.value;
}

/** The Node of the dump a flag (`--node`, `--from-node`) names; a name the dump has no Node of is an input error (exit 1). */
export function dumpNodeFor(dump: Pick<Dump, 'objects' | 'source'>, name: string, flag: string): DumpNode {
  const node = findDumpNode(dump, name, flag);
  if (!node.ok) throw inputError(node.error.message);
  return node.value;
}

/** A flag that takes the node from the dump leaves out `--node-name`, which would say otherwise. */
export function checkNodeFlag(flag: string, nodeNameFromCommandLine: boolean): void {
  if (nodeNameFromCommandLine) throw usageError(`${flag} takes the node's name from its Node object: leave out --node-name`);
}
