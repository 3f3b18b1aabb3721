// The kube-proxy flags that `rules` and `trace` share, and the checked config they make.
import { Option, type Command } from 'commander';
import { KUBE_PROXY_VERSIONS, type KubeProxyVersion, type ProxierConfig } from '@kubesvc/proxy-iptables';
import { usageError } from '../cli-error.js';
import { DEFAULT_NODE_NAME, rulesConfig } from '../logic/rules.js';

export interface ProxierCommandOptions {
  readonly nodeName: string;
  readonly nodeIp: readonly string[];
  readonly clusterCidr?: string;
  readonly masqueradeAll?: boolean;
  readonly kubeProxyVersion: KubeProxyVersion;
}

const collect = (value: string, previous: readonly string[]): string[] => [...previous, ...value.split(',').filter((v) => v !== '')];

export function addProxierOptions(command: Command): Command {
  return command
    .option('--node-name <name>', 'the node kube-proxy runs on: endpoints with this nodeName are local', DEFAULT_NODE_NAME)
    .option('--node-ip <ip>', "the node's addresses (repeat, or separate with commas)", collect, [])
    .option('--cluster-cidr <cidr>', 'the pod CIDR: traffic to a cluster IP from outside it is masqueraded')
    .option('--masquerade-all', 'masquerade every packet to a cluster IP')
    .addOption(
      new Option('--kube-proxy-version <version>', 'the kube-proxy release whose rules to write').choices([...KUBE_PROXY_VERSIONS]).default('1.31'),
    );
}

/** The proxier config of the flags; a bad value is a usage error with proxy-iptables' field errors. */
export function proxierConfigOf(options: ProxierCommandOptions): ProxierConfig {
  const config = rulesConfig({
    nodeName: options.nodeName,
    nodeIPs: options.nodeIp,
    ...(options.clusterCidr !== undefined ? { clusterCIDR: options.clusterCidr } : {}),
    masqueradeAll: options.masqueradeAll === true,
    kubeProxyVersion: options.kubeProxyVersion,
  });
  if (!config.ok) throw usageError(config.error.message);
  return config.value;
}
